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
base="-enable-kvm -cpu host -machine q35 -m 256 -smp 1 -nodefaults
	-nographic -serial stdio -no-reboot -monitor none"

run() {
	mode=$1
	shift
	echo "=== QEMU-RUN $mode"
	# shellcheck disable=SC2086
	timeout 900 "$@" </dev/null 2>&1 | tr -d '\r'
	echo "=== QEMU-END $mode rc=$?"
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
	*)
		echo "=== QEMU-RUN $mode"
		echo "unknown mode"
		echo "=== QEMU-END $mode rc=2" ;;
	esac
done
