// SPDX-License-Identifier: MIT
/*
 * The e820 map handed to a Linux guest.  Everything the firmware keeps
 * using after the hand-over is reserved, so the kernel never allocates it:
 * the bootinfo page, the firmware's stacks, boot page tables, kvmclock and
 * shared pages and the private region (descriptor, window tables, handler,
 * per-vCPU save areas and stacks), the BIOS area with the ACPI tables, and
 * the ROM.  The boot_params page and the command line stay RAM: the kernel
 * copies both before it allocates anything.
 */
#include "e820.h"
#include "pvsmm/abi.h"
#include "pvsmm/layout.h"

/* KVM_SET_TSS_ADDR's three pages and the identity-map page below them
 * (vm.c): only used on Intel without unrestricted guest, reserved anyway. */
#define KVM_PRIVATE_GPA		0xfffbc000ull
#define KVM_PRIVATE_SIZE	0x4000ull

static size_t add(struct boot_e820_entry *out, size_t n, size_t max,
		  uint64_t start, uint64_t end, uint32_t type)
{
	if (start >= end || n >= max)
		return n;
	out[n].addr = start;
	out[n].size = end - start;
	out[n].type = type;
	return n + 1;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

size_t e820_build(uint64_t ram_size, struct boot_e820_entry *out, size_t max)
{
	const uint64_t fw_start = PVSMM_FW_STACKS_GPA;
	const uint64_t fw_end = PVSMM_FW_PRIVATE_GPA + PVSMM_FW_PRIVATE_SIZE;
	const uint64_t low_end = 0x100000;
	size_t n = 0;

	_Static_assert(PVSMM_BOOTINFO_GPA + PVSMM_PAGE_SIZE <= PVSMM_FW_STACKS_GPA,
		       "bootinfo inside the firmware's pages");
	_Static_assert(PVSMM_FW_PRIVATE_GPA + PVSMM_FW_PRIVATE_SIZE <=
		       PVSMM_BIOS_AREA_GPA, "firmware pages reach the BIOS area");

	n = add(out, n, max, 0, min_u64(PVSMM_BOOTINFO_GPA, ram_size),
		E820_TYPE_RAM);
	n = add(out, n, max, PVSMM_BOOTINFO_GPA,
		PVSMM_BOOTINFO_GPA + PVSMM_PAGE_SIZE, E820_TYPE_RESERVED);
	n = add(out, n, max, PVSMM_BOOTINFO_GPA + PVSMM_PAGE_SIZE,
		min_u64(fw_start, ram_size), E820_TYPE_RAM);
	n = add(out, n, max, fw_start, fw_end, E820_TYPE_RESERVED);
	/* 0xa0000-0xe0000: the legacy VGA window, a hole in the map. */
	n = add(out, n, max, PVSMM_BIOS_AREA_GPA, low_end, E820_TYPE_RESERVED);
	n = add(out, n, max, low_end, ram_size, E820_TYPE_RAM);
	n = add(out, n, max, KVM_PRIVATE_GPA, KVM_PRIVATE_GPA + KVM_PRIVATE_SIZE,
		E820_TYPE_RESERVED);
	n = add(out, n, max, PVSMM_FW_ROM_GPA,
		(uint64_t)PVSMM_FW_ROM_GPA + PVSMM_FW_ROM_SIZE,
		E820_TYPE_RESERVED);
	return n;
}
