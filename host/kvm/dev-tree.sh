#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Working on the series:
#   host/kvm/dev-tree.sh           build/kvm/dev: a git tree of the pristine
#                                  sources with the series applied (git am),
#                                  one commit per patch; edit, commit, rebase
#   host/kvm/dev-tree.sh --export  write the commits back to patches/ (and
#                                  series), then run checkpatch.sh
# The ABI header is installed untracked (it is not part of the series).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tree.sh
. "$here/tree.sh"
dev=$root/build/kvm/dev
git=(git -C "$dev" -c user.name="pvsmm developers" -c user.email=dev@pvsmm.invalid)

if [ "${1:-}" = --export ]; then
	base=$("${git[@]}" rev-list --max-parents=0 HEAD)
	rm -f "$here"/patches/*.patch
	"${git[@]}" format-patch -q --no-signature -o "$here/patches" "$base..HEAD"
	(cd "$here/patches" && ls ./*.patch | sed 's|^\./||' >series)
	exec "$here/checkpatch.sh"
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
"${git[@]}" commit -q -m "linux-source-6.1 (Debian), KVM parts and selftests"
install -D -m 0644 "$root/include/pvsmm/abi.h" \
	"$dev/arch/x86/include/uapi/asm/pvsmm.h"
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	"${git[@]}" am -q "$here/patches/$p"
done <"$here/patches/series"
"${git[@]}" log --oneline
