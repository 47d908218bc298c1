#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the L2 guest of tests/qemu/ into build/qemu/: l2.cpio.gz (static
# busybox as /bin, guest/init.sh as /init, pmcheck, clockstep, and
# pmprobe.ko built against the installed headers) -- Debian's amd64 kernel
# itself is used as it is (/boot/vmlinuz-<kver>) -- and l2-kexec.cpio.gz,
# the same with /kexec: the kernel, l2.cpio.gz and the kexec program, for
# the mode that boots the guest's Linux a second time by kexec.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/qemu
CC=${CC:-cc}
mkdir -p "$out"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
cp /bin/busybox "$root/bin/busybox"
for prog in pmcheck clockstep kexec; do
	$CC -std=c11 -Wall -Wextra -Werror -O2 -static -D_GNU_SOURCE \
		-o "$root/bin/$prog" "$top/tests/qemu/guest/$prog.c"
done
kver=$("$top/tools/kver.sh")
mod=$(mktemp -d)
cp "$top"/tests/qemu/guest/pmprobe/* "$mod/"
make -s -C "/lib/modules/$kver/build" M="$mod" modules >/dev/null
cp "$mod/pmprobe.ko" "$root/pmprobe.ko"
rm -rf "$mod"
cp "$top/tests/qemu/guest/init.sh" "$root/init"
chmod +x "$root/init"
mkdir "$root/kexec"
mv "$root/bin/kexec" "$root/kexec/kexec"
(cd "$root" && find . ! -path './kexec*' | cpio -o -H newc --quiet |
	gzip -9) >"$out/l2.cpio.gz.tmp"
# Linux unpacks concatenated archives (an uncompressed one only at a
# 4-byte boundary, which a gzip member need not end on: both compressed).
cp "$out/l2.cpio.gz.tmp" "$root/kexec/initrd.gz"
cp "/boot/vmlinuz-$kver" "$root/kexec/vmlinuz"
{
	cat "$out/l2.cpio.gz.tmp"
	(cd "$root" && find kexec | cpio -o -H newc --quiet | gzip -1)
} >"$out/l2-kexec.cpio.gz.tmp"
mv "$out/l2.cpio.gz.tmp" "$out/l2.cpio.gz"
mv "$out/l2-kexec.cpio.gz.tmp" "$out/l2-kexec.cpio.gz"
