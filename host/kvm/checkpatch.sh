#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict on every patch of the series; the
# series must be clean: 0 errors, 0 warnings, 0 checks.  checkpatch.pl and
# its data files come from the same linux-source-6.1 package as the tree.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SRC_TAR=${SRC_TAR:-/usr/src/linux-source-6.1.tar.xz}
tools=$root/build/kvm/checkpatch

if [ ! -x "$tools/scripts/checkpatch.pl" ]; then
	mkdir -p "$tools"
	tar -xJf "$SRC_TAR" -C "$tools" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi

bad=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	out=$(cd "$tools" && perl scripts/checkpatch.pl --strict --no-tree \
		"$here/patches/$p" || true)
	total=$(grep '^total:' <<<"$out")
	echo "$p: $total"
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$out"; then
		echo "$out"
		bad=1
	fi
done < "$here/patches/series"
exit $bad
