#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Wraps an x86-64 EFI driver in a PCI expansion ROM image (PCI Firmware
Specification 3.0, UEFI 2.x section 14.4.2, "PCI Option ROMs"), so that
UEFI firmware loads and starts the driver by itself when it enumerates the
PCI device whose ROM BAR holds the image (QEMU: romfile= on the device).
What edk2's EfiRom tool does for an uncompressed image, in one script that
needs nothing beyond Python, with the checks that make a bad input an error
and not a ROM that the firmware silently skips.

Layout of the one image:
  0x00  EFI PCI expansion ROM header: 0xAA55, InitializationSize (512-byte
        units, the whole image), EFI signature 0x0EF1, the PE's subsystem
        and machine, no compression, EfiImageHeaderOffset, PcirOffset
  0x1c  PCI Data Structure ("PCIR", revision 3): vendor and device (only
        informative here: edk2 does not match them against the device, and
        QEMU patches IDs only into its own ROMs; SeaBIOS would match them
        for a legacy image, which this ROM has none of), code type 3 (EFI),
        the last-image indicator
  0x200 the PE image, unchanged; then zeros up to a multiple of 512 bytes

Usage: efirom.py [--vendor 0xVVVV] [--device 0xDDDD] DRIVER.efi OUT.rom
"""
import argparse
import struct
import sys

ROM_SIGNATURE = 0xAA55
EFI_SIGNATURE = 0x0EF1
PCIR_OFFSET = 0x1C
PCIR_LENGTH = 0x1C
PCIR_REVISION = 3             # PCI Firmware Specification 3.0
CODE_TYPE_EFI = 3
INDICATOR_LAST = 0x80
IMAGE_OFFSET = 0x200          # the PE starts a block of its own
MACHINE_X64 = 0x8664
SUBSYSTEM_BOOT_DRIVER = 11
SUBSYSTEM_RUNTIME_DRIVER = 12
MAX_BLOCKS = 0xFFFF           # ImageLength is 16 bits of 512-byte units

ROM_HEADER = struct.Struct("<HHIHHH8sHH")
PCIR = struct.Struct("<4sHHHHB3sHHBBHHH")


class RomError(Exception):
    pass


def pe_fields(image):
    """(machine, subsystem) of a PE32+ image; RomError if it is not one."""
    if len(image) < 0x40 or image[:2] != b"MZ":
        raise RomError("not a PE image (no MZ header)")
    pe = struct.unpack_from("<I", image, 0x3C)[0]
    if pe + 0x18 + 0x46 > len(image) or image[pe:pe + 4] != b"PE\0\0":
        raise RomError("not a PE image (no PE signature)")
    machine, nsections = struct.unpack_from("<HH", image, pe + 4)
    opt_size = struct.unpack_from("<H", image, pe + 0x14)[0]
    magic = struct.unpack_from("<H", image, pe + 0x18)[0]
    if magic != 0x20B:
        raise RomError("not a PE32+ image (optional header magic 0x%x)" % magic)
    if opt_size < 0x70:
        raise RomError("PE32+ optional header of %d bytes, too short" % opt_size)
    subsystem = struct.unpack_from("<H", image, pe + 0x18 + 0x44)[0]
    # The whole image must be here: a truncated one would be built into a
    # ROM that the firmware then refuses to load, without a word.
    headers = struct.unpack_from("<I", image, pe + 0x18 + 0x3C)[0]
    sections = pe + 0x18 + opt_size
    if headers > len(image) or sections + 40 * nsections > len(image):
        raise RomError("truncated PE image (headers)")
    for i in range(nsections):
        raw_size, raw_ptr = struct.unpack_from("<II", image, sections + 40 * i + 16)
        if raw_size and raw_ptr + raw_size > len(image):
            raise RomError("truncated PE image (section %d ends at %d of %d bytes)"
                           % (i, raw_ptr + raw_size, len(image)))
    return machine, subsystem


def build(image, vendor, device):
    """The ROM image (bytes) that carries the EFI driver IMAGE."""
    machine, subsystem = pe_fields(image)
    if machine != MACHINE_X64:
        raise RomError("machine 0x%x, want x86-64 (0x%x)" % (machine, MACHINE_X64))
    if subsystem not in (SUBSYSTEM_BOOT_DRIVER, SUBSYSTEM_RUNTIME_DRIVER):
        # The firmware skips applications and anything else it finds in
        # a ROM: refuse to build one that would never run.
        raise RomError("subsystem %d is not an EFI boot-service or runtime "
                       "driver (11 or 12)" % subsystem)
    size = IMAGE_OFFSET + len(image)
    blocks = (size + 511) // 512
    if blocks > MAX_BLOCKS:
        raise RomError("%d bytes do not fit a ROM image" % size)
    rom = bytearray(blocks * 512)
    ROM_HEADER.pack_into(rom, 0, ROM_SIGNATURE, blocks, EFI_SIGNATURE,
                         subsystem, machine, 0, bytes(8), IMAGE_OFFSET,
                         PCIR_OFFSET)
    PCIR.pack_into(rom, PCIR_OFFSET, b"PCIR", vendor, device, 0, PCIR_LENGTH,
                   PCIR_REVISION, bytes(3), blocks, 0, CODE_TYPE_EFI,
                   INDICATOR_LAST, 0, 0, 0)
    rom[IMAGE_OFFSET:IMAGE_OFFSET + len(image)] = image
    return bytes(rom)


def parse(rom):
    """The fields a UEFI firmware reads, as a dict (the tests' reader)."""
    (sig, init_blocks, efi_sig, subsystem, machine, compression, _,
     image_offset, pcir_offset) = ROM_HEADER.unpack_from(rom, 0)
    (pcir_sig, vendor, device, _, pcir_len, rev, _, blocks, _, code_type,
     indicator, _, _, _) = PCIR.unpack_from(rom, pcir_offset)
    return {"signature": sig, "init_blocks": init_blocks,
            "efi_signature": efi_sig, "subsystem": subsystem,
            "machine": machine, "compression": compression,
            "image_offset": image_offset, "pcir_offset": pcir_offset,
            "pcir_signature": pcir_sig, "vendor": vendor, "device": device,
            "pcir_length": pcir_len, "pcir_revision": rev,
            "blocks": blocks, "code_type": code_type,
            "indicator": indicator}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vendor", type=lambda s: int(s, 0), default=0x1AF4,
                    help="PCIR vendor ID (default 0x1af4, virtio)")
    ap.add_argument("--device", type=lambda s: int(s, 0), default=0x1005,
                    help="PCIR device ID (default 0x1005, virtio-rng)")
    ap.add_argument("driver")
    ap.add_argument("out")
    args = ap.parse_args()
    if not (0 <= args.vendor <= 0xFFFF and 0 <= args.device <= 0xFFFF):
        sys.exit("efirom: vendor and device IDs are 16 bits")
    try:
        with open(args.driver, "rb") as f:
            image = f.read()
        rom = build(image, args.vendor, args.device)
    except (OSError, RomError) as e:
        sys.exit("efirom: %s: %s" % (args.driver, e))
    try:
        with open(args.out, "wb") as f:
            f.write(rom)
    except OSError as e:
        sys.exit("efirom: %s: %s" % (args.out, e))


if __name__ == "__main__":
    main()
