#!/bin/bash
# SPDX-License-Identifier: MIT
#
# One short run on a real Intel KVM host where `pvsmm-vmm --kernel` hangs
# in the guest kernel's decompressor (README.md beside this file).  Needs
# only /dev/kvm and this folder (`make intel-probe` fills
# build/intel-probe/: static binaries, firmware, the guest's kernel and
# initrd, this script).  No root needed beyond access to /dev/kvm; reading
# the kernel log and KVM's module parameters is best effort.
#
#   ./probe.sh [SECONDS]      (per Linux boot, default 40; about 2 minutes)
#
# Prints, each part under its own "### " heading:
#  1. the host: kernel, CPU flags that matter (ss = self-snoop, which 6.x
#     KVM needs before it can honor guest PAT), kvm/kvm_intel parameters,
#     split-lock and KVM lines of the kernel log;
#  2. memtype-probe: a bare 64-bit guest's compute and memory speed with
#     write-back, UC- (PCD) and all-UC (PAT = 0) mappings, and with the
#     CPUID pvsmm-vmm hands out: tells "this host runs guests uncached or
#     starved" apart from "our VMM's guest does something slow";
#  3. pvsmm-vmm --kernel, 1 vCPU, user mode, with earlyprintk=serial so that
#     the decompressor reports each stage, every line stamped with the
#     seconds since start; stopped after SECONDS with SIGTERM, which makes
#     the VMM dump the vCPU's registers;
#  4. the same boot with "nopat noxsave" on the kernel's command line: if
#     the first boot got past the decompressor, tells a PAT or XSAVE path
#     in the kernel proper from the rest.
# Send the whole output back.
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-40}
t0=$(date +%s.%N)
stamp() {
	while IFS= read -r line; do
		printf '[%s] %s\n' "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%7.2f", a - b }')" "$line"
	done
}

echo "### 1. host"
uname -a
grep -m1 'model name' /proc/cpuinfo
flags=$(grep -m1 '^flags' /proc/cpuinfo)
for f in ss hypervisor vmx ept pat avx512f amx_tile la57 split_lock_detect constant_tsc; do
	case " $flags " in *" $f "*) printf '%s=yes ' "$f" ;; *) printf '%s=no ' "$f" ;; esac
done
echo
grep -m1 '^vmx flags' /proc/cpuinfo
for d in /sys/module/kvm_intel/parameters /sys/module/kvm/parameters; do
	echo "$d:"
	for p in "$d"/*; do printf ' %s=%s' "${p##*/}" "$(cat "$p" 2>/dev/null)"; done
	echo
done
sed 's/^/split_lock_mitigate=/' /proc/sys/kernel/split_lock_mitigate 2>/dev/null
dmesg 2>/dev/null | grep -i -E 'split.lock|bus.lock|kvm|x86/pat|mtrr' | tail -n 20

echo "### 2. memtype-probe"
timeout 60 "$here/memtype-probe"
echo "(memtype-probe rc=$?)"

boot() {
	local what=$1 append=$2
	echo "### $what"
	t0=$(date +%s.%N)
	timeout -s TERM "$secs" "$here/pvsmm-vmm" --firmware "$here/pvsmm-fw.bin" \
		--kernel "$here/vmlinuz" --initrd "$here/initrd.gz" --mem 256 \
		--vcpus 1 --pmtimer user \
		--append "console=ttyS0 earlyprintk=serial,ttyS0,115200 $append" 2>&1 |
		stamp | grep -v -E '^\[.*\] *$' | head -n 200
	echo "(pvsmm-vmm rc=${PIPESTATUS[0]})"
}
boot "3. pvsmm-vmm --kernel, earlyprintk" "debug clocksource=acpi_pm panic=-1 gtod_calls=200 gtod_mono=20"
boot "4. the same with nopat noxsave" "debug nopat noxsave clocksource=acpi_pm panic=-1 gtod_calls=200 gtod_mono=20"
echo "### done"
