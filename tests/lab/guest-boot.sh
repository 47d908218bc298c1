#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Boots Debian's amd64 kernel (build/guest/amd64, tests/guest/build-guests.sh)
# as L2 through `pvsmm-vmm --kernel` in one lab boot, once per PM timer
# mode, and checks that each run got to the guest's userspace (its init
# prints GUEST-BOOTED) and powered off.  The guest keeps its default
# clocksource (kvm-clock): on acpi_pm every clock read of the boot is an
# exit, which under Bochs makes an L2 boot take ~15 minutes.  --acpi-pm
# boots it on acpi_pm and also requires the guest's gettimeofday check
# (gtod-bench, 200 calls) to pass, as tests/guest/ does.  The guest's command line has earlyprintk=serial, so the
# decompressor's own lines ("Decompressing Linux... Parsing ELF...") show
# how far a boot that hangs got.
#
#   tests/lab/guest-boot.sh [--cpu amd|intel] [--kvm-param P=V]...
#	[--modes "user reflect"] [--vcpus N] [--modules stock|patched]
#	[--timeout S] [--l1-timeout S] [--retries N] [--acpi-pm] [--log FILE]
#
# Each run's output is streamed to L1's console as it comes (so a lab that
# times out still shows how far the guest got); --l1-timeout stops a run
# with SIGTERM, which makes pvsmm-vmm dump the vCPUs' registers.  Its
# default is 300 seconds of L1 time, 16 under Bochs (--cpu intel), whose
# L1 second takes 20-30 s of ours: a run there takes 2.4 to 6.4 s of L1
# time (pvsmm-vmm times its VM at 2.35 s; in some runs 1.6 to 4 s more
# go by in L1 before or after it), and a hung one must end well within
# the lab's own timeout.
#
# --retries N (default 1): a run stopped by --l1-timeout is run again, up
# to N runs in all; any other failure fails at once.  Each stalled run is
# printed, with its registers.  The Intel lab needed it until
# tests/lab/bochs/0003-* fixed its Bochs: about one boot in three stalled
# there, L2 taking its UART interrupt with interrupts off and spinning on
# the port lock it had interrupted (the README's Intel lab section).  The
# lab's targets run with the default, so a stall fails them.
# --timeout (the whole lab boot, wall clock) defaults to 1800 s, or under
# Bochs to what every allowed run of every mode may take, if more.
# Exit status: 0 when every run passed, 1 when one failed, 125 when the
# lab itself failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
modes="user" vcpus=1 modules=stock timeout="" l1_timeout="" retries=1 lab=()
clock="" want="GUEST-BOOTED"
log=$root/build/lab/guest-boot-console.log
usage() {
	echo "usage: $0 [--cpu amd|intel] [--kvm-param P=V]... [--modes LIST] [--vcpus N] [--modules stock|patched] [--timeout S] [--l1-timeout S] [--retries N] [--log FILE]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--cpu|--kvm-param) [ $# -ge 2 ] || usage; lab+=("$1" "$2"); shift ;;
	--modes) modes=${2:?}; shift ;;
	--vcpus) vcpus=${2:?}; shift ;;
	--modules) modules=${2:?}; shift ;;
	--timeout) timeout=${2:?}; shift ;;
	--l1-timeout) l1_timeout=${2:?}; shift ;;
	--retries) retries=${2:?}; shift ;;
	--acpi-pm) clock="clocksource=acpi_pm" want="GUEST-DONE rc=0" ;;
	--log) log=${2:?}; shift ;;
	*) usage ;;
	esac
	shift
done
bochs=0
[[ " ${lab[*]} " == *" --cpu intel "* ]] && bochs=1
if [ -z "$l1_timeout" ]; then
	l1_timeout=300
	[ $bochs = 1 ] && l1_timeout=16
fi
[[ $vcpus =~ ^[1-9][0-9]*$ && $l1_timeout =~ ^[1-9][0-9]*$ && $retries =~ ^[1-9]$ && $modes =~ ^[a-z\ -]+$ ]] || usage
# The lab's own limit (default): room for every run a mode may take (its
# --l1-timeout and 8 s of L1 time around it), at 30 s of ours per L1
# second under Bochs, after 10 minutes to boot L1.
if [ -z "$timeout" ]; then
	timeout=1800
	runs=$(( $(echo $modes | wc -w) * retries ))
	if [ $bochs = 1 ] && [ $((600 + runs * (l1_timeout + 8) * 30)) -gt $timeout ]; then
		timeout=$((600 + runs * (l1_timeout + 8) * 30))
	fi
fi
g=$root/build/guest/amd64
for f in vmlinuz initrd.gz; do
	[ -r "$g/$f" ] || { echo "guest-boot: $g/$f missing: run 'make guest-images'" >&2; exit 2; }
done

# In L1: each run framed; the guest's console and the VMM's summary lines.
# shellcheck disable=SC2016 # expanded in L1, not here
cmd='rc=0
for m in '"$modes"'; do
    a=1
    while :; do
	echo "== pvsmm-vmm --kernel --pmtimer $m --vcpus '"$vcpus"' (run $a)"
	s=$(cut -d" " -f1 /proc/uptime)
	{ timeout -s TERM '"$l1_timeout"' pvsmm-vmm --firmware pvsmm-fw.bin \
		--kernel /guest/vmlinuz --initrd /guest/initrd.gz --mem 256 \
		--vcpus '"$vcpus"' --pmtimer $m \
		--append "console=ttyS0 earlyprintk=serial,ttyS0,115200 loglevel=4 '"$clock"' panic=-1 gtod_calls=200 gtod_mono=20 gtod_settle=100" \
		2>&1; echo "pvsmm-vmm rc=$?"; } | tee /tmp/out | grep -v "^PVSMM-STATS"
	r=$(sed -n "s/^pvsmm-vmm rc=//p" /tmp/out)
	echo "   ($m: $(awk -v s="$s" "{ printf \"%.1f\", \$1 - s }" /proc/uptime) s in L1, rc=$r)"
	grep -q "'"$want"'" /tmp/out && [ "$r" = 0 ] && break
	if grep -q "Terminated: stopping the VM" /tmp/out && [ $a -lt '"$retries"' ]; then
		echo "   ($m: run $a stalled, stopped after '"$l1_timeout"' s: again)"
		a=$((a + 1))
		continue
	fi
	echo "FAIL $m: pvsmm-vmm rc=$r"; rc=1
	break
    done
done
exit $rc'
exec "$root/tests/lab/run-in-lab.sh" --modules "$modules" "${lab[@]}" \
	--timeout "$timeout" --log "$log" \
	--add "$g/vmlinuz:/guest/vmlinuz" --add "$g/initrd.gz:/guest/initrd.gz" -- "$cmd"
