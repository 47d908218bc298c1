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
# or a failed build stops the install; another kernel that cannot have
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
# version check, for one); the host would then boot stock KVM without a
# word.  What counts is which kvm modules depmod now resolves for KVER.
installed_for() {
	for m in kvm kvm_amd kvm_intel; do
		path=$(modinfo -k "$1" -n "$m" 2>/dev/null) || return 1
		case "$path" in */updates/dkms/*) ;; *) return 1 ;; esac
	done
}
"$here/preflight.sh" "$kver" || exit 1

# A previous install of this version is replaced.
if [ -n "$(dkms status -m pvsmm-kvm -v "$version" 2>/dev/null)" ]; then
	dkms remove -m pvsmm-kvm -v "$version" --all
fi
"$here/stage.sh" "$version" "/usr/src/pvsmm-kvm-$version"
dkms add -m pvsmm-kvm -v "$version"
dkms build -m pvsmm-kvm -v "$version" -k "$kver"
dkms install -m pvsmm-kvm -v "$version" -k "$kver"
if ! installed_for "$kver"; then
	echo "install: DKMS built pvsmm-kvm for $kver but $kver still resolves kvm to $(modinfo -k "$kver" -n kvm 2>&1); removing it again" >&2
	"$here/uninstall.sh" "$version" >&2
	exit 1
fi
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
		echo "install: skipped $other: DKMS could not build or install pvsmm-kvm for it (above); it keeps its own KVM" >&2
	fi
done
echo "install: load it with 'modprobe -r kvm_amd kvm_intel kvm; modprobe kvm_amd' (or kvm_intel)"
