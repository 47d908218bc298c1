#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: the DKMS package builds against the installed headers
# of the lab's kernels, 6.1 and (where installed) 6.12.
# dkms add + build + remove, with DKMS's source and module trees in a
# temporary directory, so that neither /usr/src, /var/lib/dkms nor
# /lib/modules change -- and a signing key DKMS creates for the occasion
# (it does so when none exists) is removed again.
#
#   host/kvm/dkms/check.sh VERSION
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
top=$(cd "$(dirname "$0")/../../.." && pwd)
command -v dkms >/dev/null || { echo "dkms-check: dkms is missing: run 'make deps'" >&2; exit 1; }
# The lab's kernels of both series: tools/kver.sh checks that image,
# headers and source are one version.  6.12 only where it is installed
# (make deps-lab-6.12).
kvers=$("$top/tools/kver.sh" 6.1)
kver612=$("$top/tools/kver.sh" 6.12 2>/dev/null) && kvers="$kvers $kver612"
kver=${kvers%% *}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-dkms.XXXXXX")
keys=""
for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
	[ -e "$f" ] || keys="$keys $f"
done
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$keys" ] || rm -f $keys
	rm -rf "$tmp"
}
trap cleanup EXIT

trees="--sourcetree $tmp/src --dkmstree $tmp/dkms --installtree $tmp/modules"
mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/modules"
"$top/host/kvm/dkms/stage.sh" "$version" "$tmp/src/pvsmm-kvm-$version"
# shellcheck disable=SC2086
dkms add -m pvsmm-kvm -v "$version" $trees >/dev/null
for k in $kvers; do
	# shellcheck disable=SC2086
	if ! dkms build -m pvsmm-kvm -v "$version" -k "$k" $trees; then
		log=$tmp/dkms/pvsmm-kvm/$version/build/make.log
		[ -r "$log" ] && tail -n 30 "$log" >&2
		echo "dkms-check: FAILED to build pvsmm-kvm $version for $k" >&2
		exit 1
	fi
	built=$tmp/dkms/pvsmm-kvm/$version/$k/x86_64/module
	for m in kvm kvm-amd kvm-intel; do
		ls "$built/$m.ko"* >/dev/null 2>&1 ||
			{ echo "dkms-check: $m.ko was not built for $k" >&2; exit 1; }
	done
	echo "dkms-check: pvsmm-kvm $version builds with DKMS for $k (kvm, kvm-amd, kvm-intel)"
done
# shellcheck disable=SC2086
dkms remove -m pvsmm-kvm -v "$version" --all $trees >/dev/null

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
