#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs inside L1 (tests/qemu/check.py puts it there): boots the L2 guest
# with Debian's stock QEMU once per mode named on the command line:
#
#   stock      no shim, no ROM: QEMU as distributed
#   observe    the shim with PVSMM_REFLECT=0: stock behaviour, counted
#   seabios    SeaBIOS + our option ROM, the shim enabling reflection
#   ovmf       OVMF + our UEFI driver, the shim enabling reflection
#   ovmf-observe  the same with PVSMM_REFLECT=0 (the driver finds no leaf)
#   ovmf-driver   OVMF + our UEFI driver and the shim, no Linux: OVMF's own
#              PM timer reads in the UEFI shell between two marks
#              (tests/qemu/make-esp.sh)
#   accel      QEMU with host/qemu/*.patch: -accel kvm,pvsmm=on enables
#              reflection itself, SeaBIOS + our option ROM; the shim only
#              counts (PVSMM_REFLECT=0, PVSMM_EPOCH=0)
#   accel-migrate  the same QEMU, migrated once the ROM registered: a
#              source QEMU (its own frame, accel-migrate-src) saves the VM
#              to a file, a second QEMU restores it with -incoming and
#              runs the guest to the end without any firmware running again
#
# Each run's lines are framed by "=== QEMU-RUN mode" / "=== QEMU-END mode
# rc=N"; L2's serial console and QEMU's stderr (the shim's lines) are both
# in between.  Settings: CALLS, PAIRS (environment).
set -u
calls=${CALLS:-2000}
pairs=${PAIRS:-2000}
marker=0xef8
dir=/pvsmm
append="console=ttyS0 clocksource=acpi_pm loglevel=4 panic=-1"
append="$append pmcheck_calls=$calls pmcheck_pairs=$pairs pmcheck_marker=$marker"
common="-cpu host -machine q35 -m 256 -smp 1 -nodefaults -nographic -no-reboot"
base="-enable-kvm $common -serial stdio -monitor none"
# Built with --prefix=/usr but not installed: its data directory would be
# found next to the binary, so name Debian's (the same SeaBIOS and ROMs).
pq="$dir/qemu-pvsmm/qemu-system-x86_64 -L /usr/share/qemu"
counting="LD_PRELOAD=$dir/libpvsmm-preload.so PVSMM_PORTS=0x608 PVSMM_REFLECT=0
	PVSMM_EPOCH=0 PVSMM_MARKER_PORT=$marker"
linux="-option-rom $dir/pvsmm.rom -kernel $dir/vmlinuz -initrd $dir/l2.cpio.gz"

run() {
	mode=$1
	shift
	echo "=== QEMU-RUN $mode"
	# The status inside the pipe: QEMU's, not tr's.
	{
		timeout 900 "$@" </dev/null 2>&1
		echo "=== QEMU-END $mode rc=$?"
	} | tr -d '\r'
}

# The source of accel-migrate: boots until the option ROM has registered,
# then HMP "migrate" to a file and "quit" (HMP holds the second command
# until the migration completed).
migrate_source() {
	rm -f /tmp/vm.state /tmp/mon.in /tmp/mon.out /tmp/src.log
	mkfifo /tmp/mon.in /tmp/mon.out
	echo "=== QEMU-RUN accel-migrate-src"
	cat /tmp/mon.out >/tmp/mon.log &
	# shellcheck disable=SC2086
	timeout 600 $pq -accel kvm,pvsmm=on $common -serial file:/tmp/src.log \
		-chardev pipe,id=mon,path=/tmp/mon -mon chardev=mon \
		$linux -append "$append" </dev/null 2>&1 &
	qpid=$!
	i=0
	until grep -q "pvsmm: registered" /tmp/src.log 2>/dev/null; do
		i=$((i + 1))
		if ! kill -0 $qpid 2>/dev/null || [ $i -gt 3000 ]; then
			break
		fi
		sleep 0.1
	done
	# A FIFO opens for writing only once a reader has it: QEMU, if alive.
	if kill -0 $qpid 2>/dev/null; then
		printf 'migrate "exec:cat > /tmp/vm.state"\nquit\n' >/tmp/mon.in
	fi
	wait $qpid
	rc=$?
	tr -d '\r' </tmp/src.log
	echo "vm.state: $(wc -c </tmp/vm.state 2>/dev/null || echo 0) bytes"
	echo "=== QEMU-END accel-migrate-src rc=$rc"
}

for mode in "$@"; do
	case $mode in
	stock)
		run stock qemu-system-x86_64 $base -kernel $dir/vmlinuz \
			-initrd $dir/l2.cpio.gz -append "$append" ;;
	observe)
		run observe env LD_PRELOAD=$dir/libpvsmm-preload.so \
			PVSMM_PORTS=0x608 PVSMM_REFLECT=0 PVSMM_MARKER_PORT=$marker \
			qemu-system-x86_64 $base -kernel $dir/vmlinuz \
			-initrd $dir/l2.cpio.gz -append "$append" ;;
	seabios)
		run seabios env LD_PRELOAD=$dir/libpvsmm-preload.so \
			PVSMM_PORTS=0x608 PVSMM_MARKER_PORT=$marker \
			qemu-system-x86_64 $base -option-rom $dir/pvsmm.rom \
			-kernel $dir/vmlinuz -initrd $dir/l2.cpio.gz \
			-append "$append" ;;
	ovmf|ovmf-observe|ovmf-driver)
		reflect=1 esp=$dir/esp
		[ "$mode" = ovmf-observe ] && reflect=0
		[ "$mode" = ovmf-driver ] && esp=$dir/esp-driver
		cp $dir/OVMF_VARS.fd /tmp/OVMF_VARS.fd
		run $mode env LD_PRELOAD=$dir/libpvsmm-preload.so \
			PVSMM_PORTS=0x608 PVSMM_MARKER_PORT=$marker PVSMM_REFLECT=$reflect \
			qemu-system-x86_64 $base \
			-drive if=pflash,format=raw,unit=0,readonly=on,file=$dir/OVMF_CODE.fd \
			-drive if=pflash,format=raw,unit=1,file=/tmp/OVMF_VARS.fd \
			-drive if=none,id=esp,format=raw,readonly=on,file=fat:$esp \
			-device virtio-blk-pci,drive=esp ;;
	accel)
		# shellcheck disable=SC2086
		run accel env $counting $pq -accel kvm,pvsmm=on $common \
			-serial stdio -monitor none $linux -append "$append" ;;
	accel-migrate)
		migrate_source
		# shellcheck disable=SC2086
		run accel-migrate env $counting $pq -accel kvm,pvsmm=on $common \
			-serial stdio -monitor none $linux -append "$append" \
			-incoming "exec:cat /tmp/vm.state" ;;
	*)
		echo "=== QEMU-RUN $mode"
		echo "unknown mode"
		echo "=== QEMU-END $mode rc=2" ;;
	esac
done
