#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs inside L1 (tests/qemu/check.py puts it there): boots the L2 guest
# with Debian's stock QEMU once per mode named on the command line:
#
#   stock      no shim, no ROM: QEMU as distributed
#   observe    the shim with PVSMM_REFLECT=0: stock behaviour, counted
#   seabios    SeaBIOS + our option ROM, the shim enabling reflection
#   seabios-pc seabios on the i440FX machine (pc): SeaBIOS puts PIIX4's
#              PM block where it puts ICH9's, so the PM timer is at 0x608
#              here too; the ROM and the guest find it in the FADT
#   ovmf       OVMF + our UEFI driver, the shim enabling reflection
#   ovmf-observe  the same with PVSMM_REFLECT=0 (the driver finds no leaf)
#   ovmf-rom   OVMF finds the driver by itself: pvsmm-efi.rom as the PCI
#              option ROM of a virtio-rng device, no ESP, Linux from
#              QEMU's -kernel; the shim enabling reflection
#   ovmf-pc    ovmf-rom on the pc machine, where OVMF puts PIIX4's PM
#              block at 0xb000: the PM timer at 0xb008
#   ovmf-driver   OVMF + our UEFI driver and the shim, no Linux: OVMF's own
#              PM timer reads in the UEFI shell between two marks
#              (tests/qemu/make-esp.sh)
#   accel      QEMU with host/qemu/*.patch: -accel kvm,pvsmm=on enables
#              reflection itself, SeaBIOS + our option ROM; the shim only
#              counts (PVSMM_REFLECT=0, PVSMM_EPOCH=0).  Run as libvirt
#              runs it: -accel kvm, through the wrapper qemu-pvsmm
#   accel-s3   accel on the pc machine, but L2 suspends to RAM first and
#              the RTC wakes it: the registration must be back at the
#              resume, where no firmware runs
#   accel-s3-migrate  accel-s3, but migrated while suspended (HMP migrate
#              once L2 has suspended), the destination woken by HMP
#              system_wakeup (as virsh dompmwakeup does): the registration
#              the destination loaded must be back at the resume
#   accel-kexec  accel, and L2's Linux then boots itself again by kexec
#              (l2-kexec.cpio.gz): no firmware runs, and the registration,
#              VM-wide in KVM, must serve the second kernel too
#   accel-migrate  the same QEMU, migrated once the ROM registered: a
#              source QEMU (its own frame, accel-migrate-src) saves the VM
#              to a file, a second QEMU restores it with -incoming and
#              runs the guest to the end without any firmware running again
#   seabios-s3  accel-s3 under Debian's QEMU with the shim: the shim
#              must keep the registration through the wakeup's reset
#   seabios-hotplug  seabios with a second vCPU hot-plugged (HMP
#              device_add) once the ROM registered: QEMU loads the new
#              vCPU's whole state, and the registration must survive it;
#              then HMP "info stats vcpu" and "info stats vm" (KVM's
#              binary stats)
#   accel-to-stock, accel-to-off  accel's registered guest migrated to
#              Debian's QEMU, or to the patched one without pvsmm=on: the
#              destination must refuse it
#   unregistered-to-stock  the patched QEMU with pvsmm=on but no ROM:
#              nothing registered, and Debian's QEMU takes the guest,
#              migrated while L2's clockstep watches its time (a window of
#              $window seconds): it must not step
#   stock-to-accel  the other way: Debian's QEMU, then the patched one
#              with pvsmm=on, migrated in the same window
#   seabios-migrate  seabios migrated like accel-migrate (source frame
#              seabios-migrate-src): stock QEMU does not carry the
#              registration, so the restored guest's PM timer reads exit,
#              and the shim serves every one of them from kvmclock
#   seabios-apparmor  seabios as libvirt runs pvsmm-shim.xml on Debian:
#              confined by the domain's AppArmor profile (virt-aa-helper's,
#              tests/qemu/make-aa-profile.sh), the operator's rules
#              (host/libvirt/apparmor-libvirt-qemu) in the local
#              abstraction, the shim and ROM at their installed paths
#   apparmor-denied  the same without the operator's rules: what the
#              operator sees (ld.so's and QEMU's lines, AppArmor's DENIED
#              audit lines, "AA-DMESG ..."), and the guest runs without pvsmm
#   apparmor-noshim  the operator's rules less the shim's: the ROM loads
#              but finds no CPUID leaf, and says so on the guest's console
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
# The migration window: L2's clockstep watches its time this long while
# the host migrates it (HMP migrate when L2 says L2-MIGRATE-WINDOW).
window=15
base="-enable-kvm $common -serial stdio -monitor none"
# on MACHINE: the base settings on another machine type than q35.
on() { echo "-enable-kvm $common -serial stdio -monitor none" | sed "s/-machine q35/-machine $1/"; }
# The patched QEMU (10.0) is built with Debian's data and firmware paths;
# -L names the data directory L1 has, the same SeaBIOS and ROMs.
pq="$dir/qemu-pvsmm/qemu-system-x86_64 -L /usr/share/qemu"
# A guest that leaves the patched QEMU for Debian's stock one (7.2 on
# Debian 12) must run a machine type both know: the stock QEMU's q35.
stock_q35=$(qemu-system-x86_64 -machine help 2>/dev/null |
	sed -n 's/^q35 .*alias of \(pc-q35-[0-9.]*\).*/\1/p')
