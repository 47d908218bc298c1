#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build QEMU from Debian's own source, the same version as the installed
# qemu-system-x86 (Debian's patches included), with a series of ours on
# top: qemu-system-x86_64 only, no optional features.
#
#   host/qemu/build.sh [--lab] [--check] [-j N]
#
#   (default) host/qemu/*.patch, KVM only: -accel kvm,pvsmm=on
#             ("make qemu-pvsmm"; runs in the lab's L1)
#   --lab     tests/lab/qemu/*.patch, TCG only: the lab's own emulator
#             with a fix the OVMF runs need ("make qemu-lab"; PVSMM_LAB_QEMU
#             of tests/lab/run-in-lab.sh)
#   --check   only fetch, extract and apply the series (no compilation)
#
# Outputs (relative to the repository root), OUT = build/qemu-pvsmm or
# build/qemu-lab:
#   OUT/src/                  the patched source tree
#   OUT/qemu-system-x86_64    the binary, debug info stripped
#   build/qemu-dl/            the source package, shared by both
#
# The source package comes from the Debian mirrors the machine's apt
# already uses: their deb-src twins go into a private apt configuration
# under build/qemu-dl/apt/, so the system's own apt setup is untouched.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dl=$root/build/qemu-dl
JOBS=${JOBS:-2}
check_only=0
lab=0

while [ $# -gt 0 ]; do
	case "$1" in
	--check) check_only=1 ;;
	--lab) lab=1 ;;
	-j) JOBS=$2; shift ;;
	-j*) JOBS=${1#-j} ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "host/qemu/build.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "host/qemu/build.sh: $*" >&2; exit 1; }

if [ $lab = 1 ]; then
	out=$root/build/qemu-lab
	patches=("$root"/tests/lab/qemu/*.patch)
	accel=(--enable-tcg --disable-kvm)
	what="TCG only, the lab's L0"
else
	out=$root/build/qemu-pvsmm
	patches=("$here"/*.patch)
	accel=(--enable-kvm --disable-tcg)
	what="KVM only"
fi

version=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed: run 'make deps'"
for tool in dpkg-source meson ninja; do
	command -v $tool >/dev/null || die "$tool missing: run 'make deps'"
done
series=$(cat "${patches[@]}" | sha256sum | cut -d' ' -f1)
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
	local apt=$dl/apt
	local opts=(-o "Dir::Etc::SourceList=/dev/null"
		-o "Dir::Etc::SourceParts=$apt/sources.list.d"
		-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache"
		-o "APT::Sandbox::User=$(id -un)")
	rm -rf "$apt"
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dl"
	write_sources "$apt/sources.list.d"
	echo "  FETCH   qemu $version (Debian source package)"
	apt-get "${opts[@]}" update -qq ||
		die "apt-get update of the deb-src indexes failed"
	(cd "$dl" && apt-get "${opts[@]}" source --download-only -qq \
		"qemu=$version" >/dev/null) ||
		die "could not fetch Debian's source of qemu $version"
}

if [ "$(cat "$out/src/.pvsmm-stamp" 2>/dev/null)" != "$stamp" ]; then
	dsc=$dl/qemu_${version#*:}.dsc
	[ -e "$dsc" ] || fetch
	rm -rf "$out/src" "$out/obj"
	mkdir -p "$out"
	echo "  EXTRACT qemu $version"
	dpkg-source --no-check -x "$dsc" "$out/src" >/dev/null
	rm -f "$out"/qemu_*.orig.tar.*	# dpkg-source's copy beside the tree
	for p in "${patches[@]}"; do
		echo "  PATCH   $(basename "$p")"
		patch -s -p1 -d "$out/src" <"$p"
	done
	echo "$stamp" >"$out/src/.pvsmm-stamp"
fi
[ $check_only = 1 ] && exit 0

if [ ! -e "$out/obj/build.ninja" ]; then
	echo "  CONFIG  qemu-system-x86_64 ($what)"
	mkdir -p "$out/obj"
	(cd "$out/obj" && "$out/src/configure" --prefix=/usr \
		--target-list=x86_64-softmmu --without-default-features \
		"${accel[@]}" --disable-docs --disable-werror \
		>config.out 2>&1) || { tail -n 30 "$out/obj/config.out" >&2; exit 1; }
fi
echo "  NINJA   qemu-system-x86_64 (-j$JOBS)"
ninja -C "$out/obj" -j "$JOBS" qemu-system-x86_64 >"$out/obj/ninja.out" 2>&1 ||
	{ grep -B2 -A10 'error' "$out/obj/ninja.out" | head -n 60 >&2; exit 1; }
strip -o "$out/qemu-system-x86_64.tmp" "$out/obj/qemu-system-x86_64"
mv "$out/qemu-system-x86_64.tmp" "$out/qemu-system-x86_64"
echo "  DONE    ${out#"$root"/}/qemu-system-x86_64"
