#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install: registers the patched KVM modules with DKMS -- the source
# tree into /usr/src/pvsmm-kvm-VERSION, then dkms add, build and install
# for the running kernel (KVER to name another) -- so that DKMS rebuilds
# them for later 6.1 kernels too (AUTOINSTALL).  The distribution's
# modules are not touched: ours go to updates/dkms/, which depmod
# prefers.  preflight.sh first refuses what would leave the host without
# a loadable KVM, or with one built from another kernel's source.
#
#   [KVER=...] host/kvm/dkms/install.sh VERSION
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
top=$(cd "$(dirname "$0")/../../.." && pwd)
command -v dkms >/dev/null || { echo "install: dkms is missing: run 'make deps'" >&2; exit 1; }
kver=${KVER:-$(uname -r)}
"$top/host/kvm/dkms/preflight.sh" "$kver" || exit 1

# A previous install of this version is replaced.
if [ -n "$(dkms status -m pvsmm-kvm -v "$version" 2>/dev/null)" ]; then
	dkms remove -m pvsmm-kvm -v "$version" --all
fi
"$top/host/kvm/dkms/stage.sh" "$version" "/usr/src/pvsmm-kvm-$version"
dkms add -m pvsmm-kvm -v "$version"
dkms build -m pvsmm-kvm -v "$version" -k "$kver"
dkms install -m pvsmm-kvm -v "$version" -k "$kver"
echo "install: pvsmm-kvm $version installed for $kver; load it with"
echo "         'modprobe -r kvm_amd kvm_intel kvm; modprobe kvm_amd' (or kvm_intel)"
