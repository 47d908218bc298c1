// SPDX-License-Identifier: MIT
/*
 * Descriptor validation for the registration MSR.  The checks run in the
 * order of the fields, so a descriptor with several faults always reports
 * the same (first) one.
 */
#include <stdbool.h>

#include "descriptor.h"

#define PAGE_MASK	((uint64_t)PVSMM_PAGE_SIZE - 1)

/* [gpa, gpa+len) is 4 KiB aligned and wholly inside RAM [0, ram_size). */
static bool gpa_range_ok(uint64_t gpa, uint64_t len, uint64_t ram_size)
{
	if (gpa & PAGE_MASK)
		return false;
	return gpa < ram_size && len <= ram_size - gpa;
}

/* [va, va+len) lies inside the window. */
static bool window_range_ok(uint64_t va, uint64_t len)
{
	if (va < PVSMM_WINDOW_BASE)
		return false;
	uint64_t off = va - PVSMM_WINDOW_BASE;
	return off < PVSMM_WINDOW_SIZE && len <= PVSMM_WINDOW_SIZE - off;
}

int pvsmm_validate_descriptor(const struct pvsmm_descriptor *d,
			      uint64_t ram_size, unsigned int online_vcpus)
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

	uint64_t percpu_len = (uint64_t)d->nr_vcpus * PVSMM_PERCPU_SIZE;

	if (!gpa_range_ok(d->private_cr3, PVSMM_PAGE_SIZE, ram_size) ||
	    !gpa_range_ok(d->window_pdpt, PVSMM_PAGE_SIZE, ram_size) ||
	    !gpa_range_ok(d->percpu_gpa, percpu_len, ram_size))
		return PVSMM_STATUS_BAD_GPA;

	if (d->handler_size < 1 || d->handler_size > PVSMM_MAX_HANDLER_SIZE ||
	    !window_range_ok(d->handler_va, d->handler_size))
		return PVSMM_STATUS_BAD_VA;
	/* The private stacks are computed from percpu_va: keep them aligned. */
	if ((d->percpu_va & PAGE_MASK) ||
	    !window_range_ok(d->percpu_va, percpu_len))
		return PVSMM_STATUS_BAD_VA;

	return PVSMM_STATUS_OK;
}
