/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_LINUX_LOAD_H
#define PVSMM_LINUX_LOAD_H

#include "vmm.h"

/*
 * Before any KVM setup: the kernel is a bzImage we can boot, the initrd
 * is readable.  Fatal with EXIT_SETUP_ERROR otherwise.
 */
void linux_check_files(const struct vmm_options *o);

/*
 * --kernel: loads the bzImage, initrd and command line into guest RAM,
 * writes the ACPI tables and the zero page, and tells the firmware (bi)
 * where to enter.  Any problem is fatal with EXIT_SETUP_ERROR.
 */
void linux_load(struct vm *vm, struct pvsmm_bootinfo *bi);

#endif
