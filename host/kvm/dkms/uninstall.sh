#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make uninstall: removes pvsmm-kvm from DKMS -- every version registered,
# for every kernel (dkms remove runs depmod for each, which then finds the
# distribution's kvm modules again) -- its source trees, and the kernel
# sources source.sh cached (--keep-cache keeps those: make install
# replacing an earlier version).  It then checks that no kernel resolves
# kvm to a pvsmm module any more.  Modules already loaded stay loaded
# until the next reload or reboot.
#
#   host/kvm/dkms/uninstall.sh [--keep-cache] [VERSION]
#
# VERSION is accepted for make's sake; every version goes.
set -eu
keep_cache=0
[ "${1:-}" != --keep-cache ] || { keep_cache=1; shift; }
[ $# -le 1 ] || { echo "usage: $0 [--keep-cache] [VERSION]" >&2; exit 2; }
if command -v dkms >/dev/null; then
	for v in $(dkms status -m pvsmm-kvm 2>/dev/null |
		   sed -n 's|^pvsmm-kvm/\([^,:]*\)[,:].*|\1|p' | sort -u); do
		dkms remove -m pvsmm-kvm -v "$v" --all
	done
fi
rm -rf /usr/src/pvsmm-kvm-*
[ $keep_cache = 1 ] || rm -rf /var/cache/pvsmm-kvm
left=
for dir in /lib/modules/*; do
	[ -d "$dir" ] || continue
	path=$(modinfo -k "${dir##*/}" -n kvm 2>/dev/null) || continue
	case "$(modinfo -F version "$path" 2>/dev/null)" in
	pvsmm-*) left="$left $path" ;;
	esac
done
if [ -n "$left" ]; then
	echo "uninstall: pvsmm's kvm.ko is still what modprobe finds:$left (not DKMS's to remove: remove it by hand, then run depmod)" >&2
	exit 1
fi
echo "uninstall: pvsmm-kvm removed; the distribution's kvm modules are in charge"
