// SPDX-License-Identifier: MIT
/* The guest's CPUID: what KVM supports, plus per-vCPU and pvsmm leaves. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <asm/kvm_para.h>

#include "cpuid.h"

#define EXTRA_ENTRIES	4	/* room for leaves we may add */
#define CPUID_1_ECX_VMX		(1u << 5)
#define CPUID_1_ECX_HYPERVISOR	(1u << 31)
#define CPUID_80000001_ECX_SVM	(1u << 2)

void cpuid_init(struct vm *vm)
{
	for (unsigned int nent = 64; nent <= 4096; nent *= 2) {
		struct kvm_cpuid2 *c = calloc(1, sizeof(*c) +
			(nent + EXTRA_ENTRIES) * sizeof(c->entries[0]));

		if (!c)
			vmm_die(EXIT_SETUP_ERROR, "out of memory");
		c->nent = nent;
		if (ioctl(vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, c) == 0) {
			vm->supported_cpuid = c;
			return;
		}
		free(c);
		if (errno != E2BIG)
			break;
	}
	vmm_die(EXIT_SETUP_ERROR, "KVM_GET_SUPPORTED_CPUID: %s",
		strerror(errno));
}

static struct kvm_cpuid_entry2 *find_leaf(struct kvm_cpuid2 *c, uint32_t fn)
{
	for (uint32_t i = 0; i < c->nent; i++)
		if (c->entries[i].function == fn)
			return &c->entries[i];
	return NULL;
}

static void remove_leaf(struct kvm_cpuid2 *c, uint32_t fn)
{
	uint32_t out = 0;

	for (uint32_t i = 0; i < c->nent; i++)
		if (c->entries[i].function != fn)
			c->entries[out++] = c->entries[i];
	c->nent = out;
}

/* Appends a leaf; the caller allocated EXTRA_ENTRIES spare entries. */
static struct kvm_cpuid_entry2 *add_leaf(struct kvm_cpuid2 *c, uint32_t fn)
{
	struct kvm_cpuid_entry2 *e = &c->entries[c->nent++];

	memset(e, 0, sizeof(*e));
	e->function = fn;
	return e;
}

/* KVM reports its own leaves; add them only if an old KVM does not. */
static void ensure_kvm_leaves(struct kvm_cpuid2 *c)
{
	if (!find_leaf(c, KVM_CPUID_SIGNATURE)) {
		struct kvm_cpuid_entry2 *e = add_leaf(c, KVM_CPUID_SIGNATURE);

		e->eax = KVM_CPUID_FEATURES;
		memcpy(&e->ebx, "KVMK", 4);
		memcpy(&e->ecx, "VMKV", 4);
		memcpy(&e->edx, "M\0\0\0", 4);
	}
	if (!find_leaf(c, KVM_CPUID_FEATURES)) {
		struct kvm_cpuid_entry2 *e = add_leaf(c, KVM_CPUID_FEATURES);

		e->eax = (1u << KVM_FEATURE_CLOCKSOURCE) |
			 (1u << KVM_FEATURE_CLOCKSOURCE2) |
			 (1u << KVM_FEATURE_CLOCKSOURCE_STABLE_BIT);
	}
}

void cpuid_setup_vcpu(struct vcpu *v)
{
	const struct kvm_cpuid2 *sup = v->vm->supported_cpuid;
	size_t bytes = sizeof(*sup) +
		       (sup->nent + EXTRA_ENTRIES) * sizeof(sup->entries[0]);
	struct kvm_cpuid2 *c = malloc(bytes);
	enum pmtimer_mode mode = v->vm->opts->mode;

	if (!c)
		vmm_die(EXIT_SETUP_ERROR, "out of memory");
	memcpy(c, sup, sizeof(*sup) + sup->nent * sizeof(sup->entries[0]));

	for (uint32_t i = 0; i < c->nent; i++) {
		struct kvm_cpuid_entry2 *e = &c->entries[i];

		switch (e->function) {
		case 0x1:	/* EBX[31:24]: initial APIC ID */
			e->ebx = (e->ebx & 0x00ffffffu) | (v->index << 24);
			/*
			 * ECX[31]: "running under a hypervisor".  KVM leaves it
			 * to the VMM; without it a kernel never looks at the
			 * KVM leaves, so it has no kvmclock -- and then the
			 * vCPUs it starts have none that a reflection could
			 * copy into the save area.
			 */
			e->ecx |= CPUID_1_ECX_HYPERVISOR;
			/*
			 * No nested virtualization: a guest's own guest could
			 * otherwise reach our PM timer with its state in the
			 * vCPU (abi.h: nested guests are not reflected, and
			 * reflect-user could not tell them apart).
			 */
			e->ecx &= ~CPUID_1_ECX_VMX;
			break;
		case 0x80000001:
			e->ecx &= ~CPUID_80000001_ECX_SVM;
			break;
		case 0xb:	/* x2APIC topology: EDX = x2APIC ID */
		case 0x1f:
			e->edx = v->index;
			break;
		}
	}

	ensure_kvm_leaves(c);

	remove_leaf(c, PVSMM_CPUID_LEAF);
	if (mode == PMTIMER_REFLECT_USER || mode == PMTIMER_REFLECT) {
		struct kvm_cpuid_entry2 *e = add_leaf(c, PVSMM_CPUID_LEAF);

		e->eax = PVSMM_CPUID_SIGNATURE;
		e->ebx = PVSMM_FEATURE_REGISTER;
		if (v->vm->opts->window)
			e->ebx |= PVSMM_FEATURE_WINDOW;
		e->ecx = PVSMM_MSR_REGISTER;
		e->edx = PVSMM_ABI_VERSION;
	}

	if (ioctl(v->fd, KVM_SET_CPUID2, c) < 0)
		vmm_die(EXIT_SETUP_ERROR, "vCPU %u: KVM_SET_CPUID2: %s",
			v->index, strerror(errno));
	free(c);
}
