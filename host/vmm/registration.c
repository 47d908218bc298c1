// SPDX-License-Identifier: MIT
/*
 * The registration MSR in userspace (reflect-user mode).  An MSR filter
 * that denies PVSMM_MSR_REGISTER, plus KVM_MSR_EXIT_REASON_FILTER, turns
 * the guest's RDMSR/WRMSR of it into KVM_EXIT_X86_RDMSR/WRMSR; every other
 * MSR stays with KVM.  The registration is VM-wide: a write on any vCPU
 * replaces it for all.
 *
 * It also owns what the window path put into guest page tables: every
 * PML4 entry it filled is recorded here and cleared again when the
 * registration ends (a new write, a disable after a handler fault), so
 * that nothing the host wrote outlives the registration that allowed it.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "registration.h"
#include "descriptor.h"
#include "guest_mem.h"

void registration_setup_user(struct vm *vm)
{
	if (ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_USER_SPACE_MSR) <= 0 ||
	    ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_MSR_FILTER) <= 0 ||
	    ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_SREGS2) <= 0)
		vmm_die(EXIT_SETUP_ERROR,
			"--pmtimer=reflect-user needs KVM_CAP_X86_USER_SPACE_MSR, KVM_CAP_X86_MSR_FILTER and KVM_CAP_SREGS2; this KVM lacks them");

	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0)
		vmm_die(EXIT_SETUP_ERROR,
			"KVM_ENABLE_CAP KVM_CAP_X86_USER_SPACE_MSR: %s",
			strerror(errno));

	/* One MSR, its bit clear: denied, so it exits to us. */
	static uint8_t deny_bitmap[1];
	struct kvm_msr_filter filter = {
		.flags = KVM_MSR_FILTER_DEFAULT_ALLOW,
		.ranges[0] = {
			.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
			.nmsrs = 1,
			.base = PVSMM_MSR_REGISTER,
			.bitmap = deny_bitmap,
		},
	};
	if (ioctl(vm->vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_X86_SET_MSR_FILTER: %s",
			strerror(errno));
}

void registration_handle_rdmsr(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	struct registration *reg = &v->vm->reg;

	if (run->msr.index != PVSMM_MSR_REGISTER) {
		run->msr.error = 1;	/* not ours: #GP like an unknown MSR */
		return;
	}
	pthread_mutex_lock(&reg->lock);
	run->msr.data = reg->msr_value;
	pthread_mutex_unlock(&reg->lock);
	run->msr.error = 0;
}

/*
 * Empties every PML4 entry the window path filled, if it still holds what
 * we wrote (the Accessed bit aside); the guest may have reused the slot
 * since, and then it is its entry, not ours.  Called with reg->lock held.
 */
