/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SHIM_CPUID_LEAF_H
#define PVSMM_SHIM_CPUID_LEAF_H

#include <linux/kvm.h>

#define KVM_MAX_CPUID_ENTRIES	256	/* arch/x86/include/asm/kvm_host.h */

/*
 * QEMU's table plus the pvsmm leaf, or NULL (the log says why).  The
 * caller frees it.  in must be readable (user_copy.h).
 */
struct kvm_cpuid2 *cpuid_with_pvsmm_leaf(const struct kvm_cpuid2 *in);

#endif
