/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_REGISTRATION_H
#define PVSMM_REGISTRATION_H

#include "vmm.h"

/* reflect-user: route PVSMM_MSR_REGISTER accesses to userspace. */
void registration_setup_user(struct vm *vm);
void registration_handle_rdmsr(struct vcpu *v);
void registration_handle_wrmsr(struct vcpu *v);
/* What the window path writes into a PML4 slot: present, writable,
 * supervisor; the CPU may add Accessed. */
#define PVSMM_WINDOW_PTE_FLAGS	0x3ull
#define PVSMM_PTE_ACCESSED	0x20ull

/* What a reflection needs of the current registration. */
struct registration_snapshot {
	struct pvsmm_descriptor desc;	/* the validated copy */
	uint64_t generation;
	uint64_t pae_pdptes[4];		/* the private PAE PDPT, as validated */
};

/* Copies the current registration; false if none is registered. */
bool registration_get(struct vm *vm, struct registration_snapshot *out);
/*
 * Records a PML4 entry (its GPA) that the window path filled for the
 * registration of this generation, to be cleared when it ends.  False if
 * that registration has ended or the record is full: the caller must then
 * empty the entry again itself.
 */
bool registration_claim_window(struct vm *vm, uint64_t generation,
			       uint64_t entry_gpa);
/*
 * The handler failed (a fault report from its stubs): end the
 * registration of this generation, clear its window entries and write
 * PVSMM_STATUS_DISABLED into the guest's descriptor.  Reads go to the
 * userspace device until the firmware registers again.
 */
void registration_disable(struct vm *vm, uint64_t generation);

#endif
