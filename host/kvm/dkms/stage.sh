#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lays out the DKMS source tree of pvsmm-kvm in DEST (normally
# /usr/src/pvsmm-kvm-VERSION): dkms.conf, and from the repository what
# host/kvm/build.sh works with -- host/kvm/ (build script, series) and
# include/pvsmm/ -- at the same relative
# paths, so that build.sh runs there as in a checkout.
#
#   host/kvm/dkms/stage.sh VERSION DEST
set -eu
[ $# = 2 ] || { echo "usage: $0 VERSION DEST" >&2; exit 2; }
version=$1 dest=$2
top=$(cd "$(dirname "$0")/../../.." && pwd)

rm -rf "$dest"
mkdir -p "$dest/host" "$dest/include"
cp -r "$top/host/kvm" "$dest/host/kvm"
cp -r "$top/include/pvsmm" "$dest/include/pvsmm"
sed "s/@VERSION@/$version/" "$top/host/kvm/dkms/dkms.conf.in" >"$dest/dkms.conf"
