#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Finishes an option ROM image in place: the length byte at offset 2
(512-byte blocks) and the last byte, chosen so that all bytes sum to 0
modulo 256 (the BIOS checks both before it runs the ROM).

The assembler pads the image to a multiple of 512 bytes and reserves the
last byte; this script refuses anything else rather than repair it.

Usage: romsum.py IMAGE
"""
import sys


def main():
    path = sys.argv[1]
    rom = bytearray(open(path, "rb").read())
    if rom[:2] != b"\x55\xaa":
        sys.exit("%s: no 0x55AA signature" % path)
    if not rom or len(rom) % 512 or len(rom) > 255 * 512:
        sys.exit("%s: %d bytes, want a multiple of 512 up to %d"
                 % (path, len(rom), 255 * 512))
    if rom[-1] != 0:
        sys.exit("%s: the last byte (the checksum) is not reserved" % path)
    rom[2] = len(rom) // 512
    rom[-1] = (-sum(rom[:-1])) & 0xff
    assert sum(rom) & 0xff == 0
    open(path, "wb").write(rom)


if __name__ == "__main__":
    main()
