/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_VCPU_H
#define PVSMM_VCPU_H

#include "vmm.h"

void vcpus_create(struct vm *vm);
void vcpus_start(struct vm *vm);
void vcpus_join(struct vm *vm);

#endif
