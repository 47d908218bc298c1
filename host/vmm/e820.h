/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_E820_H
#define PVSMM_E820_H

#include <stddef.h>
#include <stdint.h>
#include <asm/bootparam.h>	/* struct boot_e820_entry */

#define E820_TYPE_RAM		1
#define E820_TYPE_RESERVED	2

/*
 * The guest's memory map for a Linux boot: RAM [0, ram_size) with the
 * firmware's pages, the BIOS area (ACPI tables) and the firmware ROM
 * reserved.  Pure: the unit tests call it.  Returns the number of
 * entries (at most max), sorted and non-overlapping.
 */
size_t e820_build(uint64_t ram_size, struct boot_e820_entry *out, size_t max);

#endif
