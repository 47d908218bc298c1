#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One lab boot with the patched KVM modules: pvsmm-vmm in the modes that
# use the patched KVM, in each guest paging mode, and the window path.  (The KVM API itself is tested by the series' KVM
# selftests: host/kvm/tests/selftests-check.sh.)
#
#   host/kvm/tests/lab-check.sh [--icount] [--reads N] [--vcpus N]
#	[--cpu amd|intel] [--kvm-param P=V]... [--log FILE]
#	[--kernel-series 6.1|6.12]
#
# With --icount the per-read figures are L1 instructions (deterministic).
# --cpu intel runs it on kvm-intel under Bochs (tests/lab/run-in-lab.sh),
# --kvm-param passes kvm-amd / kvm-intel parameters (e.g. ept=0).
# --kernel-series 6.12 boots Debian's 6.12 kernel with the 6.12 series'
# modules (build/kvm/6.12/patched, host/kvm/build.sh --kernel-series 6.12);
# the default is 6.1 (or $PVSMM_KSERIES).
# Exit status: 0 when everything passed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
icount=() reads=20000 vcpus=1 lab=() kseries=${PVSMM_KSERIES:-6.1}
usage() {
	echo "usage: $0 [--icount] [--reads N] [--vcpus N] [--cpu amd|intel] [--kvm-param P=V]... [--log FILE] [--kernel-series 6.1|6.12]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--icount) icount=(--icount --smp 1) ;;
	--reads) reads=${2:?}; shift ;;
	--vcpus) vcpus=${2:?}; shift ;;
	--cpu|--kvm-param|--log) [ $# -ge 2 ] || usage; lab+=("$1" "$2"); shift ;;
	--kernel-series) [ $# -ge 2 ] || usage; kseries=$2; shift ;;
	*) usage ;;
	esac
	shift
done
[[ $reads =~ ^[1-9][0-9]*$ && $vcpus =~ ^[1-9][0-9]*$ ]] || usage

case $kseries in
6.1) kvm=$root/build/kvm ;;
6.12) kvm=$root/build/kvm/6.12 ;;
*) usage ;;
esac
[ -r "$kvm/patched/kvm.ko" ] ||
	{ echo "lab-check: run host/kvm/build.sh --kernel-series $kseries first" >&2; exit 2; }
[ -x "$root/build/host/pvsmm-vmm" ] && [ -r "$root/build/firmware/pvsmm-fw.bin" ] ||
	{ echo "lab-check: build the VMM and the firmware first (make)" >&2; exit 2; }

cmd='rc=0
run() {
	echo "== pvsmm-vmm $*"
	pvsmm-vmm --firmware pvsmm-fw.bin --reads '$reads' --check-reads 200 \
		--vcpus '$vcpus' "$@" >/tmp/out || rc=1
	grep -E "SELFTEST|bench:|exits [0-9]+ \(|kvm pvsmm_[a-z_]+ [1-9]" /tmp/out
}
for m in user kernel-emu reflect; do
	for g in long pae 32; do run --pmtimer=$m --guest-mode=$g; done
done
run --pmtimer=reflect --window
exit $rc'
exec "$root/tests/lab/run-in-lab.sh" --modules patched --kernel-series "$kseries" \
	"${icount[@]}" "${lab[@]}" -- "$cmd"
