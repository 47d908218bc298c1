#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Working on the series:
#   host/kvm/dev-tree.sh           build/kvm/dev: a git tree of the pristine
#                                  sources with the series applied (git am),
#                                  one commit per patch; edit, commit, rebase
#   host/kvm/dev-tree.sh --export  write the commits back to patches/ (and
#                                  series), then run checkpatch.sh
#   --kernel-series 6.12 (before either): the 6.12 series, patches-6.12/,
#                                  in build/kvm/6.12/dev (tree.sh)
# The ABI header is installed untracked (it is not part of the series).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "${1:-}" = --kernel-series ]; then
	kseries=${2:?--kernel-series 6.1|6.12}
	shift 2
fi
# shellcheck source=tree.sh
. "$here/tree.sh"
dev=$out/dev
git=(git -C "$dev" -c user.name="pvsmm developers" -c user.email=dev@pvsmm.invalid)

if [ "${1:-}" = --export ]; then
	base=$("${git[@]}" rev-list --max-parents=0 HEAD)
	mkdir -p "$patch_dir"
	rm -f "$patch_dir"/*.patch
	"${git[@]}" format-patch -q --no-signature -o "$patch_dir" "$base..HEAD"
	(cd "$patch_dir" && ls ./*.patch | sed 's|^\./||' >series)
	exec "$here/checkpatch.sh" --kernel-series "$kseries"
fi

[ -e "$dev" ] && { echo "$dev exists; remove it first" >&2; exit 1; }
mkdir -p "$dev"
# shellcheck disable=SC2086
extract_members "$dev" $kvm_members $selftest_members \
	scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
"${git[@]}" init -q
printf '%s\n' arch/x86/include/uapi/asm/pvsmm.h '.checkpatch-camelcase*' \
	>"$dev/.git/info/exclude"
"${git[@]}" add -A
"${git[@]}" commit -q -m "linux-source-$kseries (Debian), KVM parts and selftests"
install -D -m 0644 "$root/include/pvsmm/abi.h" \
	"$dev/arch/x86/include/uapi/asm/pvsmm.h"
if [ -r "$patch_dir/series" ]; then
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		"${git[@]}" am -q "$patch_dir/$p"
	done <"$patch_dir/series"
fi
"${git[@]}" log --oneline
