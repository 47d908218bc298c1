#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One lab boot with the patched KVM modules: the API test, then pvsmm-vmm
# in the modes that use the patched KVM (if the VMM and firmware are built).
#
#   host/kvm/tests/lab-check.sh [--icount] [--reads N] [--vcpus N]
#	[--cpu amd|intel] [--kvm-param P=V]... [--log FILE]
#
# With --icount the per-read figures are L1 instructions (deterministic).
# --cpu intel runs it on kvm-intel under Bochs (tests/lab/run-in-lab.sh),
# --kvm-param passes kvm-amd / kvm-intel parameters (e.g. ept=0).
# Exit status: 0 when everything passed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
icount=() reads=20000 vcpus=1 lab=()
usage() {
	echo "usage: $0 [--icount] [--reads N] [--vcpus N] [--cpu amd|intel] [--kvm-param P=V]... [--log FILE]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--icount) icount=(--icount --smp 1) ;;
	--reads) reads=${2:?}; shift ;;
	--vcpus) vcpus=${2:?}; shift ;;
	--cpu|--kvm-param|--log) [ $# -ge 2 ] || usage; lab+=("$1" "$2"); shift ;;
	*) usage ;;
	esac
	shift
done
[[ $reads =~ ^[1-9][0-9]*$ && $vcpus =~ ^[1-9][0-9]*$ ]] || usage

[ -x "$root/build/kvm/kvm-api-test" ] && [ -r "$root/build/kvm/patched/kvm.ko" ] ||
	{ echo "lab-check: run host/kvm/build.sh first" >&2; exit 2; }

cmd='rc=0; kvm-api-test || rc=1
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
exec "$root/tests/lab/run-in-lab.sh" --modules patched "${icount[@]}" "${lab[@]}" \
	--add "$root/build/kvm/kvm-api-test:/pvsmm/kvm-api-test" -- "$cmd"
