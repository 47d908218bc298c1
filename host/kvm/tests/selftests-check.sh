#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The series' KVM selftests (tools/testing/selftests/kvm/x86_64/pvsmm_*,
# built by host/kvm/build.sh into build/kvm/selftests) in the lab, with
# the patched modules, in three boots:
#
#   1. one L1 CPU: every test but the time test with kvm_amd npt=1 (nested
#      paging, the window path), then the tests that run guests in every
#      paging mode again with npt=0 (KVM's shadow MMU).  The PAE cases need
#      that: the lab's QEMU sets the (reserved) accessed bit of PAE PDPTEs
#      when it walks a nested guest's tables, after which KVM cannot load
#      them (the tests detect it and skip under npt=1);
#   2. one L1 CPU with LA57 (PVSMM_LAB_CPU=EPYC,+svm,+npt,+la57; L1 then
#      runs with 5-level paging): the tests with 5-level cases again;
#   3. two L1 CPUs: the SMP time test, whose vCPU threads must run in
#      parallel.  QEMU's TCG with two CPUs has been seen to hang L1 (a
#      CPU stuck in the int3 handler of a kernel text patch); a boot that
#      gives no result is tried once more.
#
#   host/kvm/tests/selftests-check.sh [--long|--small] [--only NAME...]
#	[--cpu amd|intel] [--kvm-param P=V]... [--kernel-series 6.1|6.12]
#
# --cpu intel runs them on kvm-intel under Bochs (tests/lab/run-in-lab.sh):
# the shadow-MMU pass then uses ept=0, and there is no LA57 boot (the
# lab's Skylake-X has no 5-level paging).  --kvm-param passes parameters
# to the vendor module for every boot.  --kernel-series 6.12 boots
# Debian's 6.12 kernel with the 6.12 series' modules and selftests
# (build/kvm/6.12, host/kvm/build.sh --kernel-series 6.12); the default is
# 6.1 (or $PVSMM_KSERIES).
#
# Default (make check): 100,000 reflections per paging mode for the
# page-table check, 10,000 time reads per vCPU, 10,000 fuzzed descriptors.
# --long (make stress): 1,000,000, 200,000 and 200,000.  --small (the
# Intel lab in make check, Bochs being slower): 10,000, 2,000 and 2,000.  The lab fails the
# run on any oops, WARN or BUG in L1's log (tests/lab/run-in-lab.sh).
# Exit status: 0 when every test passed (skips are reported, not failures).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
long=0 small=0 only=() vendor=amd lab_args=() kseries=${PVSMM_KSERIES:-6.1}
usage() {
	echo "usage: $0 [--long|--small] [--only NAME...] [--cpu amd|intel] [--kvm-param P=V]... [--kernel-series 6.1|6.12]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--long) long=1 ;;
	--small) small=1 ;;
	--only) [ $# -ge 2 ] || usage; only+=("$2"); shift ;;
	--cpu) [ $# -ge 2 ] || usage; vendor=$2; shift
		[[ $vendor = amd || $vendor = intel ]] || usage ;;
	--kvm-param) [ $# -ge 2 ] || usage; lab_args+=(--kvm-param "$2"); shift ;;
	--kernel-series) [ $# -ge 2 ] || usage; kseries=$2; shift ;;
	*) usage ;;
	esac
	shift
done
# The vendor module, and its parameter that turns two-dimensional paging off.
mod=kvm_$vendor tdp=npt
[ $vendor = intel ] && tdp=ept

case $kseries in
6.1) kvm=$root/build/kvm ;;
6.12) kvm=$root/build/kvm/6.12 ;;
*) usage ;;
esac
lab_args+=(--kernel-series "$kseries")
st=$kvm/selftests/x86_64
[ -r "$kvm/patched/kvm.ko" ] && ls "$st"/pvsmm_*_test >/dev/null 2>&1 ||
	{ echo "selftests-check: run host/kvm/build.sh --kernel-series $kseries first" >&2; exit 2; }

if [ $long = 1 ]; then
	env='PVSMM_TEST_REFLECTIONS=1000000 PVSMM_TEST_TIME_READS=200000 PVSMM_TEST_FUZZ_CASES=200000'
	timeout=5400
