/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_REGISTRATION_H
#define PVSMM_REGISTRATION_H

#include "vmm.h"

/* reflect-user: route PVSMM_MSR_REGISTER accesses to userspace. */
void registration_setup_user(struct vm *vm);
void registration_handle_rdmsr(struct vcpu *v);
void registration_handle_wrmsr(struct vcpu *v);
/* Copies the current validated descriptor; false if none is registered. */
bool registration_get(struct vm *vm, struct pvsmm_descriptor *out);

#endif
