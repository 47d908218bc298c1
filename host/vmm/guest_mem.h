/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_GUEST_MEM_H
#define PVSMM_GUEST_MEM_H

#include "vmm.h"

/* Guest RAM access, NULL if [gpa, gpa+len) is not wholly in RAM. */
void *guest_ram_ptr(struct vm *vm, uint64_t gpa, uint64_t len);
/* Reads guest-physical memory, RAM or firmware ROM; false if unbacked. */
bool guest_read_phys(struct vm *vm, uint64_t gpa, void *buf, size_t len);

#endif
