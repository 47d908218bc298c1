#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Fetch one Debian source package of a given suite (e.g. trixie on a
# Debian 12 build host) from the Debian mirror the machine's apt already
# uses, through a private apt configuration (the system's own apt setup is
# untouched).  Every file is checked by apt-helper against the SHA-256 of
# the signed Sources index.
#
#   tools/debsrc-fetch.sh [--show|--binary] SUITE PACKAGE VERSION DIR [FILE...]
#
#   DIR/PACKAGE_VERSION.dsc and the tarballs it names are downloaded into
#   DIR (the private apt configuration goes to DIR/apt/), or only the
#   FILEs named (a mirror may lack the .dsc: Bochs's tarballs alone are
#   enough to build it).  VERSION "latest" takes the newest version the
#   suite's index lists.
#   --show    only print the version the suite's index has (no download).
#   --binary  fetch the binary package PACKAGE=VERSION (a .deb for this
#             machine's architecture or "all") into DIR instead, from the
#             suite's signed Packages index (apt-get download checks it).
#
# Used by the QEMU build (host/qemu/build.sh) and the Intel lab's Bochs
# (tests/lab/bochs/build.sh).
set -euo pipefail

show=0 binary=0
case ${1:-} in
--show) show=1; shift ;;
--binary) binary=1; shift ;;
esac
[ $# -ge 4 ] || { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
suite=$1 pkg=$2 version=$3
mkdir -p "$4"
dl=$(cd "$4" && pwd)
shift 4
only=("$@")

die() { echo "tools/debsrc-fetch.sh: $*" >&2; exit 1; }

helper=/usr/lib/apt/apt-helper
[ -x $helper ] || die "$helper missing (package apt)"

# The first Debian mirror apt already uses.
mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		uri=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*debian\/\{0,1\}\)$/\1/p' "$f" | head -n1)
		[ -n "$uri" ] && { echo "${uri%/}"; return; }
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -nE 's|^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]*/debian)/?[[:space:]].*|\2|p' |
		head -n1
}

apt=$dl/apt
opts=(-o "Dir::Etc::SourceList=/dev/null"
	-o "Dir::Etc::SourceParts=$apt/sources.list.d"
	-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
	-o "APT::Sandbox::User=$(id -un)")
uri=$(mirror)
[ -n "$uri" ] || die "no Debian mirror in /etc/apt/sources.list*"
rm -rf "$apt"
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d"
types=deb-src
[ $binary = 1 ] && types=deb
cat >"$apt/sources.list.d/$pkg.sources" <<-EOS
	Types: $types
	URIs: $uri
	Suites: $suite
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
apt-get "${opts[@]}" update -qq || die "apt-get update of the $suite $types index failed"

if [ $binary = 1 ]; then
	echo "  FETCH   $pkg $version (Debian binary package, $suite)"
	(cd "$dl" && apt-get "${opts[@]}" download -qq "$pkg=$version") ||
		die "could not fetch $pkg $version from $suite"
	exit 0
fi

if [ "$version" = latest ] || [ $show = 1 ]; then
	latest=$(apt-cache "${opts[@]}" showsrc "$pkg" | sed -n 's/^Version: //p' |
		sort -V | tail -n1)
	[ -n "$latest" ] || die "$pkg is not in $suite's source index"
	if [ $show = 1 ]; then echo "$latest"; exit 0; fi
	version=$latest
fi

# The stanza of exactly $version: its pool directory and the SHA-256 of
# each file.
dir='' sums='' cur='' in_sums=0
while IFS= read -r line; do
	case $line in
	"Package: "*) dir='' sums='' cur='' in_sums=0 ;;
	"Version: "*) cur=${line#Version: } ;;
	"Directory: "*) dir=${line#Directory: } ;;
	"Checksums-Sha256:"*) in_sums=1; continue ;;
	" "*) [ "$in_sums" = 1 ] && sums="$sums${line# }"$'\n' ;;
	"") [ "$cur" = "$version" ] && [ -n "$dir" ] && break ;;
	*) in_sums=0 ;;
	esac
done < <(apt-cache "${opts[@]}" showsrc "$pkg"; echo)
if [ "$cur" != "$version" ] || [ -z "$dir" ]; then
	die "$pkg $version is not in $suite's source index"
fi

# Only the files asked for, each of them listed.
if [ ${#only[@]} -gt 0 ]; then
	picked=''
	for f in "${only[@]}"; do
		line=$(awk -v f="$f" '$3 == f' <<<"$sums")
		[ -n "$line" ] || die "$f is not listed for $pkg $version"
		picked="$picked$line"$'\n'
	done
	sums=$picked
fi

echo "  FETCH   $pkg $version (Debian source package, $suite)"
mkdir -p "$dl"
while read -r sum _ f; do
	[ -n "$f" ] || continue
	[ -e "$dl/$f" ] && echo "$sum  $dl/$f" | sha256sum -c --quiet - 2>/dev/null && continue
	$helper -o "APT::Sandbox::User=$(id -un)" download-file "$uri/$dir/$f" "$dl/$f.part" "SHA256:$sum" >/dev/null ||
		die "could not fetch $uri/$dir/$f"
	mv "$dl/$f.part" "$dl/$f"
done <<<"$sums"
