#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""firmware/uefi/efirom.py, the PCI option ROM around the UEFI driver:
the fields a UEFI firmware reads (edk2's PciBusDxe: LoadOpRomImage,
ProcessOpRomImage, LocalLoadFile2) hold for the drivers it must run, and
what the firmware would skip (an application, another machine, a PE32, no
PE at all) is refused with a message instead of becoming a ROM.
Synthetic PE headers: no gnu-efi needed.  Usage: test_efirom.py
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "pylib"))
sys.path.insert(0, os.path.join(TOP, "firmware", "uefi"))
import efirom  # noqa: E402
from pvsmmlab import checker  # noqa: E402


def pe_image(machine=0x8664, subsystem=12, magic=0x20B, size=5000):
    """A PE32+ image good enough for what efirom reads: headers in the
    first 0x200 bytes, one section holding the rest."""
    img = bytearray(size)
    img[0:2] = b"MZ"
    pe = 0x80
    struct.pack_into("<I", img, 0x3C, pe)
    img[pe:pe + 4] = b"PE\0\0"
    struct.pack_into("<HH", img, pe + 4, machine, 1)
    struct.pack_into("<H", img, pe + 0x14, 0xF0)       # SizeOfOptionalHeader
    struct.pack_into("<H", img, pe + 0x18, magic)
    struct.pack_into("<H", img, pe + 0x18 + 0x44, subsystem)
    struct.pack_into("<I", img, pe + 0x18 + 0x3C, 0x200)  # SizeOfHeaders
    section = pe + 0x18 + 0xF0
    img[section:section + 5] = b".text"
    struct.pack_into("<II", img, section + 16, size - 0x200, 0x200)
    for i in range(0x200, size):
        img[i] = i * 7 & 0xFF
    return bytes(img)


def u16(rom, off):
    return struct.unpack_from("<H", rom, off)[0]


def refused(c, name, image):
    try:
        efirom.build(image, 0x1AF4, 0x1005)
    except efirom.RomError as e:
        c.check("efirom", "%s refused: %s" % (name, e), True)
        return
    c.check("efirom", "%s refused" % name, False)


def main():
    c = checker.Checker()
    for subsystem in (11, 12):
        img = pe_image(subsystem=subsystem)
        rom = efirom.build(img, 0x1AF4, 0x1005)
        f = efirom.parse(rom)
        c.check("efirom", "subsystem %d: %d bytes, whole 512-byte blocks"
                % (subsystem, len(rom)),
                len(rom) % 512 == 0 and len(rom) >= 0x200 + len(img))
        c.check("efirom", "subsystem %d: 0xAA55 and the EFI signature 0x0EF1" % subsystem,
                f["signature"] == 0xAA55 and f["efi_signature"] == 0x0EF1)
        c.check("efirom", "subsystem %d: the PE's subsystem and machine, "
                "uncompressed" % subsystem,
                f["subsystem"] == subsystem and f["machine"] == 0x8664 and
                f["compression"] == 0)
        c.check("efirom", "subsystem %d: a PCI 3.0 data structure, "
                "dword aligned" % subsystem,
                f["pcir_offset"] % 4 == 0 and f["pcir_signature"] == b"PCIR" and
                f["pcir_length"] == 0x1C and f["pcir_revision"] == 3)
        c.check("efirom", "subsystem %d: code type EFI, the last image" % subsystem,
                f["code_type"] == 3 and f["indicator"] & 0x80)
        # edk2 runs the image only if InitializationSize <= ImageLength
        # and the PE starts inside the initialized part.
        c.check("efirom", "subsystem %d: image and initialization sizes "
                "as edk2 wants" % subsystem,
                f["blocks"] * 512 == len(rom) and
                f["init_blocks"] <= f["blocks"] and
                f["image_offset"] < f["init_blocks"] * 512)
        end = f["image_offset"] + len(img)
        c.check("efirom", "subsystem %d: the PE unchanged inside the initialized part, "
                "zeros after it" % subsystem,
                rom[f["image_offset"]:end] == img and
                end <= f["init_blocks"] * 512 and not any(rom[end:]))
        # The same at the offsets the specifications give, not through
        # efirom's own structures (a layout error would hide in both).
        c.check("efirom", "subsystem %d: the raw bytes at the spec's offsets"
                % subsystem,
                rom[0:2] == b"\x55\xaa" and rom[4:8] == b"\xf1\x0e\0\0" and
                u16(rom, 2) * 512 == len(rom) and
                u16(rom, 8) == subsystem and u16(rom, 0xA) == 0x8664 and
                u16(rom, 0xC) == 0 and u16(rom, 0x16) == 0x200 and
                u16(rom, 0x18) == 0x1C and rom[0x1C:0x20] == b"PCIR" and
                u16(rom, 0x1C + 0x0A) == 0x1C and rom[0x1C + 0x0C] == 3 and
                u16(rom, 0x1C + 0x10) * 512 == len(rom) and
                rom[0x1C + 0x14] == 3 and rom[0x1C + 0x15] == 0x80 and
                rom[0x200:0x200 + len(img)] == img)
        c.check("efirom", "subsystem %d: the PCIR's vendor and device" % subsystem,
                (f["vendor"], f["device"]) == (0x1AF4, 0x1005))

    refused(c, "an EFI application", pe_image(subsystem=10))
    refused(c, "an i386 image", pe_image(machine=0x14C))
    refused(c, "a PE32 (not PE32+) image", pe_image(magic=0x10B))
    refused(c, "a legacy option ROM", b"\x55\xaa" + bytes(1022))
    refused(c, "a truncated PE (headers)", pe_image()[:0x90])
    refused(c, "a truncated PE (its section)", pe_image()[:4000])
    refused(c, "an image beyond 65535 blocks", pe_image(size=0xFFFF * 512))

    # The command line: a missing file is one clear line and status 1.
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.rom")
        p = subprocess.run([sys.executable, os.path.join(TOP, "firmware", "uefi",
                                                         "efirom.py"),
                            os.path.join(tmp, "missing.efi"), out],
                           capture_output=True, text=True)
        c.check("efirom", "a missing driver: status 1, named, no ROM written",
                p.returncode == 1 and "missing.efi" in p.stderr and
                not os.path.exists(out))
    sys.exit(c.report("efirom"))


if __name__ == "__main__":
    main()
