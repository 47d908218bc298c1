/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_CPUID_H
#define PVSMM_CPUID_H

#include "vmm.h"

/* Fetches KVM_GET_SUPPORTED_CPUID once into vm->supported_cpuid. */
void cpuid_init(struct vm *vm);
/* KVM_SET_CPUID2 for one vCPU: its APIC ID, KVM leaves, pvsmm leaf. */
void cpuid_setup_vcpu(struct vcpu *v);

#endif
