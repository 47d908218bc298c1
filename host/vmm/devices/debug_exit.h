/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_DEBUG_EXIT_H
#define PVSMM_DEBUG_EXIT_H

#include "vmm.h"

/* OUT to PVSMM_DEBUG_EXIT_PORT: stop the VM, exit 0 if value is 0 else 1. */
void debug_exit_write(struct vcpu *v, uint32_t value);

#endif
