#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Fuzz KVM's validation of pvsmm registration descriptors in userspace:
# arch/x86/kvm/pvsmm_desc.h from the patched tree, compiled unchanged
# against host/kvm/tests/shim (memslots and guest memory), driven by
# fuzz-desc.c and compared with the model of the series' KVM selftests
# (tools/testing/selftests/kvm/lib/x86_64/pvsmm_model.c).
#
#   host/kvm/tests/fuzz.sh [--long] [--kernel-series 6.1|6.12]
#
# Two drivers, both with AddressSanitizer and UBSan (any report fails):
#   - deterministic: 1,000,000 generated cases (--long: 50,000,000);
#   - libFuzzer (Debian's clang): 1,000,000 runs from seed 1 on an empty
#     corpus (--long: 20,000,000), skipped with a note if clang or its
#     runtime (libclang-rt-14-dev) is missing.
# Needs the patched tree of the series: host/kvm/build.sh --check (make
# does that).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cases=1000000 runs=1000000 kseries=${PVSMM_KSERIES:-6.1}
while [ $# -gt 0 ]; do
	case $1 in
	--long) cases=50000000 runs=20000000 ;;
	--kernel-series) kseries=${2:?}; shift ;;
	*) echo "usage: $0 [--long] [--kernel-series 6.1|6.12]" >&2; exit 2 ;;
	esac
	shift
done
case $kseries in	# the series' build directory, as in host/kvm/tree.sh
6.1) tree=$root/build/kvm ;;
6.12) tree=$root/build/kvm/6.12 ;;
*) echo "fuzz: --kernel-series must be 6.1 or 6.12, not '$kseries'" >&2; exit 2 ;;
esac

src=$tree/src/arch/x86/kvm
st=$tree/src/tools/testing/selftests/kvm
out=$tree/fuzz
[ -r "$src/pvsmm_desc.h" ] && [ -r "$st/lib/x86_64/pvsmm_model.c" ] ||
	{ echo "fuzz: the patched tree is missing: run host/kvm/build.sh --kernel-series $kseries --check" >&2; exit 2; }
mkdir -p "$out"

flags=(-std=c11 -Wall -Wextra -Werror -O2 -g -fno-omit-frame-pointer
	-fsanitize=address,undefined -fno-sanitize-recover=all
	-I"$here/shim" -I"$root/include" -I"$src" -I"$st/include/x86_64")
srcs=("$here/fuzz-desc.c" "$st/lib/x86_64/pvsmm_model.c")

${CC:-cc} "${flags[@]}" -o "$out/fuzz-desc" "${srcs[@]}"
"$out/fuzz-desc" "$cases"

if ! command -v clang >/dev/null; then
	echo "fuzz-desc-libfuzzer: skipped, no clang (apt-get install clang libclang-rt-14-dev)"
	exit 0
fi
if ! clang "${flags[@]}" -fsanitize=fuzzer -DPVSMM_LIBFUZZER \
	-o "$out/fuzz-desc-libfuzzer" "${srcs[@]}" 2>"$out/clang.log"; then
	cat "$out/clang.log" >&2
	echo "fuzz-desc-libfuzzer: skipped, clang cannot link libFuzzer (libclang-rt-14-dev?)"
	exit 0
fi
corpus=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-fuzz.XXXXXX")
trap 'rm -rf "$corpus"' EXIT
rc=0
(cd "$out" && ./fuzz-desc-libfuzzer -runs="$runs" -seed=1 -max_len=512 \
	-print_final_stats=1 "$corpus") >"$out/libfuzzer.log" 2>&1 || rc=$?
grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done)" "$out/libfuzzer.log" || true
if [ $rc = 0 ]; then
	echo "fuzz-desc-libfuzzer: $runs passed, 0 failed"
else
	tail -n 40 "$out/libfuzzer.log"
	echo "fuzz-desc-libfuzzer: 0 passed, 1 failed (see $out/libfuzzer.log)"
fi
exit $rc
