// SPDX-License-Identifier: MIT
/*
 * The registration MSR in userspace (reflect-user mode).  An MSR filter
 * that denies PVSMM_MSR_REGISTER, plus KVM_MSR_EXIT_REASON_FILTER, turns
 * the guest's RDMSR/WRMSR of it into KVM_EXIT_X86_RDMSR/WRMSR; every other
 * MSR stays with KVM.  The registration is VM-wide: a write on any vCPU
 * replaces it for all.
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
	    ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_X86_MSR_FILTER) <= 0)
		vmm_die(EXIT_SETUP_ERROR,
			"--pmtimer=reflect-user needs KVM_CAP_X86_USER_SPACE_MSR and KVM_CAP_X86_MSR_FILTER; this KVM lacks them");

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
	int status = pvsmm_validate_descriptor(&copy, vm->ram_size,
					       vm->nr_vcpus);
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
	reg->valid = false;
	if (value & PVSMM_MSR_ENABLE)
		register_descriptor(vm, reg, value & PVSMM_MSR_GPA_MASK);
	pthread_mutex_unlock(&reg->lock);
}

bool registration_get(struct vm *vm, struct pvsmm_descriptor *out)
{
	struct registration *reg = &vm->reg;
	bool valid;

	pthread_mutex_lock(&reg->lock);
	valid = reg->valid;
	if (valid)
		*out = reg->desc;
	pthread_mutex_unlock(&reg->lock);
	return valid;
}
