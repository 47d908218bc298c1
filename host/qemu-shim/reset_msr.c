// SPDX-License-Identifier: MIT
#include "reset_msr.h"

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

bool vcpu_is_reset_bsp(int vcpu_id, const struct kvm_regs *regs,
		       const struct kvm_sregs *sregs)
{
	return vcpu_id == BSP_VCPU_ID && regs->rip == RESET_RIP &&
	       sregs->cs.selector == RESET_CS_SELECTOR &&
	       sregs->cs.base == RESET_CS_BASE;
}