static void clear_window_claims(struct vm *vm, struct registration *reg)
{
	uint64_t ours = reg->desc.window_pdpt | PVSMM_WINDOW_PTE_FLAGS;

	for (unsigned int i = 0; i < reg->nr_claims; i++) {
		uint64_t *entry = guest_ram_ptr(vm, reg->claims[i], 8);
		uint64_t seen = ours;

		if (!entry)
			continue;
		if (__atomic_compare_exchange_n(entry, &seen, 0, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			reg->claims_cleared++;
		else if ((seen & ~PVSMM_PTE_ACCESSED) == ours &&
			 __atomic_compare_exchange_n(entry, &seen, 0, false,
						     __ATOMIC_SEQ_CST,
						     __ATOMIC_SEQ_CST))
			reg->claims_cleared++;
	}
	reg->nr_claims = 0;
}

/* Ends the current registration, if any.  Called with reg->lock held. */
static void end_registration(struct vm *vm, struct registration *reg)
{
	if (reg->valid)
		clear_window_claims(vm, reg);
	reg->valid = false;
	reg->generation++;
}

/* Called with reg->lock held. */
static void register_descriptor(struct vm *vm, struct registration *reg,
				uint64_t gpa)
{
	struct pvsmm_descriptor copy;
	uint8_t *guest = guest_ram_ptr(vm, gpa, sizeof(copy));

	if (!guest) {
		/* Nowhere to write a status: the registration just fails. */
		vmm_warn("registration: descriptor GPA 0x%llx is not in RAM",
			 (unsigned long long)gpa);
		reg->rejected++;
		return;
	}

	/* Copy once; from here on only the copy is looked at. */
	memcpy(&copy, guest, sizeof(copy));
	struct pvsmm_guest_mem mem = { .ram = vm->ram, .size = vm->ram_size };
	uint64_t pae_pdptes[4];
	int status = pvsmm_validate_descriptor(&copy, &mem, vm->nr_vcpus,
					       pae_pdptes);
	uint32_t status32 = (uint32_t)status;
	memcpy(guest + offsetof(struct pvsmm_descriptor, status), &status32,
	       sizeof(status32));

	if (status != PVSMM_STATUS_OK) {
		vmm_warn("registration: descriptor at 0x%llx rejected, status %d",
			 (unsigned long long)gpa, status);
		reg->rejected++;
		return;
	}
	copy.status = PVSMM_STATUS_OK;
	reg->desc = copy;
	/* The PDPTEs as validated, not the PDPT again: another vCPU may
	 * have rewritten it since. */
	memcpy(reg->pae_pdptes, pae_pdptes, sizeof(reg->pae_pdptes));
	reg->valid = true;
}

void registration_handle_wrmsr(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	struct vm *vm = v->vm;
	struct registration *reg = &vm->reg;
	uint64_t value = run->msr.data;

	if (run->msr.index != PVSMM_MSR_REGISTER ||
	    (value & PVSMM_MSR_RESERVED_MASK)) {
		run->msr.error = 1;	/* #GP, the write has no effect */
		return;
	}
	run->msr.error = 0;

	pthread_mutex_lock(&reg->lock);
	reg->writes++;
	reg->msr_value = value;
	end_registration(vm, reg);
	if (value & PVSMM_MSR_ENABLE)
		register_descriptor(vm, reg, value & PVSMM_MSR_GPA_MASK);
	pthread_mutex_unlock(&reg->lock);
}

bool registration_get(struct vm *vm, struct registration_snapshot *out)
{
	struct registration *reg = &vm->reg;
	bool valid;

	pthread_mutex_lock(&reg->lock);
	valid = reg->valid;
	if (valid) {
		out->desc = reg->desc;
		out->generation = reg->generation;
		memcpy(out->pae_pdptes, reg->pae_pdptes, sizeof(out->pae_pdptes));
	}
	pthread_mutex_unlock(&reg->lock);
	return valid;
}

bool registration_claim_window(struct vm *vm, uint64_t generation,
			       uint64_t entry_gpa)
{
	struct registration *reg = &vm->reg;
	bool ok;

	pthread_mutex_lock(&reg->lock);
	ok = reg->valid && reg->generation == generation;
	for (unsigned int i = 0; ok && i < reg->nr_claims; i++)
		if (reg->claims[i] == entry_gpa)
			goto out;		/* already recorded */
	ok = ok && reg->nr_claims < MAX_WINDOW_CLAIMS;
	if (ok)
		reg->claims[reg->nr_claims++] = entry_gpa;
out:
	pthread_mutex_unlock(&reg->lock);
	return ok;
}

void registration_disable(struct vm *vm, uint64_t generation)
{
	struct registration *reg = &vm->reg;

	pthread_mutex_lock(&reg->lock);
	if (reg->valid && reg->generation == generation) {
		uint64_t gpa = reg->msr_value & PVSMM_MSR_GPA_MASK;
		uint8_t *guest = guest_ram_ptr(vm, gpa,
					       sizeof(struct pvsmm_descriptor));
		uint32_t status = PVSMM_STATUS_DISABLED;

		end_registration(vm, reg);
		reg->disabled++;
		if (guest)
			memcpy(guest + offsetof(struct pvsmm_descriptor, status),
			       &status, sizeof(status));
	}
	pthread_mutex_unlock(&reg->lock);
}
