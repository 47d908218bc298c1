/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_VCPU_DUMP_H
#define PVSMM_VCPU_DUMP_H

#include "vmm.h"

/* Prints registers and segments to stderr (for fatal exits). */
void vcpu_dump_state(struct vcpu *v);

#endif
