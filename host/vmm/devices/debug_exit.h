/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_DEBUG_EXIT_H
#define PVSMM_DEBUG_EXIT_H

#include "vmm.h"

/*
 * PVSMM_DEBUG_EXIT_PORT: an OUT stops the VM, exit status 0 if the value
 * is 0, else 1 (with the vCPU's registers on stderr).  Write-only.
 */
void debug_exit_register(struct pio_table *t);

#endif
