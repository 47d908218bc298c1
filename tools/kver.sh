#!/bin/sh
# Prints the kernel ABI name (e.g. 6.1.0-57-amd64) that Debian's
# linux-image-amd64 metapackage points at, and checks that the headers and
# the source package are the very same upstream version: modules built
# from another source would not load (or, worse, would load and differ).
set -eu
image=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
	sed -n 's/.*linux-image-\([0-9][^ ,]*-amd64\).*/\1/p')
[ -n "$image" ] || { echo "kver: linux-image-amd64 is not installed" >&2; exit 1; }
img_ver=$(dpkg-query -W -f='${Version}' "linux-image-$image")
hdr_ver=$(dpkg-query -W -f='${Version}' "linux-headers-$image" 2>/dev/null || echo none)
src_ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo none)
if [ "$img_ver" != "$hdr_ver" ] || [ "$img_ver" != "$src_ver" ]; then
	echo "kver: linux-image-$image $img_ver, headers $hdr_ver, source $src_ver: must be one version" >&2
	exit 1
fi
echo "$image"
