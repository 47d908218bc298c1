#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build QEMU from Debian's own source (Debian's patches included) with a
# series of ours on top: qemu-system-x86_64 only.
#
#   host/qemu/build.sh [--lab] [--check] [-j N]
#
#   (default) host/qemu/*.patch on trixie's QEMU 10.0 (QEMU_SUITE,
#             QEMU_VERSION below): a full x86_64 system emulator, TCG and
#             KVM and every default feature configure finds, plus
#             -accel kvm,pvsmm=on ("make qemu-pvsmm"; runs in the lab's
#             L1, and stands in for Debian's qemu-system-x86_64: its
#             firmware path is Debian's, /usr/share/qemu, /usr/share/seabios
#             and /usr/lib/ipxe/qemu).  Its test binary, the qtest
#             tests/qtest/pvsmm-test, is built and run too.
#   --lab     tests/lab/qemu/*.patch on the installed qemu-system-x86's
#             version (7.2 on Debian 12), TCG only: the lab's own emulator
#             with a fix the OVMF runs need ("make qemu-lab";
#             PVSMM_LAB_QEMU of tests/lab/run-in-lab.sh)
#   --check   only fetch, extract and apply the series (no compilation)
#
# Outputs (relative to the repository root), OUT = build/qemu-pvsmm or
# build/qemu-lab:
#   OUT/src/                  the patched source tree
#   OUT/qemu-system-x86_64    the binary, debug info stripped
#   build/qemu10-dl/          trixie's source package and bookworm-
#                             backports' meson (the default build)
#   build/qemu10-meson/       that meson, unpacked (not installed)
#   build/qemu-dl/            the installed version's source package (--lab)
#
# The sources come from the Debian mirrors the machine's apt already uses,
# through private apt configurations (the system's own apt setup is
# untouched): for --lab the deb-src twins of its entries, under
# build/qemu-dl/apt/; for the default build tools/debsrc-fetch.sh, which
# checks every file against the SHA-256 of the signed index.
#
# QEMU 10.0 needs meson >= 1.5; Debian 12 has 1.0, and Debian's +ds
# tarball drops the meson wheel of QEMU's python/wheels.  The default build
# therefore unpacks bookworm-backports' meson (1.7, pure Python) under
# build/ and puts it on PYTHONPATH for configure and ninja, where QEMU's
# venv (configure's mkvenv, which sees the system's site packages) finds
# it; the system's meson stays 1.0, for the --lab build and everything else.
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

# extract DSC DEST: Debian's source package into DEST, Debian's patches
# applied (dpkg-source), then ours ($patches).
extract() {
	dpkg-source --no-check -x "$1" "$2" >/dev/null
	rm -f "$out"/qemu_*.orig.tar.*	# dpkg-source's copy beside the tree
	for p in "${patches[@]}"; do
		echo "  PATCH   $(basename "$p")"
		patch -s -p1 -d "$2" <"$p" || die "$(basename "$p") does not apply"
	done
}

# The binary out of the configured tree $out/obj, debug info stripped.
compile() {
	echo "  NINJA   qemu-system-x86_64 (-j$JOBS)"
	ninja -C "$out/obj" -j "$JOBS" qemu-system-x86_64 >"$out/obj/ninja.out" 2>&1 ||
		{ grep -B2 -A10 'error' "$out/obj/ninja.out" | head -n 60 >&2; exit 1; }
	strip -o "$out/qemu-system-x86_64.tmp" "$out/obj/qemu-system-x86_64"
	mv "$out/qemu-system-x86_64.tmp" "$out/qemu-system-x86_64"
	echo "  DONE    ${out#"$root"/}/qemu-system-x86_64"
}

