#!/bin/sh
# Prints the kernel ABI name of the lab kernel of a series and checks that
# its image, its headers and the source package are the very same Debian
# version: modules built from another source would not load (or, worse,
# would load and differ).
#
#   tools/kver.sh [SERIES]    SERIES: 6.1 (default, or $PVSMM_KSERIES) or 6.12
#
#   6.1    the ABI that Debian's linux-image-amd64 metapackage points at
#          (e.g. 6.1.0-57-amd64), source linux-source-6.1
#   6.12   bookworm-security's 6.12 (no metapackage in Debian 12): the
#          installed linux-headers-6.12.*-amd64 whose version is that of
#          linux-source-6.12 (e.g. 6.12.118+deb12-amd64), with its image,
#          signed or -unsigned
set -eu
series=${1:-${PVSMM_KSERIES:-6.1}}
src_ver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null || echo none)
case $series in
6.1)
	image=$(dpkg-query -W -f='${Depends}' linux-image-amd64 2>/dev/null |
		sed -n 's/.*linux-image-\([0-9][^ ,]*-amd64\).*/\1/p')
	[ -n "$image" ] || { echo "kver: linux-image-amd64 is not installed" >&2; exit 1; }
	;;
6.12)
	[ "$src_ver" != none ] || { echo "kver: linux-source-6.12 is not installed" >&2; exit 1; }
	image=$(dpkg-query -W -f='${db:Status-Status} ${Version} ${Package}\n' \
			'linux-headers-6.12.*-amd64' 2>/dev/null |
		awk -v v="$src_ver" '$1 == "installed" && $2 == v {
			sub(/^linux-headers-/, "", $3); print $3; exit }')
	[ -n "$image" ] || { echo "kver: no linux-headers-6.12.*-amd64 of version $src_ver (linux-source-6.12)" >&2; exit 1; }
	;;
*) echo "kver: unknown kernel series '$series' (6.1 or 6.12)" >&2; exit 2 ;;
esac
img_ver=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "linux-image-$image" 2>/dev/null |
	sed -n 's/^installed //p')
[ -n "$img_ver" ] || img_ver=$(dpkg-query -W -f='${db:Status-Status} ${Version}' \
	"linux-image-$image-unsigned" 2>/dev/null | sed -n 's/^installed //p')
[ -n "$img_ver" ] || img_ver=none
hdr_ver=$(dpkg-query -W -f='${Version}' "linux-headers-$image" 2>/dev/null || echo none)
if [ "$img_ver" != "$hdr_ver" ] || [ "$img_ver" != "$src_ver" ]; then
	echo "kver: linux-image-$image $img_ver, headers $hdr_ver, source $src_ver: must be one version" >&2
	exit 1
fi
echo "$image"
