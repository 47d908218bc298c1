#!/bin/sh
# Runs inside L1 (busybox sh): boots an L2 Linux guest once per argument,
# under stock QEMU or under pvsmm-vmm, and takes KVM's exit counters from
# debugfs while the guest runs.  Each argument is one word list:
#   "ID KIND GUEST VCPUS CALLS MONO NPT"
#   KIND   qemu (stock), qemu-rom (stock QEMU with SeaBIOS + pvsmm.rom and
#          the shim: reflection as a KVM user gets it), or a pvsmm-vmm
#          --pmtimer mode (user, reflect-user, kernel-emu, reflect), or
#          window (--pmtimer=reflect --window)
#   GUEST  amd64, i386 (686-pae) or i686 (686, no PAE): the kernel and
#          initrd under /guest/GUEST/
#   CALLS  gettimeofday() calls timed by gtod-bench; MONO: clock reads per
#          CPU in its cross-vCPU monotonicity test
#   NPT    1 or 0: kvm_amd's nested paging for this run (kvm_amd is
#          reloaded when it changes; the PAE guest needs 0 under
#          Debian's QEMU as L0, tests/guest/README.md)
# Output per run, framed for pylib/pvsmmlab/guestlab.py:
#   === RUN ID
#   ...the guest's console and the VMM's output...
#   L1-KVM TAG name=value ...     KVM's VM-wide counters (below)
#   === END ID rc=N
#
# The counters: debugfs's top-level files under /sys/kernel/debug/kvm sum
# each statistic over every VM alive, and only the one L2 VM is alive, so
# they are that VM's counts since it was created.  They are read when the
# guest's console shows GUEST-MARK idle / begin / end (the guest sleeps
# after each line so that this happens before it goes on) and
# GUEST-RESULT (the whole run, boot included, up to the result).
# Environment: GUEST_SETTLE_MS (500), GUEST_TIMEOUT (s per run, 600),
# GUEST_APPEND (more kernel command line, default "quiet"),
# PVSMM_MARKER_PORT (0xef8: the bench marker of pvsmm-vmm runs),
# PVSMM_VMM_ARGS (more pvsmm-vmm options, e.g. --window).
settle=${GUEST_SETTLE_MS:-500}
run_timeout=${GUEST_TIMEOUT:-600}
extra_append=${GUEST_APPEND-quiet}
marker=${PVSMM_MARKER_PORT:-0xef8}
kvm=/sys/kernel/debug/kvm

grep -q " /sys/kernel/debug " /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug

# One line with the counters that matter here; builtin `read` only, so
# taking a snapshot forks nothing.
snap() {
	out="L1-KVM $1"
	for f in "$kvm"/exits "$kvm"/io_exits "$kvm"/mmio_exits \
		"$kvm"/halt_exits "$kvm"/irq_exits "$kvm"/signal_exits \
		"$kvm"/insn_emulation "$kvm"/request_irq_exits "$kvm"/pvsmm_*; do
		[ -f "$f" ] || continue
		read -r v <"$f" && out="$out ${f##*/}=$v"
	done
	echo "$out"
}

# Copies the run's output, snapshotting at the guest's marks.
follow() {
	while IFS= read -r line; do
		case $line in
		*"GUEST-MARK idle"*) snap idle; echo "$line" ;;
		*"GUEST-MARK begin"*) snap begin; echo "$line" ;;
		*"GUEST-MARK end"*) snap end; echo "$line" ;;
		*"GUEST-RESULT "*) snap result; echo "$line" ;;
		"=== RC "*) echo "=== END $id rc=${line#=== RC }" ;;
		*) echo "$line" ;;
		esac
	done
}

# kvm_amd with nested paging on (Y) or off (N); no VM may be alive.
set_npt() {
	want=N
	[ "$1" = 1 ] && want=Y
	[ "$(cat /sys/module/kvm_amd/parameters/npt)" = $want ] && return 0
	rmmod kvm_amd && insmod /modules/kvm-amd.ko npt="$1"
	echo "L1-KVM-AMD npt=$(cat /sys/module/kvm_amd/parameters/npt)"
}

for spec in "$@"; do
	# shellcheck disable=SC2086
	set -- $spec
	id=$1 kind=$2 guest=$3 vcpus=$4 calls=$5 mono=$6 npt=${7:-1}
	kernel=/guest/$guest/vmlinuz initrd=/guest/$guest/initrd.gz
	append="console=ttyS0 clocksource=acpi_pm panic=-1 $extra_append"
	append="$append gtod_calls=$calls gtod_mono=$mono gtod_settle=$settle"
	echo "=== RUN $id"
	set_npt "$npt" || echo "L1-KVM-AMD reload failed"
	# In every frame, so that a run rebuilt from the log knows it.
	echo "L1-NPT $(cat /sys/module/kvm_amd/parameters/npt)"
	start=$(date +%s)
	{
		qemu="qemu-system-x86_64 -enable-kvm -cpu host -machine q35
			-m 256 -smp $vcpus -nodefaults -no-reboot -serial stdio
			-display none"
		if [ "$kind" = qemu ]; then
			# shellcheck disable=SC2086
			timeout "$run_timeout" $qemu \
				-kernel "$kernel" -initrd "$initrd" -append "$append"
		elif [ "$kind" = qemu-rom ]; then
			# shellcheck disable=SC2086
			timeout "$run_timeout" env \
				LD_PRELOAD=/pvsmm/libpvsmm-preload.so \
				PVSMM_PORTS=0x608 $qemu \
				-option-rom /pvsmm/pvsmm.rom \
				-kernel "$kernel" -initrd "$initrd" -append "$append"
		else
			# "window": reflection through the opt-in window path.
			pmtimer=$kind window=
			[ "$kind" = window ] && pmtimer=reflect window=--window
			# shellcheck disable=SC2086
			timeout "$run_timeout" pvsmm-vmm \
				--firmware /pvsmm/pvsmm-fw.bin --kernel "$kernel" \
				--initrd "$initrd" \
				--append "$append gtod_marker=$marker" \
				--vcpus "$vcpus" --mem 256 --pmtimer="$pmtimer" \
				$window ${PVSMM_VMM_ARGS:-}
		fi
		rc=$?
		# QEMU ends with status 0 on timeout's SIGTERM: say so.
		[ $(($(date +%s) - start)) -ge "$run_timeout" ] &&
			echo "L1-RUN timed out after ${run_timeout}s" && rc=124
		echo "L1-RUN seconds=$(($(date +%s) - start))"
		echo "=== RC $rc"
	} </dev/null 2>&1 | follow
done