# --- the lab's L0 (--lab): the installed version, 7.2 on Debian 12 ---
build_lab() {
dl=$root/build/qemu-dl
out=$root/build/qemu-lab
patches=("$root"/tests/lab/qemu/*.patch)
accel=(--enable-tcg --disable-kvm)
what="TCG only, the lab's L0"

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
	# Done only once apt-get source ended: a cut-off fetch leaves the .dsc.
	if [ ! -e "$dsc.fetched" ]; then
		fetch
		touch "$dsc.fetched"
	fi
	rm -rf "$out/src" "$out/obj"
	mkdir -p "$out"
	echo "  EXTRACT qemu $version"
	extract "$dsc" "$out/src"
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
compile
}

# --- the default build: trixie's QEMU 10.0, a full x86_64 emulator ---
suite=${QEMU_SUITE:-trixie}
version=${QEMU_VERSION:-1:10.0.13+ds-0+deb13u1}
meson_suite=${QEMU_MESON_SUITE:-bookworm-backports}
meson_version=${QEMU_MESON_VERSION:-1.7.0-1~bpo12+1}
dl10=$root/build/qemu10-dl
mesondir=$root/build/qemu10-meson
fetch=$root/tools/debsrc-fetch.sh

build_full() {
	local v=${version#*:} dl=$dl10 mdeb new p
	out=$root/build/qemu-pvsmm
	shopt -s nullglob
	patches=("$here"/*.patch)
	shopt -u nullglob
	for tool in dpkg-source dpkg-deb ninja patch rsync; do
		command -v $tool >/dev/null || die "$tool missing: run 'make deps-lab'"
	done
	stamp="$version $(cat "$here/build.sh" "${patches[@]}" | sha256sum | cut -d' ' -f1)"

	# meson, unpacked: QEMU 10.0 wants >= 1.5 (see above).
	mdeb=$dl/meson_${meson_version#*:}_all.deb
	if [ "$(cat "$mesondir/.pvsmm-stamp" 2>/dev/null)" != "$meson_version" ]; then
		[ -e "$mdeb" ] || "$fetch" --binary "$meson_suite" meson "$meson_version" "$dl"
		rm -rf "$mesondir"
		dpkg-deb -x "$mdeb" "$mesondir"
		echo "$meson_version" >"$mesondir/.pvsmm-stamp"
	fi
	export PYTHONPATH=$mesondir/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}

	if [ "$(cat "$out/src/.pvsmm-stamp" 2>/dev/null)" != "$stamp" ]; then
		# A fetch cut off part way leaves some files: only a fetch
		# that ended (every file checked) is taken as done.
		if [ ! -e "$dl/qemu_$v.fetched" ]; then
			"$fetch" "$suite" qemu "$version" "$dl"
			touch "$dl/qemu_$v.fetched"
		fi
		# Another QEMU version: start afresh.  The same version with
		# another series: the tree is extracted and patched beside the
		# old one, and only the files that differ are copied over it
		# (rsync -c), so that ninja rebuilds only what the series touches.
		if [ "$(cut -d' ' -f1 "$out/src/.pvsmm-stamp" 2>/dev/null)" != "$version" ]; then
			rm -rf "$out"
		fi
		new=$out/src.new
		rm -rf "$new"
		mkdir -p "$out"
		echo "  EXTRACT qemu $version ($suite, Debian's patches applied)"
		extract "$dl/qemu_$v.dsc" "$new"
		rm -f "$new/.pvsmm-stamp"
		mkdir -p "$out/src"
		rsync -rlpc --delete --exclude=/.pvsmm-stamp "$new/" "$out/src/"
		rm -rf "$new"
		echo "$stamp" >"$out/src/.pvsmm-stamp"
	fi
	[ $check_only = 1 ] && exit 0

	# Debian's own paths (debian/rules): the firmware of Debian's seabios,
	# qemu-system-data and ipxe-qemu, so that -machine q35 boots without
	# -L, wherever the binary lies.
	local config=(--prefix=/usr --sysconfdir=/etc --libexecdir=/usr/lib/qemu
		--localstatedir=/var --disable-relocatable
		--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu
		--disable-install-blobs --disable-download
		--target-list=x86_64-softmmu --enable-tcg --enable-kvm
		--disable-docs --disable-werror)
	# Configured afresh when these options change, not only when the
	# tree does.
	if [ ! -e "$out/obj/build.ninja" ] ||
	   [ "$(cat "$out/obj/.pvsmm-config" 2>/dev/null)" != "${config[*]}" ]; then
		echo "  CONFIG  qemu-system-x86_64 (TCG and KVM, default features)"
		rm -rf "$out/obj"
		mkdir -p "$out/obj"
		(cd "$out/obj" && "$out/src/configure" "${config[@]}" \
			>config.out 2>&1) || { tail -n 30 "$out/obj/config.out" >&2; exit 1; }
		echo "${config[*]}" >"$out/obj/.pvsmm-config"
	fi
	compile
	qtest
}

# The series' qtest (tests/qtest/pvsmm-test): no KVM under qtest, so it
# checks what qtest can (see its commit message).
qtest() {
	[ -e "$out/src/tests/qtest/pvsmm-test.c" ] || return 0
	echo "  NINJA   tests/qtest/pvsmm-test (-j$JOBS)"
	ninja -C "$out/obj" -j "$JOBS" tests/qtest/pvsmm-test >>"$out/obj/ninja.out" 2>&1 ||
		{ grep -B2 -A10 'error' "$out/obj/ninja.out" | head -n 60 >&2; exit 1; }
	echo "  QTEST   pvsmm-test"
	# The stripped binary outside the build tree: run from obj/, QEMU
	# looks for its firmware under obj/qemu-bundle/, not Debian's.
	(cd "$out/obj" && QTEST_QEMU_BINARY=$out/qemu-system-x86_64 \
		./tests/qtest/pvsmm-test --tap -k >"$out/pvsmm-test.tap" 2>&1) ||
		{ cat "$out/pvsmm-test.tap" >&2; die "pvsmm-test failed"; }
	grep -E '^(ok|not ok)' "$out/pvsmm-test.tap" | sed 's/^/          /'
}

if [ $lab = 1 ]; then
	build_lab
else
	build_full
fi
