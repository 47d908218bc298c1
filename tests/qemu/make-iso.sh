#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds build/qemu/l2.iso: GRUB (BIOS), Debian's kernel and the L2
# initramfs, for the SeaBIOS runs of tests/qemu/ with pvsmm.rom (a hybrid
# image: l1-run.sh attaches it as a virtio disk).
# They boot the way production guests do, from a disk with a boot loader
# that places the initrd by the E820 map; the accel modes keep QEMU's
# -kernel/-initrd, so that both ways are covered.
#   CALLS, PAIRS: as for l1-run.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/tools/kver.sh")
marker=0xef8
out=$top/build/qemu

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/boot/grub"
cp "/boot/vmlinuz-$kver" "$root/vmlinuz"
cp "$out/l2.cpio.gz" "$root/l2.gz"
cat >"$root/boot/grub/grub.cfg" <<CFG
set timeout=0
menuentry l2 {
	linux /vmlinuz console=ttyS0 clocksource=acpi_pm loglevel=4 panic=-1 pmcheck_calls=${CALLS:-2000} pmcheck_pairs=${PAIRS:-2000} pmcheck_marker=$marker
	initrd /l2.gz
}
CFG
grub-mkrescue -o "$out/l2.iso.tmp" "$root" >"$out/grub-mkrescue.log" 2>&1 ||
	{ cat "$out/grub-mkrescue.log" >&2; exit 1; }
mv "$out/l2.iso.tmp" "$out/l2.iso"
