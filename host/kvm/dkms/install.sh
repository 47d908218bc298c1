#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install: registers the patched KVM modules with DKMS -- the source
# tree into /usr/src/pvsmm-kvm-VERSION, then dkms add, and build and
# install for the running kernel (KVER to name another) and for every
# other installed kernel of a supported series (Debian's 6.1 and 6.12,
# amd64) -- so that whichever of them boots next has pvsmm.  DKMS builds it
# for kernels installed later too (AUTOINSTALL).  The distribution's
# modules are not touched: ours go to updates/dkms/, which depmod prefers.
#
# preflight.sh first refuses what would leave the host without a loadable
# KVM, or with one built from another kernel's source.  For KVER a refusal
# or a failed build stops the install and takes the package out again
# (any earlier version of it is replaced); another kernel that cannot have
# the modules (no headers, no source of their version) is named, with
# the reason, and keeps its own KVM.
#
#   [KVER=...] host/kvm/dkms/install.sh VERSION
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
here=$(cd "$(dirname "$0")" && pwd)
command -v dkms >/dev/null || { echo "install: dkms is missing: run 'make deps'" >&2; exit 1; }
kver=${KVER:-$(uname -r)}

# dkms install can decline a built module and still exit 0 (its module
# version check, for one); the host would then boot stock KVM, or another
# version of ours, without a word.  What counts is what depmod now
# resolves kvm, kvm_amd and kvm_intel to for the kernel: this version's
# modules, and signed where the kernel loads signed modules only.
enforcing=0
"$here/preflight.sh" --signed-only && enforcing=1
installed_for() {
	for m in kvm kvm_amd kvm_intel; do
		path=$(modinfo -k "$1" -n "$m" 2>/dev/null) || return 1
		case "$path" in */updates/dkms/*) ;; *)
			echo "install: $1 resolves $m to $path, not to DKMS's" >&2; return 1 ;;
		esac
		v=$(modinfo -k "$1" -F version "$m")
		[ "$v" = "pvsmm-$version" ] ||
			{ echo "install: $1 resolves $m to $path, version '$v', not pvsmm-$version" >&2; return 1; }
		[ $enforcing = 0 ] || [ -n "$(modinfo -k "$1" -F signer "$m")" ] ||
			{ echo "install: $path is not signed, and this kernel loads signed modules only" >&2; return 1; }
	done
}
"$here/preflight.sh" "$kver" || exit 1

# A previous install, of any version, is replaced: two registered
# versions would leave it to DKMS which one a kernel gets, and make
# uninstall must leave none.
if [ -n "$(dkms status -m pvsmm-kvm 2>/dev/null)" ]; then
	"$here/uninstall.sh" --keep-cache
fi
# From dkms add on, a failure for KVER takes it all out again: the host
# keeps the KVM it had, and DKMS does not build a half-checked package
# for the next kernel.
ok=0
trap '[ $ok = 1 ] || { echo "install: failed; removing pvsmm-kvm again" >&2; "$here/uninstall.sh" --keep-cache >&2; }' EXIT
"$here/stage.sh" "$version" "/usr/src/pvsmm-kvm-$version"
dkms add -m pvsmm-kvm -v "$version"
dkms build -m pvsmm-kvm -v "$version" -k "$kver"
dkms install -m pvsmm-kvm -v "$version" -k "$kver"
installed_for "$kver"
ok=1
echo "install: pvsmm-kvm $version installed for $kver"

# The other installed kernels of a supported series.
for dir in /lib/modules/*; do
	other=${dir##*/}
	[ "$other" != "$kver" ] || continue
	"$here/source.sh" --series "$other" >/dev/null 2>&1 || continue
	if ! why=$("$here/preflight.sh" "$other" 2>&1); then
		echo "$why" | sed 's/^install: refused/install: skipped/' >&2
		continue
	fi
	if dkms build -m pvsmm-kvm -v "$version" -k "$other" &&
	   dkms install -m pvsmm-kvm -v "$version" -k "$other" &&
	   installed_for "$other"; then
		echo "install: pvsmm-kvm $version installed for $other"
	else
		dkms uninstall -m pvsmm-kvm -v "$version" -k "$other" >/dev/null 2>&1 || :
		echo "install: skipped $other: DKMS could not build or install pvsmm-kvm for it (above); it keeps its own KVM" >&2
	fi
done
echo "install: load it with 'modprobe -r kvm_amd kvm_intel kvm; modprobe kvm_amd' (or kvm_intel)"