elif [ $small = 1 ]; then
	env='PVSMM_TEST_REFLECTIONS=10000 PVSMM_TEST_TIME_READS=2000 PVSMM_TEST_FUZZ_CASES=2000'
	timeout=1500
else
	env='PVSMM_TEST_REFLECTIONS=100000 PVSMM_TEST_TIME_READS=10000 PVSMM_TEST_FUZZ_CASES=10000'
	timeout=1500
fi
tests=$(cd "$st" && ls pvsmm_*_test)
if [ ${#only[@]} -gt 0 ]; then
	tests=$(printf '%s\n' "${only[@]}" | sed 's/^\(pvsmm_\)\{0,1\}/pvsmm_/; s/\(_test\)\{0,1\}$/_test/')
fi
smp=$(printf '%s\n' $tests | grep -x pvsmm_time_test || true)
tests=$(printf '%s\n' $tests | grep -vx pvsmm_time_test || true)
# Run again on the shadow MMU: the tests with guests in every paging mode.
shadow=$(printf '%s\n' $tests | grep -E 'pvsmm_(private|fallback|fault|lifecycle|window)_test' || true)
# And with LA57: the tests with 5-level cases.
la57=$(printf '%s\n' $tests | grep -E 'pvsmm_(private|fallback|window)_test' || true)
[ $vendor = intel ] && la57=

# The lab command: the tests named, then (if any) those for npt=0.
lab_cmd() {
	cat <<EOT
rc=0; export $env
t() { s=\$(cut -d" " -f1 /proc/uptime)
      ./selftests/\$1 >/tmp/out 2>&1; r=\$?; cat /tmp/out
      [ \$r = 0 ] || rc=1
      awk -v s="\$s" -v t="\$1" -v r="\$r" '{ printf "== %s: exit %s, %.1f s in L1\\n", t, r, \$1 - s }' /proc/uptime
      grep "^# Totals" /tmp/out | sed "s/^#/== \$1/"; }
echo "== $mod $tdp=\$(cat /sys/module/$mod/parameters/$tdp), \$(nproc) CPU(s)\$(grep -qw la57 /proc/cpuinfo && echo ", la57")"
for x in $(echo $1); do t \$x; done
if [ -n "$(echo $2)" ]; then
	rmmod $mod && insmod /modules/${mod/_/-}.ko $tdp=0 || rc=1
	echo "== $mod $tdp=\$(cat /sys/module/$mod/parameters/$tdp)"
	for x in $(echo $2); do t \$x; done
fi
exit \$rc
EOT
}

lab() {
	local smp=$1 log=$2 cmd=$3
	PVSMM_LAB_CPU=${cpu:-} "$root/tests/lab/run-in-lab.sh" --modules patched --smp "$smp" \
		--cpu $vendor "${lab_args[@]}" \
		--timeout "$timeout" --log "$root/build/lab/$log" \
		--add "$st:/pvsmm/selftests" -- "$cmd"
}

rc=0
if [ -n "$tests" ]; then
	lab 1 selftests-${vendor}-console.log "$(lab_cmd "$tests" "$shadow")" || rc=1
fi
if [ -n "$la57" ]; then
	cpu=EPYC,+svm,+npt,+la57 lab 1 selftests-la57-console.log \
		"$(lab_cmd "$la57" "")" || rc=1
fi
# The lab's Bochs has one CPU: there the time test runs its vCPU threads
# on it, interleaved.
ncpu=2
[ $vendor = intel ] && ncpu=1
# That boot takes about a minute (one test); a hung L1 is given five
# before its one retry, not the whole run's limit (--long: its own).
[ $long = 1 ] || timeout=300
if [ -n "$smp" ]; then
	r=0
	lab $ncpu selftests-${vendor}-smp-console.log "$(lab_cmd "$smp" "")" || r=$?
	if [ $r = 125 ]; then
		echo "selftests-check: the two-CPU lab gave no result; once more" >&2
		r=0
		lab $ncpu selftests-${vendor}-smp-console.log "$(lab_cmd "$smp" "")" || r=$?
	fi
	[ $r = 0 ] || rc=1
fi
exit $rc