xcommon=$(echo "$common" | sed "s/-machine q35/-machine ${stock_q35:-q35}/")
counting="LD_PRELOAD=$dir/libpvsmm-preload.so PVSMM_PORTS=0x608 PVSMM_REFLECT=0
	PVSMM_EPOCH=0 PVSMM_MARKER_PORT=$marker"
# With the option ROM, the seabios modes boot GRUB from a disk
# (tests/qemu/make-iso.sh's hybrid image, the same command line as
# $append), the accel modes QEMU's -kernel/-initrd: both ways are covered.
# (As an AHCI CD-ROM the image hangs now and then in SeaBIOS's CD boot in
# this lab, the vCPU halted for good, with the ROM and without it.)
rom="-option-rom $dir/pvsmm.rom
	-drive file=$dir/l2.iso,format=raw,if=virtio,readonly=on"
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

# monitored HMP QEMU...: runs QEMU (its arguments after the command) with
# the serial console in /tmp/serial.log and HMP on a pipe; once the option
# ROM has registered (or the console shows $ready, when set; at once when
# $nowait is set), and $settle seconds later (0 unless set), writes HMP
# (printf format) to the monitor, holding the pipe open until QEMU ends.
# Prints QEMU's output, then the console and what HMP answered; sets rc.
monitored() {
	hmp=$1
	shift
	rm -f /tmp/serial.log /tmp/mon.in /tmp/mon.out /tmp/mon.log
	mkfifo /tmp/mon.in /tmp/mon.out
	cat /tmp/mon.out >/tmp/mon.log &
	timeout 600 "$@" -serial file:/tmp/serial.log \
		-chardev pipe,id=mon,path=/tmp/mon -mon chardev=mon </dev/null 2>&1 &
	qpid=$!
	i=0
	until [ -n "${nowait:-}" ] ||
		grep -q "${ready:-pvsmm: registered}" /tmp/serial.log 2>/dev/null; do
		i=$((i + 1))
		if ! kill -0 $qpid 2>/dev/null || [ $i -gt 3000 ]; then
			break
		fi
		sleep 0.1
	done
	sleep "${settle:-0}"
	# A FIFO opens for writing only once a reader has it: QEMU, if alive.
	if kill -0 $qpid 2>/dev/null; then
		exec 3>/tmp/mon.in
		# shellcheck disable=SC2059
		printf "$hmp" >&3
	fi
	wait $qpid
	rc=$?
	exec 3>&-
	tr -d '\r' </tmp/serial.log
	tr -d '\r' </tmp/mon.log | grep -v '^(qemu)' | sed 's/^/HMP /'
}

