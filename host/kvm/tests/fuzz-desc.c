// SPDX-License-Identifier: MIT
/*
 * Fuzzer of KVM's validation of a pvsmm registration descriptor.
 *
 * The kernel code under test is arch/x86/kvm/pvsmm_desc.h from the patched
 * tree (build/kvm/src), compiled unchanged against a userspace stand-in for
 * the memslot lookup (host/kvm/tests/shim).  Each case is a memslot layout
 * (RAM, read-only, KVM-private and invalid slots, gaps, neighbours), a
 * descriptor (mostly a valid one with a few fields set to edge values:
 * unaligned, outside every slot, in ROM, huge, wrapping, past 2^52, ...)
 * and a number of online vCPUs.  For every case:
 *
 *  - the status is one of PVSMM_STATUS_OK .. PVSMM_STATUS_BAD_VCPUS;
 *  - accepted => private_cr3, window_pdpt and the nr_vcpus per-vCPU pages
 *    are page aligned, below 2^52 and every page lies in a visible,
 *    writable memslot (checked page by page against the slots), the
 *    handler and the per-vCPU areas lie inside the window (128-bit
 *    arithmetic, so no wrap can hide), 1 <= nr_vcpus <= 64, >= online;
 *  - the status is exactly the one desc-model.h derives from the
 *    documentation (first failing check);
 *  - the work is bounded: at most 2 + nr_vcpus memslot lookups;
 *  - pvsmm_va_ok() agrees with the 128-bit window check on its own.
 *
 * Two drivers share the case generator:
 *   fuzz-desc [N [SEED]]   deterministic: N pseudo-random cases (default
 *                          1,000,000), prints "fuzz-desc: N passed, M failed"
 *   libFuzzer              built with -DPVSMM_LIBFUZZER and
 *                          -fsanitize=fuzzer: the input bytes drive the same
 *                          generator; a failed check aborts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/kvm_host.h"	/* the shim */
#include "pvsmm_desc.h"		/* the kernel's code */
#include "desc-gen.h"

struct fcase {
	struct kvm kvm;
	struct model_slot ms[SHIM_MAX_SLOTS];
	struct pvsmm_descriptor d;
	uint32_t online;
};

/* Non-overlapping slots in ascending order, of every kind KVM has. */
static void gen_slots(struct src *s, struct fcase *c)
{
	uint64_t gfn = below(s, 4) ? 0 : below(s, 1u << 20);
	int n = below(s, SHIM_MAX_SLOTS + 1);

	c->kvm.nr_slots = 0;
	for (int i = 0; i < n; i++) {
		struct kvm_memory_slot *k = &c->kvm.slots[i];
		uint64_t npages;

		switch (below(s, 4)) {
		case 0: npages = 1; break;
		case 1: npages = 1 + below(s, 80); break;
		case 2: npages = 1ull << below(s, 21); break;
		default: npages = 1 + (next64(s) & 0xfffff); break;
		}
		gfn += below(s, 3) ? 0 : below(s, 4) ? 1 + below(s, 64) :
		       next64(s) & ((1ull << 38) - 1);
		if (gfn + npages > (1ull << 40))	/* KVM's GPA limit */
			break;
		k->base_gfn = gfn;
		k->npages = npages;
		k->flags = 0;
		k->id = i;
		switch (below(s, 8)) {
		case 0: k->flags = KVM_MEM_READONLY; break;
		case 1: k->flags = KVM_MEMSLOT_INVALID; break;
		case 2: k->id = KVM_USER_MEM_SLOTS + below(s, 3); break;
		default: break;
		}
		c->ms[i].gpa = gfn * page;
		c->ms[i].size = npages * page;
		c->ms[i].writable_ram = kvm_is_visible_memslot(k) &&
					!(k->flags & KVM_MEM_READONLY);
		c->kvm.nr_slots++;
		gfn += npages;
	}
}

static void gen_case(struct src *s, struct fcase *c)
{
	memset(c, 0, sizeof(*c));
	gen_slots(s, c);
	c->online = below(s, 4) ? 1 : below(s, 70);
	gen_desc(s, c->ms, c->kvm.nr_slots, &c->d);
}

/* Every page of [gpa, gpa + pages * 4K) in a visible, writable slot. */
static bool pages_in_ram(struct kvm *kvm, uint64_t gpa, uint64_t pages)
{
	if (gpa % page || gpa >= (1ull << 52))
		return false;
	for (uint64_t i = 0; i < pages; i++) {
		u128 a = (u128)gpa + (u128)i * page;
		int hit = 0;

		for (int j = 0; j < kvm->nr_slots; j++) {
			const struct kvm_memory_slot *k = &kvm->slots[j];
			u128 lo = (u128)k->base_gfn * page;

			if (a >= lo && a + page <= lo + (u128)k->npages * page) {
				if (!kvm_is_visible_memslot((struct kvm_memory_slot *)k) ||
				    (k->flags & KVM_MEM_READONLY))
					return false;
				hit = 1;
			}
		}
		if (!hit)
			return false;
	}
	return true;
}

static unsigned long hist[16];
static unsigned long failed;

