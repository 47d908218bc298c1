#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make uninstall: removes pvsmm-kvm VERSION from DKMS (every kernel) and
# its source tree; depmod then finds the distribution's kvm modules again.
# Modules already loaded stay loaded until the next reload or reboot.
#
#   host/kvm/dkms/uninstall.sh VERSION
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
top=$(cd "$(dirname "$0")/../../.." && pwd)
if command -v dkms >/dev/null &&
	[ -n "$(dkms status -m pvsmm-kvm -v "$version" 2>/dev/null)" ]; then
	dkms remove -m pvsmm-kvm -v "$version" --all
fi
rm -rf "/usr/src/pvsmm-kvm-$version"
kver=$("$top/tools/kver.sh" 2>/dev/null) && depmod -a "$kver"
echo "uninstall: pvsmm-kvm $version removed; the distribution's kvm modules are in charge"
