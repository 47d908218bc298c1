#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One lab boot with the patched KVM modules: pvsmm-vmm in the modes that
# use the patched KVM.  (The KVM API itself is tested by the series' KVM
# selftests: host/kvm/tests/selftests-check.sh.)
#
#   host/kvm/tests/lab-check.sh [--icount] [--reads N] [--vcpus N]
#
# With --icount the per-read figures are L1 instructions (deterministic).
# Exit status: 0 when everything passed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
icount=() reads=20000 vcpus=1
while [ $# -gt 0 ]; do
	case $1 in
	--icount) icount=(--icount --smp 1) ;;
	--reads) reads=$2; shift ;;
	--vcpus) vcpus=$2; shift ;;
	*) echo "usage: $0 [--icount] [--reads N] [--vcpus N]" >&2; exit 2 ;;
	esac
	shift
done

[ -r "$root/build/kvm/patched/kvm.ko" ] ||
	{ echo "lab-check: run host/kvm/build.sh first" >&2; exit 2; }
[ -x "$root/build/host/pvsmm-vmm" ] && [ -r "$root/build/firmware/pvsmm-fw.bin" ] ||
	{ echo "lab-check: build the VMM and the firmware first (make)" >&2; exit 2; }

cmd='rc=0
if [ -x pvsmm-vmm ] && [ -r pvsmm-fw.bin ]; then
	for m in user kernel-emu reflect reflect:exit; do
		ret=auto; [ "$m" = reflect:exit ] && ret=exit
		echo "== pvsmm-vmm --pmtimer=${m%%:*} --return $ret"
		pvsmm-vmm --firmware pvsmm-fw.bin --pmtimer=${m%%:*} --return $ret \
			--reads '$reads' --check-reads 200 --vcpus '$vcpus' >/tmp/out || rc=1
		grep -E "SELFTEST|bench:|exits [0-9]+ \(|kvm pvsmm_[a-z_]+ [1-9]" /tmp/out
	done
fi
exit $rc'
exec "$root/tests/lab/run-in-lab.sh" --modules patched "${icount[@]}" -- "$cmd"
