#!/bin/bash
# Builds the three L2 Linux guests of the real-guest comparison, from
# Debian packages only, into build/guest/ (nothing here is committed):
#
#   build/guest/amd64/{vmlinuz,initrd.gz}  Debian's amd64 kernel, the very
#                                          one the lab boots as L1
#   build/guest/i386/{vmlinuz,initrd.gz}   Debian's i386 686-pae kernel of
#                                          the same version where apt has it
#                                          (PAE paging)
#   build/guest/i686/{vmlinuz,initrd.gz}   the same for Debian's non-PAE 686
#                                          flavour (2-level paging), with
#                                          the i386 guest's very initramfs
#
# Each initramfs holds static busybox (of the guest's architecture), /init
# (init.sh) and gtod-bench built for that architecture.  The i386 packages
# (kernel image, busybox-static) are fetched with `apt-get download` and
# unpacked with dpkg-deb -x, never installed: busybox-static:i386 would
# replace the amd64 one the lab needs.  Downloads are kept in
# build/guest/debs and reused.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top/tests/guest
out=$top/build/guest
CC=${CC:-cc}
CFLAGS="-std=c11 -Wall -Wextra -Werror -O2"

die() { echo "build-guests: $*" >&2; exit 1; }

kver=$("$top/tools/kver.sh")		# e.g. 6.1.0-57-amd64
abi=${kver%-amd64}			# e.g. 6.1.0-57
img_ver=$(dpkg-query -W -f='${Version}' "linux-image-$kver")
dpkg --print-foreign-architectures | grep -qx i386 ||
	die "the i386 architecture is not enabled: run 'make deps'"

mkdir -p "$out/debs" "$out/amd64" "$out/i386" "$out/i686"

# fetch PACKAGE[=VERSION]: the .deb into build/guest/debs, unless there;
# prints its path, or fails (status 1) when apt cannot get it.
fetch() {
	local name=${1%%[:=]*}
	if ! ls "$out/debs/${name}_"*_i386.deb >/dev/null 2>&1; then
		echo "build-guests: downloading $1" >&2
		# apt-get download writes into the current directory.  Stale
		# package lists (a version gone from the mirror): update once.
		if ! (cd "$out/debs" && apt-get download -qq "$1" 2>/dev/null) &&
			[ "$(id -u)" = 0 ]; then
			# A mirror may serve one index that does not match its
			# Release file: apt says so and goes on without it.
			apt-get update -qq || true
			(cd "$out/debs" && apt-get download -qq "$1" 2>&1 |
				grep -v "unsandboxed as root" >&2 || true)
		fi
		ls "$out/debs/${name}_"*_i386.deb >/dev/null 2>&1 || return 1
	fi
	ls "$out/debs/${name}_"*_i386.deb | tail -n 1
}

# i386_kernel GUEST FLAVOUR: the i386 kernel package of that flavour
# (686-pae, 686): the L1 kernel's own version where the verified package
# lists have it.  Only bookworm-security carries the newest ABI, and when
# the mirror's i386 index of that suite fails its Release check apt drops
# the whole index: then the newest kernel of the flavour that the main
# suite's metapackage (linux-image-FLAVOUR) names.  The guest runs the
# same test either way; the version is printed and goes into the guest's
# own output (uname).
i386_kernel() {
	local guest=$1 flavour=$2 pkg=linux-image-$abi-$2 deb meta
	if deb=$(fetch "$pkg:i386=$img_ver"); then
		echo "$deb"
		return
	fi
	# Anchored at the flavour's end: "-686" must not take "-686-pae".
	meta=$(apt-cache depends --important "linux-image-$flavour:i386" 2>/dev/null |
		sed -n "s/^ *Depends: \(linux-image-[0-9][^: ]*-$flavour\)\(:.*\)\?\$/\1/p" | head -n 1)
	[ -n "$meta" ] || die "could not download $pkg:i386=$img_ver, and apt knows no linux-image-$flavour:i386 (apt-get update first?)"
	echo "build-guests: $pkg:i386=$img_ver is not in apt's lists; the $guest guest runs $meta instead" >&2
	fetch "$meta:i386" || die "could not download $meta:i386"
}

# unpack DEB FILE DEST: one file (FILE may be a pattern) out of a package,
# unless DEST already came from that very package (DEST.from says which:
# a fallback kernel is replaced once apt has the exact one again).
unpack() {
	local tmp
	[ -e "$3" ] && [ "$(cat "$3.from" 2>/dev/null)" = "$(basename "$1")" ] && return
	tmp=$(mktemp -d)
	dpkg-deb -x "$1" "$tmp"
	# shellcheck disable=SC2086 # $2 may be a pattern
	# Copied beside DEST and renamed: a cut-off copy is never taken for
	# the file DEST.from names.
	cp "$tmp"/$2 "$3.tmp" || { rm -rf "$tmp"; die "no single $2 in $1"; }
	rm -rf "$tmp"
	mv -f "$3.tmp" "$3"
	basename "$1" >"$3.from"
}

# Kernels and busybox.
cp "/boot/vmlinuz-$kver" "$out/amd64/vmlinuz"
cp /bin/busybox "$out/amd64/busybox"
deb=$(i386_kernel i386 686-pae)
unpack "$deb" "boot/vmlinuz-*-686-pae" "$out/i386/vmlinuz"
deb=$(i386_kernel i686 686)
unpack "$deb" "boot/vmlinuz-*-686" "$out/i686/vmlinuz"
deb=$(fetch busybox-static:i386) || die "could not download busybox-static:i386"
unpack "$deb" bin/busybox "$out/i386/busybox"

# gtod-bench, static, per architecture.
sources="$src/gtod-bench.c $src/mono.c $src/klog.c"
for arch in amd64 i386; do
	m=-m64
	[ $arch = i386 ] && m=-m32
	# shellcheck disable=SC2086
	$CC $CFLAGS $m -static -pthread -o "$out/$arch/gtod-bench" $sources
done
# ELF class (byte 4) 1 = 32-bit, e_machine (byte 18) 3 = i386.
[ "$(od -An -tu1 -j4 -N1 "$out/i386/gtod-bench" | tr -d ' ')" = 1 ] &&
	[ "$(od -An -tu1 -j18 -N1 "$out/i386/gtod-bench" | tr -d ' ')" = 3 ] ||
	die "i386 gtod-bench is not an i386 binary (gcc-multilib missing?)"

# The monotonicity detector must see a step back when one is injected
# (here, on the build machine's own clock: 1 ms back every 100th read).
"$out/amd64/gtod-bench" --calls 1 --settle-ms 0 --mono-iters 1000 \
	--inject-back-ns 1000000 --expect none | grep -q '"backwards_steps":[1-9]' ||
	die "gtod-bench did not detect an injected backwards step"

# The initramfs images.  Kernel's built-in initramfs supplies /dev/console.
for arch in amd64 i386; do
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,proc,sys,dev,tmp}
	cp "$out/$arch/busybox" "$out/$arch/gtod-bench" "$root/bin/"
	cp "$src/init.sh" "$root/init"
	chmod 755 "$root/init" "$root/bin/busybox" "$root/bin/gtod-bench"
	(cd "$root" && find . | cpio -o -H newc --quiet -R 0:0 | gzip -9) \
		>"$out/$arch/initrd.gz"
	rm -rf "$root"
done
# The non-PAE guest differs from the i386 one in its kernel alone.
cp "$out/i386/initrd.gz" "$out/i686/initrd.gz"
echo "build-guests: $(cd "$top" && ls build/guest/*/vmlinuz build/guest/*/initrd.gz | tr '\n' ' ')"
