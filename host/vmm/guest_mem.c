// SPDX-License-Identifier: MIT
/* Guest-physical memory as the VMM sees it: RAM from 0, the firmware ROM. */
#include <string.h>

#include "guest_mem.h"

void *guest_ram_ptr(struct vm *vm, uint64_t gpa, uint64_t len)
{
	if (gpa >= vm->ram_size || len > vm->ram_size - gpa)
		return NULL;
	return vm->ram + gpa;
}

bool guest_read_phys(struct vm *vm, uint64_t gpa, void *buf, size_t len)
{
	const void *src = guest_ram_ptr(vm, gpa, len);

	if (!src && gpa >= PVSMM_FW_ROM_GPA) {
		uint64_t off = gpa - PVSMM_FW_ROM_GPA;

		if (off < PVSMM_FW_ROM_SIZE && len <= PVSMM_FW_ROM_SIZE - off)
			src = vm->rom + off;
	}
	if (!src)
		return false;
	memcpy(buf, src, len);
	return true;
}
