/* SPDX-License-Identifier: MIT */
/*
 * Userspace stand-in for the parts of <linux/kvm_host.h> that
 * arch/x86/kvm/pvsmm_desc.h uses, so that the kernel's descriptor
 * validation compiles unchanged in host/kvm/tests/fuzz-desc.c: memslots,
 * and guest memory behind them for kvm_read_guest() (the private page
 * tables the validation walks).
 *
 * gfn_to_memslot() and kvm_is_visible_memslot() follow the kernel's
 * semantics (virt/kvm/kvm_main.c, include/linux/kvm_host.h in 6.1):
 * memslots never overlap; a lookup returns the slot holding the gfn or
 * NULL; slots with an id at or above KVM_USER_MEM_SLOTS are KVM's private
 * ones (APIC access page, TSS, identity map) and not visible, nor are
 * slots being deleted or moved (KVM_MEMSLOT_INVALID).  kvm_read_guest()
 * reads any page of a slot that is not being deleted or moved (a private
 * slot too, as __gfn_to_hva_many() does); pages the fuzzer never wrote
 * read as zeros.
 */
#ifndef PVSMM_SHIM_KVM_HOST_H
#define PVSMM_SHIM_KVM_HOST_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef u64 gfn_t;
typedef u64 gpa_t;

#define PAGE_SHIFT		12
#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#define KVM_MEM_READONLY	(1UL << 1)
#define KVM_MEMSLOT_INVALID	(1UL << 16)
#define KVM_INTERNAL_MEM_SLOTS	3	/* x86 */
#define KVM_USER_MEM_SLOTS	(SHRT_MAX - KVM_INTERNAL_MEM_SLOTS)

struct kvm_memory_slot {
	gfn_t base_gfn;
	unsigned long npages;
	u32 flags;
	short id;
};

#define SHIM_MAX_SLOTS 8
#define SHIM_MAX_PAGES 64

/* A guest page with contents; all others read as zeros. */
struct shim_page {
	gfn_t gfn;
	u8 data[1 << PAGE_SHIFT];
};

struct kvm {
	int nr_slots;
	struct kvm_memory_slot slots[SHIM_MAX_SLOTS];
	unsigned long lookups;		/* gfn_to_memslot() calls */
	int nr_pages;
	struct shim_page pages[SHIM_MAX_PAGES];
};

static inline gfn_t gpa_to_gfn(gpa_t gpa)
{
	return (gfn_t)(gpa >> PAGE_SHIFT);
}

static inline struct kvm_memory_slot *gfn_to_memslot(struct kvm *kvm,
						     gfn_t gfn)
{
	kvm->lookups++;
	for (int i = 0; i < kvm->nr_slots; i++) {
		struct kvm_memory_slot *s = &kvm->slots[i];

		if (gfn >= s->base_gfn && gfn - s->base_gfn < s->npages)
			return s;
	}
	return NULL;
}

static inline bool kvm_is_visible_memslot(struct kvm_memory_slot *memslot)
{
	return (memslot && memslot->id < KVM_USER_MEM_SLOTS &&
		!(memslot->flags & KVM_MEMSLOT_INVALID));
}

/* The contents of @gfn, NULL if it has none (zeros). */
static inline u8 *shim_page(struct kvm *kvm, gfn_t gfn)
{
	for (int i = 0; i < kvm->nr_pages; i++)
		if (kvm->pages[i].gfn == gfn)
			return kvm->pages[i].data;
	return NULL;
}

static inline int kvm_read_guest(struct kvm *kvm, gpa_t gpa, void *data,
				 unsigned long len)
{
	u8 *out = data;

	while (len) {
		gfn_t gfn = gpa_to_gfn(gpa);
		unsigned long off = gpa & ((1UL << PAGE_SHIFT) - 1);
		unsigned long n = (1UL << PAGE_SHIFT) - off;
		struct kvm_memory_slot *s = NULL;
		u8 *p;

		for (int i = 0; i < kvm->nr_slots; i++)
			if (gfn >= kvm->slots[i].base_gfn &&
			    gfn - kvm->slots[i].base_gfn < kvm->slots[i].npages)
				s = &kvm->slots[i];
		if (!s || (s->flags & KVM_MEMSLOT_INVALID))
			return -14;	/* -EFAULT */
		if (n > len)
			n = len;
		p = shim_page(kvm, gfn);
		for (unsigned long i = 0; i < n; i++)
			out[i] = p ? p[off + i] : 0;
		out += n;
		gpa += n;
		len -= n;
	}
	return 0;
}

#endif
