// SPDX-License-Identifier: MIT
#include <stdbool.h>

#include "vcpu_load.h"

#define RESET_CS_SELECTOR	0xf000
#define RESET_CS_BASE		0xffff0000ull
#define RESET_RIP		0xfff0
#define BSP_VCPU_ID		0	/* QEMU's vCPU id is the APIC ID */

bool msrs_load_whole_vcpu(const struct kvm_msrs *msrs)
{
	for (__u32 i = 0; i < msrs->nmsrs; i++)
		if (msrs->entries[i].index == MSR_IA32_TSC)
			return true;
	return false;
}

enum vcpu_load vcpu_load_kind(int vcpu_id, const struct kvm_regs *regs,
			      const struct kvm_sregs *sregs)
{
	bool at_reset = regs->rip == RESET_RIP &&
			sregs->cs.selector == RESET_CS_SELECTOR &&
			sregs->cs.base == RESET_CS_BASE;

	if (vcpu_id != BSP_VCPU_ID)
		return VCPU_LOAD_NEW_AP;
	return at_reset ? VCPU_LOAD_RESET : VCPU_LOAD_INCOMING;
}
