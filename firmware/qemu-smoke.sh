#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Smoke-test the firmware under plain QEMU (TCG, no KVM): no kvmclock and no
# pvsmm host there, so this covers boot, long mode, the local handler check
# (handler entry/return contract, both return paths, time math known
# answers), the bench loop and the summary -- not the reflection itself.
#
#   1. the real image, 1 vCPU, no bootinfo (defaults)
#   2. the test image (qemu.asm) on q35 with a bootinfo passed through QEMU's
#      generic loader: 4 vCPUs started by SIPI, the PM timer enabled, once
#      per guest mode of the self-test (long, PAE, 2-level: the bench loop
#      then runs in 32-bit protected mode on the firmware's own tables)
#
# Usage: firmware/qemu-smoke.sh   (from the repository root)
set -eu

OUT=build/firmware
QEMU=${QEMU:-qemu-system-x86_64}
make -s -C firmware all qemu-image

fail=0
run() {
	name=$1; shift
	log=$OUT/smoke-$name.log
	set +e
	timeout 300 "$QEMU" -nographic -no-reboot -m 256 \
		-device isa-debug-exit,iobase=0xf4,iosize=4 "$@" >"$log" 2>&1
	rc=$?
	set -e
	# isa-debug-exit: QEMU exits with (value << 1) | 1; value 0 = PASS.
	line=$(grep '^PVSMM-SELFTEST' "$log" || true)
	if [ "$rc" = 1 ] && echo "$line" | grep -q 'status=PASS'; then
		echo "PASS $name: $line"
	else
		echo "FAIL $name (qemu rc=$rc), log $log:"
		cat "$log"
		fail=1
	fi
}

run single -bios $OUT/pvsmm-fw.bin -smp 1

# struct pvsmm_bootinfo: magic, nr_vcpus, ram_size, reads_per_vcpu,
# check_reads, pm_timer_port, flags, pad (layout.h); flags bits 3:2 are
# the guest mode (PVSMM_MODE_*: 0 long, 1 PAE, 2 2-level).
for mode in long pae 32; do
	case $mode in long) m=0 ;; pae) m=1 ;; 32) m=2 ;; esac
	python3 - "$OUT/smoke-bootinfo-$mode.bin" "$m" <<'PY'
import struct, sys
open(sys.argv[1], "wb").write(struct.pack("<IIQQQHHI",
    0x49425650, 4, 256 << 20, 20000, 100, 0x608, int(sys.argv[2]) << 2, 0))
PY
	run "smp4-$mode" -machine q35 -bios $OUT/pvsmm-fw-qemu.bin -smp 4 \
		-device loader,file=$OUT/smoke-bootinfo-$mode.bin,addr=0x5000,force-raw=on
	grep -q "guest_mode=$mode" "$OUT/smoke-smp4-$mode.log" ||
		{ echo "FAIL smp4-$mode: not run in guest mode $mode"; fail=1; }
done

exit $fail
