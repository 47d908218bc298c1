#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build QEMU with host/qemu/*.patch applied: Debian's own QEMU source, the
# same version as the installed qemu-system-x86 (Debian's patches
# included), configured for qemu-system-x86_64 with KVM only and no
# optional features.  Called by the top-level Makefile as "make qemu-pvsmm".
#
#   host/qemu/build.sh [--check] [-j N]
#
#   --check   only fetch, extract and apply the series (no compilation)
#
# Outputs (relative to the repository root):
#   build/qemu-pvsmm/src/                  the patched source tree
#   build/qemu-pvsmm/qemu-system-x86_64    the binary, debug info stripped
#
# The source package comes from the Debian mirrors the machine's apt
# already uses: their deb-src twins go into a private apt configuration
# under build/qemu-pvsmm/apt/, so the system's own apt setup is untouched.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/qemu-pvsmm
JOBS=${JOBS:-2}
check_only=0

while [ $# -gt 0 ]; do
	case "$1" in
	--check) check_only=1 ;;
	-j) JOBS=$2; shift ;;
	-j*) JOBS=${1#-j} ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "host/qemu/build.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "host/qemu/build.sh: $*" >&2; exit 1; }

version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed: run 'make deps'"
for tool in dpkg-source meson ninja; do
	command -v $tool >/dev/null || die "$tool missing: run 'make deps'"
done
series=$(cat "$here"/*.patch | sha256sum | cut -d' ' -f1)
stamp="$version $series"

# The deb-src twin of every Debian entry apt already has, in both formats.
write_sources() {
	local dir=$1 f
	mkdir -p "$dir"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		grep -qi 'debian' "$f" || continue
		grep -qE '^Types:(.*[[:space:]])?deb([[:space:]]|$)' "$f" || continue
		sed -E 's/^Types:.*/Types: deb-src/' "$f" >"$dir/$(basename "$f")"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		grep -i 'debian' |
		sed -nE 's/^deb[[:space:]]+/deb-src /p' >"$dir/twins.list" || true
}

fetch() {
	local apt=$out/apt
	local opts=(-o "Dir::Etc::SourceList=/dev/null"
		-o "Dir::Etc::SourceParts=$apt/sources.list.d"
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
		-o "APT::Sandbox::User=$(id -un)")
	rm -rf "$apt"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$out/dl"
	write_sources "$apt/sources.list.d"
	echo "  FETCH   qemu $version (Debian source package)"
	apt-get "${opts[@]}" update -qq ||
		die "apt-get update of the deb-src indexes failed"
	(cd "$out/dl" && apt-get "${opts[@]}" source --download-only -qq \
		"qemu=$version" >/dev/null) ||
		die "could not fetch Debian's source of qemu $version"
}

if [ "$(cat "$out/src/.pvsmm-stamp" 2>/dev/null)" != "$stamp" ]; then
	dsc=$out/dl/qemu_${version#*:}.dsc
	[ -e "$dsc" ] || fetch
	rm -rf "$out/src" "$out/obj"
	echo "  EXTRACT qemu $version"
	dpkg-source --no-check -x "$dsc" "$out/src" >/dev/null
	rm -f "$out"/qemu_*.orig.tar.*	# dpkg-source's copy beside the tree
	for p in "$here"/*.patch; do
		echo "  PATCH   $(basename "$p")"
		patch -s -p1 -d "$out/src" <"$p"
	done
	echo "$stamp" >"$out/src/.pvsmm-stamp"
fi
[ $check_only = 1 ] && exit 0

if [ ! -e "$out/obj/build.ninja" ]; then
	echo "  CONFIG  qemu-system-x86_64 (KVM only)"
	mkdir -p "$out/obj"
	(cd "$out/obj" && "$out/src/configure" --prefix=/usr \
		--target-list=x86_64-softmmu --without-default-features \
		--enable-kvm --disable-tcg --disable-docs --disable-werror \
		>config.out 2>&1) || { tail -n 30 "$out/obj/config.out" >&2; exit 1; }
fi
echo "  NINJA   qemu-system-x86_64 (-j$JOBS)"
ninja -C "$out/obj" -j "$JOBS" qemu-system-x86_64 >"$out/obj/ninja.out" 2>&1 ||
	{ grep -B2 -A10 'error' "$out/obj/ninja.out" | head -n 60 >&2; exit 1; }
strip -o "$out/qemu-system-x86_64.tmp" "$out/obj/qemu-system-x86_64"
mv "$out/qemu-system-x86_64.tmp" "$out/qemu-system-x86_64"
echo "  DONE    build/qemu-pvsmm/qemu-system-x86_64"