static void fail(const struct fcase *c, uint32_t st, const char *why)
{
	const struct pvsmm_descriptor *d = &c->d;

	failed++;
	if (failed > 10)
		return;
	printf("FAIL %s: status %u (model %u)\n"
	       "     magic %#x version %u size %u flags %#x reserved %#x nr %u online %u\n"
	       "     cr3 %#llx pdpt %#llx percpu %#llx va %#llx handler %#llx+%#llx\n",
	       why, st, model_status(d, c->ms, c->kvm.nr_slots, c->online),
	       d->magic, d->version, d->size, d->flags, d->reserved,
	       d->nr_vcpus, c->online,
	       (unsigned long long)d->private_cr3, (unsigned long long)d->window_pdpt,
	       (unsigned long long)d->percpu_gpa, (unsigned long long)d->percpu_va,
	       (unsigned long long)d->handler_va, (unsigned long long)d->handler_size);
	for (int i = 0; i < c->kvm.nr_slots; i++)
		printf("     slot %d: gfn %#llx + %#lx flags %#x id %d\n", i,
		       (unsigned long long)c->kvm.slots[i].base_gfn,
		       c->kvm.slots[i].npages, c->kvm.slots[i].flags,
		       c->kvm.slots[i].id);
}

/* Returns true if every invariant held. */
static bool run_case(struct fcase *c, struct src *s)
{
	const struct pvsmm_descriptor *d = &c->d;
	uint32_t st;

	c->kvm.lookups = 0;
	st = pvsmm_validate(&c->kvm, d, c->online);
	hist[st < 16 ? st : 15]++;

	if (st < PVSMM_STATUS_OK || st > PVSMM_STATUS_BAD_VCPUS) {
		fail(c, st, "undefined status");
		return false;
	}
	if (st != model_status(d, c->ms, c->kvm.nr_slots, c->online)) {
		fail(c, st, "status differs from the documented rules");
		return false;
	}
	if (c->kvm.lookups > 2 + (uint64_t)PVSMM_MAX_VCPUS) {
		fail(c, st, "unbounded memslot lookups");
		return false;
	}
	if (st == PVSMM_STATUS_OK) {
		u128 h_end = (u128)d->handler_va + d->handler_size;
		u128 p_end = (u128)d->percpu_va + (u128)d->nr_vcpus * PVSMM_PERCPU_SIZE;
		u128 w_end = (u128)PVSMM_WINDOW_BASE + PVSMM_WINDOW_SIZE;

		if (!pages_in_ram(&c->kvm, d->private_cr3, 1) ||
		    !pages_in_ram(&c->kvm, d->window_pdpt, 1) ||
		    !pages_in_ram(&c->kvm, d->percpu_gpa, d->nr_vcpus)) {
			fail(c, st, "accepted a GPA outside writable RAM");
			return false;
		}
		if (d->handler_va < PVSMM_WINDOW_BASE || h_end > w_end ||
		    !d->handler_size || d->percpu_va < PVSMM_WINDOW_BASE ||
		    p_end > w_end || d->percpu_va % page) {
			fail(c, st, "accepted a VA outside the window");
			return false;
		}
		if (!d->nr_vcpus || d->nr_vcpus > PVSMM_MAX_VCPUS ||
		    d->nr_vcpus < c->online || d->flags || d->reserved) {
			fail(c, st, "accepted a bad header");
			return false;
		}
	}

	/* pvsmm_va_ok() on its own, at and around the window's edges. */
	uint64_t va = gen_va(s, 0), len = below(s, 2) ? gen_size(s) : next64(s);

	if (pvsmm_va_ok(va, len) != model_in_window(va, len)) {
		failed++;
		if (failed <= 10)
			printf("FAIL pvsmm_va_ok(%#llx, %#llx) = %d\n",
			       (unsigned long long)va, (unsigned long long)len,
			       pvsmm_va_ok(va, len));
		return false;
	}
	return true;
}

#ifdef PVSMM_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct src s = { .data = data, .len = size };
	struct fcase c;

	gen_case(&s, &c);
	if (!run_case(&c, &s))
		abort();
	return 0;
}
#else
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	struct src s = { .state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5056534d };
	unsigned long passed = 0;
	static const char *const name[] = {
		"none", "ok", "bad_magic", "bad_version", "bad_size",
		"bad_flags", "bad_gpa", "bad_va", "bad_vcpus",
	};

	if (!s.state)
		s.state = 1;
	for (unsigned long i = 0; i < n; i++) {
		struct fcase c;

		gen_case(&s, &c);
		passed += run_case(&c, &s);
	}
	printf("statuses:");
	for (int i = 1; i <= PVSMM_STATUS_BAD_VCPUS; i++)
		printf(" %s %lu", name[i], hist[i]);
	printf("\n");
	/* Every status must have been produced, or the generator is weak. */
	for (int i = PVSMM_STATUS_OK; i <= PVSMM_STATUS_BAD_VCPUS; i++) {
		if (n >= 100000 && !hist[i]) {
			printf("FAIL status %s never produced\n", name[i]);
			failed++;
		}
	}
	printf("fuzz-desc: %lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif
