/* SPDX-License-Identifier: MIT */
/*
 * When the VM-wide registration (PVSMM_MSR_REGISTER) must go.
 *
 * QEMU does not know the MSR, so it never saves, restores or clears it.
 * A registration surviving a system reset would point the next boot's
 * BIOS, which has not set up that memory yet, at a stale handler: the
 * shim clears it on a reset.  QEMU loads a vCPU's whole MSR list (the
 * one that has MSR_IA32_TSC) in three cases, which the shim tells apart
 * by what QEMU loaded just before (KVM_SET_REGS/SREGS come first):
 *  - system reset: every vCPU, the BSP included, at the reset vector
 *    (CS 0xf000 base 0xffff0000, RIP 0xfff0)           -> clear;
 *  - CPU hotplug: one new vCPU, never the BSP            -> keep;
 *  - incoming migration (and loadvm): the BSP, at the guest's own
 *    state, not the reset vector                         -> keep.
 * The registration is VM-wide: clearing it from a hotplugged vCPU (as
 * the shim once did on any full load) turned pvsmm off for the guest.
 */
#ifndef PVSMM_SHIM_RESET_MSR_H
#define PVSMM_SHIM_RESET_MSR_H

#include <stdbool.h>
#include <linux/kvm.h>

#define MSR_IA32_TSC	0x10

/* The MSR list is a whole-vCPU load (it sets MSR_IA32_TSC). */
bool msrs_load_whole_vcpu(const struct kvm_msrs *msrs);
/* This vCPU, its registers as QEMU just loaded them, is a reset BSP. */
bool vcpu_is_reset_bsp(int vcpu_id, const struct kvm_regs *regs,
		       const struct kvm_sregs *sregs);

#endif
