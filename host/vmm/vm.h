/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_VM_H
#define PVSMM_VM_H

#include "vmm.h"

/* Reads the firmware image; exits with EXIT_SETUP_ERROR on any problem. */
void vm_load_firmware(const char *path, uint8_t *image /* ROM_SIZE */);

/*
 * Opens /dev/kvm, checks capabilities, creates the VM, irqchip, PIT, RAM
 * and ROM memslots, bootinfo and the mode's KVM capabilities.  Every
 * failure is fatal with EXIT_SETUP_ERROR.
 */
void vm_create(struct vm *vm, const struct vmm_options *opts,
	       const uint8_t *firmware);

#endif
