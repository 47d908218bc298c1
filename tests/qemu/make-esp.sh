#!/bin/sh
# SPDX-License-Identifier: MIT
# Lays out the EFI system partitions of the OVMF runs of tests/qemu/ (QEMU
# serves each directory as a FAT disk), each with pvsmm.efi and a
# startup.nsh that the UEFI shell runs:
#   build/qemu/esp/          "load pvsmm.efi", then Debian's kernel (its EFI
#                            stub boots it) with the L2 initramfs
#   build/qemu/esp-driver/   "load pvsmm.efi", then OVMF's own PM timer reads
#                            (the shell's stall busy-waits on it) between two
#                            marks (mm: an OUT to the shim's marker port),
#                            then power off: no Linux
#   CALLS, PAIRS: as for l1-run.sh
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$("$top/tools/kver.sh")
marker=0xef8

esp=$top/build/qemu/esp
rm -rf "$esp"
mkdir -p "$esp"
cp "$top/build/firmware/pvsmm.efi" "$esp/pvsmm.efi"
cp "/boot/vmlinuz-$kver" "$esp/vmlinuz.efi"
cp "$top/build/qemu/l2.cpio.gz" "$esp/l2.gz"
printf '%s\r\n' "fs0:" "load pvsmm.efi" \
	"vmlinuz.efi initrd=\\l2.gz console=ttyS0 clocksource=acpi_pm loglevel=4 panic=-1 pmcheck_calls=${CALLS:-2000} pmcheck_pairs=${PAIRS:-2000} pmcheck_marker=$marker" \
	>"$esp/startup.nsh"

esp=$top/build/qemu/esp-driver
rm -rf "$esp"
mkdir -p "$esp"
cp "$top/build/firmware/pvsmm.efi" "$esp/pvsmm.efi"
printf '%s\r\n' "fs0:" "load pvsmm.efi" \
	"mm $marker 1 -w 4 -IO -n" "stall 100000" "mm $marker 2 -w 4 -IO -n" \
	"reset -s" >"$esp/startup.nsh"
