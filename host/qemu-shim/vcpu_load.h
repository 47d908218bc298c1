/* SPDX-License-Identifier: MIT */
/*
 * What QEMU is doing when it loads a vCPU's whole state, and so what the
 * shim must do about the VM-wide registration (PVSMM_MSR_REGISTER) and
 * kvmclock, which QEMU does not know about.
 *
 * QEMU loads a vCPU's whole MSR list (the one that has MSR_IA32_TSC) in
 * three cases, which the shim tells apart by the registers QEMU loaded
 * just before it (KVM_SET_REGS/SREGS come first):
 *  - system reset: every vCPU, the BSP included, at the reset vector
 *    (CS 0xf000 base 0xffff0000, RIP 0xfff0).  A registration surviving
 *    it would point the next boot's BIOS, which has not set that memory
 *    up yet, at a stale handler: the shim clears it.
 *  - CPU hotplug: one new vCPU, never the BSP.  The registration is
 *    VM-wide and stays (the shim once cleared it on any whole load, which
 *    turned pvsmm off for the guest).
 *  - incoming migration (and loadvm): the BSP, at the guest's own state.
 *    The registration stays, and so does kvmclock: QEMU restored it with
 *    the guest, and the guest has been reading it (epoch.h).
 */
#ifndef PVSMM_SHIM_VCPU_LOAD_H
#define PVSMM_SHIM_VCPU_LOAD_H

#include <stdbool.h>
#include <linux/kvm.h>

#define MSR_IA32_TSC	0x10

enum vcpu_load {
	VCPU_LOAD_PARTIAL,	/* not a whole vCPU: nothing to do */
	VCPU_LOAD_RESET,	/* system reset: clear the registration */
	VCPU_LOAD_NEW_AP,	/* hotplug: keep it */
	VCPU_LOAD_INCOMING,	/* migration, loadvm: keep it, and kvmclock */
};

/* The MSR list is a whole-vCPU load (it sets MSR_IA32_TSC). */
bool msrs_load_whole_vcpu(const struct kvm_msrs *msrs);
/* What a whole-vCPU load of vcpu_id with these registers is. */
enum vcpu_load vcpu_load_kind(int vcpu_id, const struct kvm_regs *regs,
			      const struct kvm_sregs *sregs);

#endif
