#!/bin/sh
# SPDX-License-Identifier: MIT
# The unit tests' one runner (make unit): runs every suite, each of which
# prints "SUITE: N passed, M failed", and closes with the sum of them all
# as "N passed, M failed".  A suite that dies without its line counts as
# one failure.  None of them needs /dev/kvm.
# Usage: tests/unit/run.sh BUILD_DIR
set -u
build=${1:?usage: $0 BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/lines"
broken=0

# suite NAME COMMAND...: runs one suite, keeps its report lines.
suite() {
	name=$1
	shift
	"$@" >"$tmp/out"
	rc=$?
	cat "$tmp/out"
	grep -E '^[a-z0-9-]+: [0-9]+ passed, [0-9]+ failed$' "$tmp/out" >>"$tmp/lines"
	if [ "$rc" != 0 ] && ! grep -qE ' passed, [1-9][0-9]* failed$' "$tmp/out"; then
		echo "FAIL $name: exited with status $rc and reported no failure"
		broken=$((broken + 1))
	fi
}

# run32 BINARY: a -m32 test, through qemu-i386 where the kernel has no
# 32-bit support (the exec fails with status 126).
run32() {
	"$1" 2>/dev/null
	rc=$?
	[ "$rc" = 126 ] || return "$rc"
	qemu-i386 "$1"
}

suite unit-tests "$build/tests/unit-tests"
suite time32-ref "$build/tests/time32-ref"
suite time32 run32 "$build/tests/time32"
suite shim env PVSMM_PORTS=0x608 PVSMM_EPOCH=0 PVSMM_MARKER_PORT=0xef8 \
	"$build/tests/shim-tests"
suite vcpu-dump "$build/tests/dump-tests"
suite cmdline sh "$here/cmdline.sh" "$build/host/pvsmm-vmm"
suite acpi sh "$here/acpi-check.sh" "$build/tests/acpi-dump"
suite pmtimer-py python3 "$here/test_pmtimer.py" "$build/tests/libpmticks.so"
suite efirom python3 "$here/test_efirom.py"
# No import circles in the VMM or the shim (their objects must be built).
suite layers python3 "$top/tools/check-layers.py" vmm "$top/host/vmm" \
	"$build/host/vmm" "$top/host/vmm" "$top/host/vmm/devices"
suite layers python3 "$top/tools/check-layers.py" --libc ioctl,clock_gettime \
	qemu-shim "$top/host/qemu-shim" "$build/host/qemu-shim" \
	"$top/host/qemu-shim" "$top/host/vmm"

awk -v broken="$broken" '
	{ passed += $2; failed += $4 }
	END { printf "%d passed, %d failed\n", passed, failed + broken
	      exit (failed + broken) ? 1 : 0 }' "$tmp/lines"