# The source of a migration (NAME-src): boots until the option ROM has
# registered, then HMP "migrate" to a file and "quit" (HMP holds the
# second command until the migration completed), $pre_hmp before them.
migrate_source() {
	name=$1
	shift
	rm -f /tmp/vm.state
	echo "=== QEMU-RUN $name-src"
	monitored "${pre_hmp:-}"'migrate "exec:cat > /tmp/vm.state"\nquit\n' "$@"
	echo "vm.state: $(wc -c </tmp/vm.state 2>/dev/null || echo 0) bytes"
	echo "=== QEMU-END $name-src rc=$rc"
}

# aa_run MODE RULES: QEMU as libvirt starts pvsmm-shim.xml's, confined by
# the domain's AppArmor profile (/pvsmm/apparmor, make-aa-profile.sh) with
# RULES (a file; empty: none) as the local abstraction.  Like libvirt's
# child, the shell changes to the profile before it runs the emulator
# (aa_change_profile), and the profile runs it (ix): LD_PRELOAD is kept.
# After QEMU, the profile QEMU ran under ("AA-LABEL") and the kernel's
# AppArmor lines of the run ("AA-DMESG").
aa_run() {
	mode=$1 rules=$2
	aa=$dir/apparmor
	profile=$(cat $aa/profile)
	echo "=== QEMU-RUN $mode"
	{
		[ -d /sys/kernel/security/apparmor ] ||
			mount -t securityfs securityfs /sys/kernel/security
		echo "AA-ENABLED $(cat /sys/module/apparmor/parameters/enabled)"
		aalocal=/etc/apparmor.d/local/abstractions/libvirt-qemu
		: >$aalocal
		[ -s "$rules" ] && cat "$rules" >$aalocal
		$aa/apparmor_parser -r "/etc/apparmor.d/libvirt/$profile" 2>&1 |
			sed 's/^/AA-PARSER /'
		grep -q "^$profile (enforce)\$" /sys/kernel/security/apparmor/profiles &&
			echo "AA-LOADED $profile"
		n=$(dmesg | wc -l)
		rm -f /tmp/aa-qemu.pid /tmp/aa-label
		(
			i=0
			while [ $i -lt 300 ] && ! [ -s /tmp/aa-qemu.pid ]; do
				sleep 0.1
				i=$((i + 1))
			done
			sleep 1
			cat "/proc/$(cat /tmp/aa-qemu.pid)/attr/current" >/tmp/aa-label
		) 2>/dev/null &
		timeout 900 sh -c "echo \$\$ >/tmp/aa-qemu.pid
			export LD_PRELOAD=/usr/local/lib/pvsmm/libpvsmm-preload.so
			export PVSMM_PORTS=0x608 PVSMM_MARKER_PORT=$marker
			echo changeprofile $profile >/proc/self/attr/current || exit 126
			exec /usr/bin/qemu-system-x86_64 $base \
				-option-rom /usr/local/share/pvsmm/pvsmm.rom \
				-drive file=$dir/l2.iso,format=raw,if=virtio,readonly=on" \
			</dev/null 2>&1
		rc=$?
		wait
		echo "AA-LABEL $(cat /tmp/aa-label 2>/dev/null)"
		dmesg | tail -n +$((n + 1)) | grep 'apparmor=' | sed 's/^/AA-DMESG /'
		echo "=== QEMU-END $mode rc=$rc"
	} | tr -d '\r'
}

