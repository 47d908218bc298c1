// SPDX-License-Identifier: MIT
/*
 * The pvsmm CPUID leaf (Documentation/virt/kvm/x86/cpuid.rst of the patch
 * series): KVM never fills it in, userspace describes the feature.  QEMU
 * does not know it, so the shim adds it to every vCPU's KVM_SET_CPUID2,
 * identically each time (KVM refuses a different CPUID once a vCPU ran).
 *
 * The leaf goes at the base of KVM's own leaves + 0x80: 0x40000080, or
 * 0x40000180 when QEMU puts Hyper-V's interface first (hv-* options).  The
 * base leaf's EAX (the highest leaf of that range) is raised to cover it,
 * so a guest that checks the range before probing finds it too.  No KVM
 * signature (e.g. -cpu ...,kvm=off) means no leaf: the guest would not
 * look for it anyway.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pvsmm/abi.h>

#include "config.h"
#include "cpuid_leaf.h"
#include "log.h"

#define KVM_SIG_EBX	0x4b4d564b	/* "KVMK" */
#define KVM_SIG_ECX	0x564b4d56	/* "VMKV" */
#define KVM_SIG_EDX	0x0000004d	/* "M\0\0\0" */

static struct kvm_cpuid_entry2 *find(struct kvm_cpuid2 *c, uint32_t fn)
{
	for (uint32_t i = 0; i < c->nent; i++)
		if (c->entries[i].function == fn && c->entries[i].index == 0)
			return &c->entries[i];
	return NULL;
}

struct kvm_cpuid2 *cpuid_with_pvsmm_leaf(const struct kvm_cpuid2 *in)
{
	static int logged;
	size_t size = sizeof(*in) + (in->nent + 1) * sizeof(in->entries[0]);
	struct kvm_cpuid_entry2 *base = NULL, *leaf;
	struct kvm_cpuid2 *out;
	uint32_t fn;

	if (in->nent >= KVM_MAX_CPUID_ENTRIES) {
		shim_log("QEMU's CPUID table is full: pvsmm leaf not added");
		return NULL;
	}
	out = malloc(size);
	if (!out) {
		shim_log("out of memory: pvsmm CPUID leaf not added");
		return NULL;
	}
	memcpy(out, in, size - sizeof(in->entries[0]));

	for (fn = 0x40000000; fn <= 0x40000100; fn += 0x100) {
		base = find(out, fn);
		if (base && base->ebx == KVM_SIG_EBX && base->ecx == KVM_SIG_ECX &&
		    base->edx == KVM_SIG_EDX)
			break;
		base = NULL;
	}
	if (!base) {
		if (!logged++)
			shim_log("QEMU's CPUID has no KVM signature leaf (kvm=off?): "
				 "pvsmm leaf not added, the guest will not register");
		free(out);
		return NULL;
	}
	fn = base->function + PVSMM_CPUID_LEAF_OFFSET;
	if (base->eax < fn)
		base->eax = fn;

	leaf = find(out, fn);
	if (!leaf)
		leaf = &out->entries[out->nent++];
	memset(leaf, 0, sizeof(*leaf));
	leaf->function = fn;
	leaf->eax = PVSMM_CPUID_SIGNATURE;
	leaf->ebx = PVSMM_FEATURE_REGISTER;
	if (shim_cfg.cap_flags & PVSMM_CAP_WINDOW)
		leaf->ebx |= PVSMM_FEATURE_WINDOW;
	leaf->ecx = PVSMM_MSR_REGISTER;
	leaf->edx = PVSMM_ABI_VERSION;

	if (!logged++)
		shim_log("CPUID leaf 0x%x added (signature PVSM, MSR 0x%x)",
			 fn, PVSMM_MSR_REGISTER);
	return out;
}
