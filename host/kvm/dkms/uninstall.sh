#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make uninstall: removes pvsmm-kvm VERSION from DKMS, for every kernel
# (dkms remove runs depmod for each, which then finds the distribution's
# kvm modules again), its source tree, and the kernel sources source.sh
# cached.  Modules already loaded stay loaded until the next reload or
# reboot.
#
#   host/kvm/dkms/uninstall.sh VERSION
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
if command -v dkms >/dev/null &&
	[ -n "$(dkms status -m pvsmm-kvm -v "$version" 2>/dev/null)" ]; then
	dkms remove -m pvsmm-kvm -v "$version" --all
fi
rm -rf "/usr/src/pvsmm-kvm-$version" /var/cache/pvsmm-kvm
echo "uninstall: pvsmm-kvm $version removed; the distribution's kvm modules are in charge"