# The shim as seabios runs it, verbose: it says what it keeps and clears.
shim="LD_PRELOAD=$dir/libpvsmm-preload.so PVSMM_PORTS=0x608
	PVSMM_MARKER_PORT=$marker PVSMM_VERBOSE=1"

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
			qemu-system-x86_64 $base $rom ;;
	seabios-apparmor)
		aa_run $mode $dir/apparmor/rules ;;
	apparmor-denied)
		aa_run $mode "" ;;
	apparmor-noshim)
		grep -v libpvsmm-preload.so $dir/apparmor/rules >/tmp/aa-rules-noshim
		aa_run $mode /tmp/aa-rules-noshim ;;
	seabios-pc)
		# shellcheck disable=SC2086
		run $mode env LD_PRELOAD=$dir/libpvsmm-preload.so \
			PVSMM_PORTS=0x608 PVSMM_MARKER_PORT=$marker \
			qemu-system-x86_64 $(on pc) $rom ;;
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
	ovmf-rom|ovmf-pc)
		port=0x608 machine=q35
		[ "$mode" = ovmf-pc ] && port=0xb008 machine=pc
		cp $dir/OVMF_VARS.fd /tmp/OVMF_VARS.fd
		# shellcheck disable=SC2086
		run $mode env LD_PRELOAD=$dir/libpvsmm-preload.so \
			PVSMM_PORTS=$port PVSMM_MARKER_PORT=$marker \
			qemu-system-x86_64 $(on $machine) \
			-drive if=pflash,format=raw,unit=0,readonly=on,file=$dir/OVMF_CODE.fd \
			-drive if=pflash,format=raw,unit=1,file=/tmp/OVMF_VARS.fd \
			-device virtio-rng-pci,romfile=$dir/pvsmm-efi.rom \
			-kernel $dir/vmlinuz -initrd $dir/l2.cpio.gz -append "$append" ;;
	accel)
		# As libvirt runs it: its own -accel kvm, and the wrapper
		# (host/libvirt/qemu-pvsmm) adds pvsmm=on.
		# shellcheck disable=SC2086
		run accel env $counting PVSMM_QEMU=$dir/qemu-pvsmm/qemu-system-x86_64 \
			sh $dir/qemu-pvsmm/qemu-pvsmm -L /usr/share/qemu -accel kvm $common \
			-serial stdio -monitor none $linux -append "$append" ;;
	seabios-s3)
		# As accel-s3 (the pc machine, -kernel for the command line),
		# but Debian's QEMU, the shim enabling reflection.
		# shellcheck disable=SC2046,SC2086
		run $mode env $shim qemu-system-x86_64 $(on pc) $linux \
			-append "$append pmcheck_s3=2" ;;
	seabios-hotplug)
		# One vCPU more may come: the ROM registers on vCPU 0, then
		# vCPU 1 is plugged in as socket 1 (the topology is spelled
		# out: QEMU 7.2's q35 would make the second CPU a core).
		# The new vCPU waits for a SIPI that never comes: its thread
		# sleeps in KVM_RUN for good (which once hung the shim's marks).
		echo "=== QEMU-RUN $mode"
		# shellcheck disable=SC2086
		# Then KVM's binary stats as an operator reads them (HMP
		# "info stats", QMP query-stats): pvsmm's among them.
		monitored 'device_add host-x86_64-cpu,id=hotcpu,socket-id=1,core-id=0,thread-id=0\ninfo stats vcpu\ninfo stats vm\n' \
			env $shim qemu-system-x86_64 -enable-kvm $common \
			-smp 1,sockets=2,cores=1,threads=1,maxcpus=2 $rom
		echo "=== QEMU-END $mode rc=$rc" ;;
	seabios-migrate)
		# shellcheck disable=SC2086
		migrate_source $mode env $shim qemu-system-x86_64 -enable-kvm \
			$common $rom
		# shellcheck disable=SC2086
		run $mode env $shim qemu-system-x86_64 $base $rom \
			-incoming "exec:cat /tmp/vm.state" ;;
	accel-to-stock|accel-to-off)
		# A registered guest leaves for a QEMU without pvsmm: Debian's
		# (which does not know the MSR's subsection) or the patched one
		# without pvsmm=on.  Either must refuse it, not run it with its
		# reads on another clock.
		dest="qemu-system-x86_64 -enable-kvm"
		[ "$mode" = accel-to-off ] && dest="$pq -accel kvm"
		# shellcheck disable=SC2086
		migrate_source $mode $pq -accel kvm,pvsmm=on $xcommon $linux \
			-append "$append"
		# shellcheck disable=SC2086
		run $mode $dest $xcommon -serial stdio -monitor none $linux \
			-append "$append" -incoming "exec:cat /tmp/vm.state" ;;
	unregistered-to-stock|stock-to-accel)
		# No ROM, no registration: nothing of pvsmm travels, and a
		# QEMU with or without it takes the guest, migrated while
		# its Linux reads the PM timer: both QEMUs' PM timers must
		# count the same clock (QEMU_CLOCK_VIRTUAL, as nothing
		# registered), or the guest's time steps.
		src="$pq -accel kvm,pvsmm=on" dest="qemu-system-x86_64 -enable-kvm"
		if [ "$mode" = stock-to-accel ]; then
			src=$dest dest="$pq -accel kvm,pvsmm=on"
		fi
		ready=L2-MIGRATE-WINDOW
		# shellcheck disable=SC2086
		migrate_source $mode $src $xcommon \
			-kernel $dir/vmlinuz -initrd $dir/l2.cpio.gz \
			-append "$append pmcheck_migrate=$window"
		unset ready
		# shellcheck disable=SC2086
		run $mode $dest $xcommon -serial stdio \
			-monitor none -kernel $dir/vmlinuz \
			-initrd $dir/l2.cpio.gz \
			-append "$append pmcheck_migrate=$window" \
			-incoming "exec:cat /tmp/vm.state" ;;
	accel-s3)
		# Suspend to RAM right after boot, woken by the RTC: no firmware
		# runs at the resume, and the guest then reads its clock.  On
		# the pc machine: QEMU's wakeup resets q35's ICH9 PMBASE, which
		# SeaBIOS's resume does not program again (it does PIIX4's), so
		# on q35 QEMU's PM block, timer included, is gone after S3.
		# shellcheck disable=SC2086
		run accel-s3 env $counting $pq -accel kvm,pvsmm=on \
			$(echo "$common" | sed "s/-machine q35/-machine pc/") \
			-serial stdio -monitor none $linux \
			-append "$append pmcheck_s3=2" ;;
	accel-s3-migrate)
		# The source suspends L2 (its RTC alarm set far off) and is
		# migrated once suspended; the destination loads it suspended,
		# and HMP wakes it.
		pc=$(echo "$common" | sed "s/-machine q35/-machine pc/")
		ready="L2-S3 suspending" settle=10 pre_hmp='info status\n'
		# shellcheck disable=SC2086
		migrate_source $mode $pq -accel kvm,pvsmm=on $pc $linux \
			-append "$append pmcheck_s3=600"
		unset ready settle pre_hmp
		echo "=== QEMU-RUN $mode"
		nowait=1 settle=20
		# shellcheck disable=SC2086
		monitored 'info status\nsystem_wakeup\ninfo status\n' \
			env $counting $pq -accel kvm,pvsmm=on $pc $linux \
			-append "$append pmcheck_s3=600" \
			-incoming "exec:cat /tmp/vm.state"
		unset nowait settle
		echo "=== QEMU-END $mode rc=$rc" ;;
	accel-kexec)
		# shellcheck disable=SC2086
		run accel-kexec env $counting $pq -accel kvm,pvsmm=on $common \
			-serial stdio -monitor none -option-rom $dir/pvsmm.rom \
			-kernel $dir/vmlinuz -initrd $dir/l2-kexec.cpio.gz \
			-append "$append pmcheck_kexec=1" ;;
	accel-migrate)
		# shellcheck disable=SC2086
		migrate_source $mode $pq -accel kvm,pvsmm=on $common $linux \
			-append "$append"
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
