#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One lab boot with the patched KVM modules running kvm-robust-test: hostile
# descriptors from the guest, failing handlers, events during a handler,
# save/restore, 4 vCPUs switching modes.  The lab fails the run on any
# oops, WARN or BUG in L1's log (tests/lab/run-in-lab.sh).
#
#   host/kvm/tests/robust-check.sh [--long] [--smp N] [--cpu amd|intel]
#	[--kvm-param P=V]... [--groups "fuzz 1000; faults; ..."] [--log FILE]
#
# The default takes about a minute; --long (make stress) runs 100,000
# descriptors, 100,000 reads under signals and 4 vCPUs x 1,000,000 reads
# on the IRETQ path (x 250,000 on the generic path).  L1 has one CPU unless
# --smp says otherwise.  --cpu intel runs it on kvm-intel under Bochs;
# --groups replaces the list of kvm-robust-test runs (each "GROUP [ARG]",
# separated by ";").
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
long=0 smp=1 lab=() groups='' log=$root/build/lab/robust-console.log timeout=''
usage() {
	echo "usage: $0 [--long] [--smp N] [--cpu amd|intel] [--kvm-param P=V]... [--groups LIST] [--log FILE] [--timeout S]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--long) long=1 ;;
	--smp) smp=${2:?}; shift ;;
	--cpu|--kvm-param) [ $# -ge 2 ] || usage; lab+=("$1" "$2"); shift ;;
	--groups) groups=${2:?}; shift ;;
	--log) log=${2:?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done

[ -x "$root/build/kvm/kvm-robust-test" ] && [ -r "$root/build/kvm/patched/kvm.ko" ] ||
	{ echo "robust-check: run host/kvm/build.sh first" >&2; exit 2; }

if [ $long = 1 ]; then
	run='t fuzz 100000; t faults; t events 100000; t migrate; t smp 1000000'
	: "${timeout:=3600}"
else
	run='t fuzz 10240; t faults; t events 3000; t migrate; t smp 20000'
	: "${timeout:=900}"
fi
if [ -n "$groups" ]; then
	# "fuzz 1000; faults" -> "t fuzz 1000; t faults"; words only
	[[ $groups =~ ^[a-z0-9\ \;]+$ ]] || usage
	run=$(sed -E 's/(^|;) */\1 t /g' <<<"$groups")
fi
cmd='rc=0
t() { s=$(cut -d" " -f1 /proc/uptime); kvm-robust-test "$@" || rc=1
      awk -v s="$s" -v t="$1" '"'"'{ printf "     (%s: %.1f s in L1)\n", t, $1 - s }'"'"' /proc/uptime; }
'"$run"'
echo "kernel log: $(dmesg | grep -c "pvsmm: .*reflection disabled") pvsmm handler failure line(s) (rate limited)"
exit $rc'
exec "$root/tests/lab/run-in-lab.sh" --modules patched --smp "$smp" "${lab[@]}" \
	--timeout "$timeout" --log "$log" \
	--add "$root/build/kvm/kvm-robust-test:/pvsmm/kvm-robust-test" -- "$cmd"
