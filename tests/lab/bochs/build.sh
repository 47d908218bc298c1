#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Builds the Intel lab's own Bochs (the L0 of `run-in-lab.sh --cpu intel`)
# from Debian's source package, with tests/lab/bochs/*.patch on top:
# bochs only, no GUI, no debugger, no plugins.
#
#   tests/lab/bochs/build.sh [--check] [-j N]
#
#   --check   only fetch, extract and apply the patches (no compilation)
#
# Why not Debian's bochs binary (2.7, bookworm): its VMX keeps "blocking by
# virtual NMI" across VM exits and VMCS switches (see tests/lab/bochs/
# README.md); the fix is upstream commit bd51ec5f8 ("fixed SF #1456"),
# which Bochs 3.0 has.  The mirrors serve bookworm's 2.7 source package
# without its upstream tarball, so the lab builds trixie's 3.0 source
# package instead (BOCHS_SUITE, BOCHS_VERSION below).
#
# Outputs (relative to the repository root):
#   build/bochs-lab/bochs        the binary, stripped
#   build/bochs-lab/src/         the patched source tree
#   build/bochs-dl/              the source package
#
# The source package comes from the Debian mirror the machine's apt
# already uses, through tools/debsrc-fetch.sh: a private apt configuration
# under build/bochs-dl/apt/ (the system's own apt setup is untouched), each
# file checked against the SHA-256 in the signed Sources index.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
dl=$root/build/bochs-dl
out=$root/build/bochs-lab
suite=${BOCHS_SUITE:-trixie}
version=${BOCHS_VERSION:-3.0+dfsg-1}
JOBS=${JOBS:-2}
check_only=0

while [ $# -gt 0 ]; do
	case "$1" in
	--check) check_only=1 ;;
	-j) JOBS=$2; shift ;;
	-j*) JOBS=${1#-j} ;;
	-h|--help) sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "tests/lab/bochs/build.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "tests/lab/bochs/build.sh: $*" >&2; exit 1; }

for tool in g++ make patch xz; do
	command -v $tool >/dev/null || die "$tool missing: run 'make deps'"
done

shopt -s nullglob
patches=("$here"/*.patch)
shopt -u nullglob
upstream=${version%-*}
orig=bochs_${upstream}.orig.tar.xz
debian=bochs_${version}.debian.tar.xz
stamp="$version $(cat "$here/build.sh" "${patches[@]}" | sha256sum | cut -d' ' -f1)"

# The two tarballs (the mirrors lack the .dsc), each checked against the
# signed index.
fetch() {
	"$root/tools/debsrc-fetch.sh" "$suite" bochs "$version" "$dl" "$orig" "$debian" ||
		die "could not fetch bochs $version from $suite (BOCHS_SUITE, BOCHS_VERSION)"
}

if [ "$(cat "$out/src/.pvsmm-stamp" 2>/dev/null)" != "$stamp" ]; then
	if [ ! -e "$dl/$orig" ] || [ ! -e "$dl/$debian" ]; then fetch; fi
	rm -rf "$out"
	mkdir -p "$out/src"
	echo "  EXTRACT bochs $version"
	tar -xJf "$dl/$orig" -C "$out/src" --strip-components=1
	tar -xJf "$dl/$debian" -C "$out/src"
	# Debian's own patches first (paths and packaging), then ours.
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		patch -s -p1 -d "$out/src" <"$out/src/debian/patches/$p" ||
			die "Debian's patch $p does not apply"
	done <"$out/src/debian/patches/series"
	for p in "${patches[@]}"; do
		echo "  PATCH   $(basename "$p")"
		patch -s -p1 -d "$out/src" <"$p"
	done
	echo "$stamp" >"$out/src/.pvsmm-stamp"
fi
[ $check_only = 1 ] && exit 0

# What corei7_skylake_x needs (x86-64, VMX with EPT, AVX/AVX-512, PKU,
# MONITOR/MWAIT), the PC the lab boots (i440FX PCI with ACPI, ATAPI CD-ROM,
# serial port) and no more.  No SMP: L1 has one CPU, as in the QEMU lab.
if [ ! -e "$out/src/Makefile" ]; then
	# configure's cache file is /dev/null: were it a regular file,
	# configure would source it and write a broken config.status (seen
	# on a CI machine, as "0a1,200: command not found").
	[ -c /dev/null ] ||
		die "/dev/null is not a character device (something on this machine replaced it): as root, 'mknod -m 666 /dev/null.new c 1 3 && mv -f /dev/null.new /dev/null', then run again"
	echo "  CONFIG  bochs (VMX, x86-64, no GUI)"
	(cd "$out/src" && CFLAGS=-O2 CXXFLAGS=-O2 ./configure --with-nogui --disable-plugins \
		--disable-debugger --disable-docbook --disable-readline \
		--enable-x86-64 --enable-cpu-level=6 --enable-vmx=2 \
		--enable-avx --enable-evex --enable-protection-keys --enable-cet \
		--enable-memtype --enable-monitor-mwait --enable-a20-pin \
		--enable-pci --enable-cdrom --enable-fpu --enable-repeat-speedups \
		--enable-all-optimizations --disable-show-ips --disable-gameport \
		--disable-sb16 --disable-ne2000 --disable-usb \
		>config.out 2>&1) || { tail -n 30 "$out/src/config.out" >&2; exit 1; }
fi
echo "  MAKE    bochs (-j$JOBS)"
make -C "$out/src" -j "$JOBS" bochs >"$out/make.out" 2>&1 ||
	{ grep -B2 -A10 -E 'error|Error' "$out/make.out" | head -n 60 >&2; exit 1; }
strip -o "$out/bochs.tmp" "$out/src/bochs"
mv "$out/bochs.tmp" "$out/bochs"
echo "  DONE    ${out#"$root"/}/bochs"
