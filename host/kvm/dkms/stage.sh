#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lays out the DKMS source tree of pvsmm-kvm in DEST (normally
# /usr/src/pvsmm-kvm-VERSION): dkms.conf, the DKMS build entry, and from
# the repository only what host/kvm/build.sh needs -- itself, the patch
# series and the ABI header -- at the same relative paths.
#
#   host/kvm/dkms/stage.sh VERSION DEST
set -eu
[ $# = 2 ] || { echo "usage: $0 VERSION DEST" >&2; exit 2; }
version=$1 dest=$2
top=$(cd "$(dirname "$0")/../../.." && pwd)

rm -rf "$dest"
mkdir -p "$dest/host/kvm/dkms" "$dest/host/kvm/patches" "$dest/include/pvsmm"
sed "s/@VERSION@/$version/" "$top/host/kvm/dkms/dkms.conf.in" >"$dest/dkms.conf"
cp "$top/host/kvm/dkms/Makefile" "$dest/host/kvm/dkms/Makefile"
cp "$top/host/kvm/build.sh" "$dest/host/kvm/build.sh"
cp "$top/host/kvm/patches/series" "$top"/host/kvm/patches/*.patch \
	"$dest/host/kvm/patches/"
cp "$top/include/pvsmm/abi.h" "$dest/include/pvsmm/abi.h"
