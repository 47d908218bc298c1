#!/bin/sh
# SPDX-License-Identifier: MIT
# Lays out build/qemu/esp/, the EFI system partition of the OVMF run of
# tests/qemu/ (QEMU serves the directory as a FAT disk): pvsmm.efi, Debian's
# kernel (its EFI stub boots it), the L2 initramfs and a startup.nsh that
# the UEFI shell runs: "load pvsmm.efi", then the kernel.
#   CALLS, PAIRS: as for l1-run.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
esp=$top/build/qemu/esp
kver=$("$top/tools/kver.sh")
rm -rf "$esp"
mkdir -p "$esp"
cp "$top/build/firmware/pvsmm.efi" "$esp/pvsmm.efi"
cp "/boot/vmlinuz-$kver" "$esp/vmlinuz.efi"
cp "$top/build/qemu/l2.cpio.gz" "$esp/l2.gz"
printf '%s\r\n' "fs0:" "load pvsmm.efi" \
	"vmlinuz.efi initrd=\\l2.gz console=ttyS0 clocksource=acpi_pm loglevel=4 panic=-1 pmcheck_calls=${CALLS:-2000} pmcheck_pairs=${PAIRS:-2000} pmcheck_marker=0xef8" \
	>"$esp/startup.nsh"
