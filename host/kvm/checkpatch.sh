#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the kernel's checkpatch.pl --strict on every patch of the series; the
# series must be clean: 0 errors, 0 warnings, 0 checks.  checkpatch.pl and
# its data files come from the same linux-source package as the tree.
#
#   host/kvm/checkpatch.sh [--kernel-series 6.1|6.12]   (tree.sh; default 6.1)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "${1:-}" = --kernel-series ]; then
	kseries=${2:?--kernel-series 6.1|6.12}
	shift 2
fi
[ $# = 0 ] || { echo "usage: $0 [--kernel-series 6.1|6.12]" >&2; exit 2; }
# shellcheck source=tree.sh
. "$here/tree.sh"
tools=$out/checkpatch

if [ ! -x "$tools/scripts/checkpatch.pl" ]; then
	mkdir -p "$tools"
	extract_members "$tools" scripts/checkpatch.pl scripts/spelling.txt \
		scripts/const_structs.checkpatch
fi

bad=0
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	res=$(cd "$tools" && perl scripts/checkpatch.pl --strict --no-tree \
		"$patch_dir/$p" || true)
	total=$(grep '^total:' <<<"$res")
	echo "$p: $total"
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks' <<<"$res"; then
		echo "$res"
		bad=1
	fi
done < "$patch_dir/series"
exit $bad
