#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the L2 guest of tests/qemu/ into build/qemu/: l2.cpio.gz (static
# busybox as /bin, guest/init.sh as /init, pmcheck, and pmprobe.ko built
# against the installed headers) -- Debian's amd64 kernel itself is used
# as it is (/boot/vmlinuz-<kver>).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/qemu
CC=${CC:-cc}
mkdir -p "$out"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
cp /bin/busybox "$root/bin/busybox"
$CC -std=c11 -Wall -Wextra -Werror -O2 -static -D_GNU_SOURCE \
	-o "$root/bin/pmcheck" "$top/tests/qemu/guest/pmcheck.c"
kver=$("$top/tools/kver.sh")
mod=$(mktemp -d)
cp "$top"/tests/qemu/guest/pmprobe/* "$mod/"
make -s -C "/lib/modules/$kver/build" M="$mod" modules >/dev/null
cp "$mod/pmprobe.ko" "$root/pmprobe.ko"
rm -rf "$mod"
cp "$top/tests/qemu/guest/init.sh" "$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) >"$out/l2.cpio.gz.tmp"
mv "$out/l2.cpio.gz.tmp" "$out/l2.cpio.gz"
