#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check, its part without the lab: what make install refuses
# (preflight.sh) and where the kernel source comes from (source.sh), with
# stand-ins for the kernel's lockdown state and for the package caches.
# The install itself, its DKMS builds for 6.1 and 6.12 and the Secure
# Boot host are lab-check.sh's.
#
#   host/kvm/dkms/check.sh
set -eu
[ $# = 0 ] || { echo "usage: $0" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../../.." && pwd)
# The lab's kernels of both series: tools/kver.sh checks that image,
# headers and source are one version.  6.12 only where it is installed
# (make deps-lab-6.12).
kvers=$("$top/tools/kver.sh" 6.1)
kver612=$("$top/tools/kver.sh" 6.12 2>/dev/null) && kvers="$kvers $kver612"
kver=${kvers%% *}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-dkms.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# What make install refuses (preflight.sh): another series, a lockdown
# without an enrolled key.  And what it lets through: these kernels.
for k in $kvers; do
	PVSMM_LOCKDOWN=/dev/null PVSMM_SIG_ENFORCE=/dev/null \
		"$top/host/kvm/dkms/preflight.sh" "$k" ||
		{ echo "dkms-check: preflight refused $k" >&2; exit 1; }
done
for k in 6.6.0-1-amd64 5.10.0-30-amd64 6.1.0-57-arm64 6.12.0-1-rt-amd64x; do
	if "$top/host/kvm/dkms/preflight.sh" "$k" 2>/dev/null; then
		echo "dkms-check: preflight let $k (another series) through" >&2
		exit 1
	fi
done
echo "none [integrity] confidentiality" >"$tmp/lockdown"
if PVSMM_LOCKDOWN=$tmp/lockdown PVSMM_MOK_PUB=$tmp/no-key \
	"$top/host/kvm/dkms/preflight.sh" "$kver" 2>/dev/null; then
	echo "dkms-check: preflight let unsigned modules through under lockdown" >&2
	exit 1
fi
echo Y >"$tmp/sig_enforce"
if PVSMM_LOCKDOWN=/dev/null PVSMM_SIG_ENFORCE=$tmp/sig_enforce \
	PVSMM_MOK_PUB=$tmp/no-key "$top/host/kvm/dkms/preflight.sh" "$kver" 2>/dev/null; then
	echo "dkms-check: preflight let unsigned modules through under sig_enforce" >&2
	exit 1
fi
echo "dkms-check: make install refuses another series, and lockdown or sig_enforce without a key"

# Where the source comes from when the installed linux-source-6.1 is not
# the headers' version (source.sh): a .deb of that version in the cache,
# checked by what it says it is, else a refusal that says what to install.
hdr=$(dpkg-query -W -f='${Version}' "linux-headers-$kver")
deb=$tmp/cache/linux-source-6.1_$(echo "$hdr" | sed 's/:/%3a/g')_all.deb
no_source() {
	PVSMM_SRC_DIR=$tmp/empty PVSMM_APT_CACHE=$tmp/empty \
		PVSMM_SRC_CACHE=$tmp/cache PVSMM_NO_FETCH=1 \
		"$top/host/kvm/dkms/source.sh" --fetch "$kver" "$tmp/out" 2>&1
}
fake_deb() {	# VERSION: a linux-source-6.1 .deb of that version
	rm -rf "$tmp/pkg" && mkdir -p "$tmp/pkg/DEBIAN" "$tmp/pkg/usr/src"
	echo "pvsmm test source $1" | xz >"$tmp/pkg/usr/src/linux-source-6.1.tar.xz"
	printf 'Package: linux-source-6.1\nVersion: %s\nArchitecture: all\nMaintainer: pvsmm <pvsmm@localhost>\nDescription: test\n' \
		"$1" >"$tmp/pkg/DEBIAN/control"
	dpkg-deb -b -Zxz "$tmp/pkg" "$deb" >/dev/null
}
mkdir -p "$tmp/empty" "$tmp/cache"
out=$(no_source) && { echo "dkms-check: source.sh found a source where none is: $out" >&2; exit 1; }
case $out in
*"apt-get install linux-source-6.1=$hdr"*) ;;
*) echo "dkms-check: source.sh's refusal does not say what to install: $out" >&2; exit 1 ;;
esac
fake_deb "$hdr.1"	# right name, other version inside
out=$(no_source) && { echo "dkms-check: source.sh took a .deb of another version: $out" >&2; exit 1; }
fake_deb "$hdr"
out=$(no_source) || { echo "dkms-check: source.sh did not take the cached .deb: $out" >&2; exit 1; }
[ "$(xz -dc "$out")" = "pvsmm test source $hdr" ] ||
	{ echo "dkms-check: source.sh unpacked the wrong tarball ($out)" >&2; exit 1; }
echo "dkms-check: a source of the headers' version comes from a cached .deb; none is a refusal that says what to install"
