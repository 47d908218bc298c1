/* SPDX-License-Identifier: MIT */
/*
 * An independent statement of the rules for a pvsmm registration
 * descriptor (Documentation/virt/kvm/x86/msr.rst in the series): what
 * status KVM must write for a descriptor, given the guest's memory map and
 * the number of vCPUs.  Written from the documentation, in 128-bit
 * arithmetic, without looking at how the kernel computes it; the fuzzers
 * (fuzz-desc.c in userspace, kvm-robust-test.c in the lab) compare the
 * kernel's answer with this one case by case.
 */
#ifndef PVSMM_DESC_MODEL_H
#define PVSMM_DESC_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "pvsmm/abi.h"

struct model_slot {
	uint64_t gpa;		/* page aligned */
	uint64_t size;		/* bytes, page multiple */
	bool writable_ram;	/* a visible, writable RAM slot */
};

typedef unsigned __int128 u128;

/* Is the page at gpa inside a slot of ordinary writable RAM? */
static inline bool model_page_is_ram(const struct model_slot *s, int n,
				     u128 gpa)
{
	for (int i = 0; i < n; i++)
		if (gpa >= s[i].gpa && gpa + PVSMM_PAGE_SIZE <= (u128)s[i].gpa + s[i].size)
			return s[i].writable_ram;
	return false;
}

static inline bool model_range_is_ram(const struct model_slot *s, int n,
				      uint64_t gpa, uint64_t pages)
{
	if (gpa % PVSMM_PAGE_SIZE || gpa >= (1ull << 52))
		return false;
	for (uint64_t i = 0; i < pages; i++)
		if (!model_page_is_ram(s, n, (u128)gpa + (u128)i * PVSMM_PAGE_SIZE))
			return false;
	return true;
}

static inline bool model_in_window(uint64_t va, u128 len)
{
	return va >= PVSMM_WINDOW_BASE &&
	       (u128)va + len <= (u128)PVSMM_WINDOW_BASE + PVSMM_WINDOW_SIZE;
}

static inline uint32_t model_status(const struct pvsmm_descriptor *d,
				    const struct model_slot *s, int n,
				    uint32_t online_vcpus)
{
	if (d->magic != PVSMM_DESC_MAGIC)
		return PVSMM_STATUS_BAD_MAGIC;
	if (d->version != PVSMM_ABI_VERSION)
		return PVSMM_STATUS_BAD_VERSION;
	if (d->size != sizeof(struct pvsmm_descriptor))
		return PVSMM_STATUS_BAD_SIZE;
	if (d->flags != 0 || d->reserved != 0)
		return PVSMM_STATUS_BAD_FLAGS;
	if (d->nr_vcpus < 1 || d->nr_vcpus > PVSMM_MAX_VCPUS ||
	    d->nr_vcpus < online_vcpus)
		return PVSMM_STATUS_BAD_VCPUS;
	if (!model_range_is_ram(s, n, d->private_cr3, 1) ||
	    !model_range_is_ram(s, n, d->window_pdpt, 1) ||
	    !model_range_is_ram(s, n, d->percpu_gpa, d->nr_vcpus))
		return PVSMM_STATUS_BAD_GPA;
	if (d->handler_size < 1 || d->handler_size > PVSMM_MAX_HANDLER_SIZE ||
	    !model_in_window(d->handler_va, d->handler_size) ||
	    d->percpu_va % PVSMM_PAGE_SIZE ||
	    !model_in_window(d->percpu_va,
			     (u128)d->nr_vcpus * PVSMM_PERCPU_SIZE))
		return PVSMM_STATUS_BAD_VA;
	return PVSMM_STATUS_OK;
}

#endif
