#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel source that pvsmm-kvm is built from, for one installed Debian
# kernel.  KVM's internals change between stable releases, so the source
# must be Debian's linux-source-<series> of exactly the package version of
# the kernel's headers.  It comes from, in this order:
#   1. the installed linux-source-<series>, if it is that version;
#   2. that version's .deb in apt's cache or in pvsmm's own cache
#      ($PVSMM_SRC_CACHE, default /var/cache/pvsmm-kvm);
#   3. with --fetch, `apt-get download linux-source-<series>=VERSION` into
#      pvsmm's cache (the archive keeps only a suite's newest kernel, so an
#      older kernel's source may be gone: then this says so).
#
#   source.sh --series KVER         prints the series (6.1, 6.12) or fails
#   source.sh [--fetch] KVER        prints where the source is (the check
#                                   preflight.sh makes), or why there is none
#   source.sh [--fetch] KVER DIR    prints the path of the source tarball,
#                                   unpacked from a .deb into DIR if need be
# Exit status 1, with one line on stderr saying what to do, when there is no
# matching source.  PVSMM_SRC_DIR (default /usr/src), PVSMM_SRC_CACHE and
# PVSMM_APT_CACHE (apt's, /var/cache/apt/archives) are for tests.
set -eu
fetch=0
series_only=0
case ${1:-} in
--fetch) fetch=1; shift ;;
--series) series_only=1; shift ;;
esac
[ $# = 1 ] || [ $# = 2 ] || { echo "usage: $0 [--fetch|--series] KVER [DIR]" >&2; exit 2; }
kver=$1 dir=${2:-}
src_dir=${PVSMM_SRC_DIR:-/usr/src}
cache=${PVSMM_SRC_CACHE:-/var/cache/pvsmm-kvm}
apt_cache=${PVSMM_APT_CACHE:-/var/cache/apt/archives}
fail() { echo "pvsmm-kvm: $kver: $*" >&2; exit 1; }

# The series the patch sets are written for (host/kvm/patches*, tree.sh),
# and dkms.conf's BUILD_EXCLUSIVE_KERNEL: Debian's amd64 flavours of both.
case $kver in
6.1.*-amd64) series=6.1 ;;
6.12.*-amd64) series=6.12 ;;
*) fail "not a Debian 6.1 or 6.12 amd64 kernel: the series is written for those alone" ;;
esac
if [ $series_only = 1 ]; then
	echo "$series"
	exit 0
fi

installed() {
	dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null |
		sed -n 's/^installed //p'
}
pkg=linux-source-$series
tarball=$pkg.tar.xz
hdr=$(installed "linux-headers-$kver")
[ -n "$hdr" ] || fail "its headers are not Debian's linux-headers-$kver (apt-get install linux-headers-$kver)"

src=$(installed "$pkg")
if [ "$src" = "$hdr" ] && [ -r "$src_dir/$tarball" ]; then
	[ -z "$dir" ] && echo "$pkg $src (installed)" || echo "$src_dir/$tarball"
	exit 0
fi

# A .deb of the headers' version: apt names its files with ':' as %3a.
deb_name=${pkg}_$(echo "$hdr" | sed 's/:/%3a/g')_all.deb
find_deb() {
	for d in "$cache" "$apt_cache"; do
		f=$d/$deb_name
		# What the file says it is, not what it is called.
		if [ -r "$f" ] && [ "$(dpkg-deb -f "$f" Package 2>/dev/null)" = "$pkg" ] &&
		   [ "$(dpkg-deb -f "$f" Version 2>/dev/null)" = "$hdr" ]; then
			echo "$f"
			return 0
		fi
	done
	return 1
}
deb=$(find_deb) || deb=
if [ -z "$deb" ] && [ $fetch = 1 ] && [ -z "${PVSMM_NO_FETCH:-}" ]; then
	mkdir -p "$cache"
	# apt-get download takes no dpkg lock, so it works from DKMS's run
	# inside a kernel package's postinst too.
	(cd "$cache" && apt-get download -q "$pkg=$hdr" >/dev/null 2>&1) || :
	deb=$(find_deb) || deb=
fi
if [ -z "$deb" ]; then
	have=${src:-not installed}
	[ "$src" != "$hdr" ] || have="$src but $src_dir/$tarball is missing (apt-get install --reinstall $pkg)"
	fail "needs $pkg $hdr (the version of its headers); $pkg is $have and no $deb_name was found or could be downloaded: apt-get install $pkg=$hdr, or put that .deb in $cache"
fi
if [ -z "$dir" ]; then
	echo "$pkg $hdr ($deb)"
	exit 0
fi
mkdir -p "$dir"
dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$tarball" >"$dir/$tarball" ||
	fail "$deb has no usr/src/$tarball"
echo "$dir/$tarball"
