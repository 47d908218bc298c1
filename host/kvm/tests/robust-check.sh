#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One lab boot with the patched KVM modules running kvm-robust-test: hostile
# descriptors from the guest, failing handlers, events during a handler,
# save/restore, 4 vCPUs switching modes.  The lab fails the run on any
# oops, WARN or BUG in L1's log (tests/lab/run-in-lab.sh).
#
#   host/kvm/tests/robust-check.sh [--long] [--smp N]
#
# The default takes about a minute; --long (make stress) runs 100,000
# descriptors, 100,000 reads under signals and 4 vCPUs x 1,000,000 reads
# on the IRETQ path (x 250,000 on the generic path).  L1 has one CPU unless
# --smp says otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
long=0 smp=1
while [ $# -gt 0 ]; do
	case $1 in
	--long) long=1 ;;
	--smp) smp=$2; shift ;;
	*) echo "usage: $0 [--long] [--smp N]" >&2; exit 2 ;;
	esac
	shift
done

[ -x "$root/build/kvm/kvm-robust-test" ] && [ -r "$root/build/kvm/patched/kvm.ko" ] ||
	{ echo "robust-check: run host/kvm/build.sh first" >&2; exit 2; }

if [ $long = 1 ]; then
	run='t fuzz 100000; t faults; t events 100000; t migrate; t smp 1000000'
	timeout=3600
else
	run='t fuzz 10240; t faults; t events 3000; t migrate; t smp 20000'
	timeout=900
fi
cmd='rc=0
t() { s=$(cut -d" " -f1 /proc/uptime); kvm-robust-test "$@" || rc=1
      awk -v s="$s" -v t="$1" '"'"'{ printf "     (%s: %.1f s in L1)\n", t, $1 - s }'"'"' /proc/uptime; }
'"$run"'
echo "kernel log: $(dmesg | grep -c "pvsmm: .*reflection disabled") pvsmm handler failure line(s) (rate limited)"
exit $rc'
exec "$root/tests/lab/run-in-lab.sh" --modules patched --smp "$smp" \
	--timeout "$timeout" --log "$root/build/lab/robust-console.log" \
	--add "$root/build/kvm/kvm-robust-test:/pvsmm/kvm-robust-test" -- "$cmd"
