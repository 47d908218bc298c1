/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_VCPU_H
#define PVSMM_VCPU_H

#include "vmm.h"

void vcpus_create(struct vm *vm);
void vcpus_start(struct vm *vm);
void vcpus_join(struct vm *vm);
/* Makes every vCPU thread leave KVM_RUN and see vm->stopping. */
void vcpus_kick_all(struct vm *vm);
/* Prints registers and segments to stderr (for fatal exits). */
void vcpu_dump_state(struct vcpu *v);

#endif
