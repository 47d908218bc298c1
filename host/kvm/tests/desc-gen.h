/* SPDX-License-Identifier: MIT */
/*
 * Generator of hostile pvsmm registration descriptors, shared by the
 * userspace fuzzer (fuzz-desc.c) and the guest-side one in the lab
 * (kvm-robust-test.c): mostly a valid descriptor with fields set to edge
 * values around the given memory map -- slot edges, read-only slots, gaps,
 * unaligned, past 2^52, wrapping at 2^64, huge sizes, the window's edges.
 * Its choices come from fuzzer input bytes or from a PRNG.
 */
#ifndef PVSMM_DESC_GEN_H
#define PVSMM_DESC_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "desc-model.h"

/* Where the generator's choices come from: fuzzer bytes or a PRNG. */
struct src {
	const uint8_t *data;
	size_t len, pos;
	uint64_t state;
};

static uint64_t next64(struct src *s)
{
	uint64_t v = 0;

	if (s->data) {
		for (int i = 0; i < 8; i++)
			v = v << 8 | (s->pos < s->len ? s->data[s->pos++] : 0);
		return v;
	}
	/* xorshift64* */
	s->state ^= s->state >> 12;
	s->state ^= s->state << 25;
	s->state ^= s->state >> 27;
	return s->state * 0x2545f4914f6cdd1dull;
}

static uint64_t below(struct src *s, uint64_t n)
{
	if (s->data) {
		uint8_t b = s->pos < s->len ? s->data[s->pos++] : 0;

		return n ? b % n : 0;
	}
	return n ? next64(s) % n : 0;
}

static const uint64_t page = PVSMM_PAGE_SIZE;

/* A GPA near something interesting: slot edges, 2^52, wrap, unaligned. */
static uint64_t gen_gpa(struct src *s, const struct model_slot *ms, int n,
			uint64_t pages)
{
	uint64_t base;

	switch (below(s, 16)) {
	case 0: base = 0; break;
	case 1: base = (1ull << 52) - page * (1 + below(s, 70)); break;
	case 2: base = (1ull << 52) + page * below(s, 4); break;
	case 3: base = -page * (1 + below(s, 70)); break;
	case 4: return next64(s);
	default:
		if (!n)
			return below(s, 2) ? page * below(s, 1024) : next64(s);
		const struct model_slot *m = &ms[below(s, n)];

		switch (below(s, 4)) {
		case 0: base = m->gpa; break;
		case 1: base = m->gpa + m->size - pages * page; break;
		case 2: base = m->gpa + m->size - page * below(s, 3); break;
		default: base = m->gpa + page * below(s, m->size / page); break;
		}
		break;
	}
	switch (below(s, 24)) {
	case 0: return base + 1 + below(s, page - 1);
	case 1: return base - page * (1 + below(s, 2));
	case 2: return base + page * (1 + below(s, 2));
	default: return base;
	}
}

static uint64_t gen_va(struct src *s, uint64_t len)
{
	const uint64_t lo = PVSMM_WINDOW_BASE, hi = lo + PVSMM_WINDOW_SIZE;

	switch (below(s, 12)) {
	case 0: return lo;
	case 1: return lo - 1 - below(s, 2 * page);
	case 2: return hi - len;
	case 3: return hi - len + 1 + below(s, 16);
	case 4: return hi + below(s, 2) * page;
	case 5: return 0;
	case 6: return ~0ull - below(s, 2 * page);
	case 7: return next64(s);
	case 8: return lo + (next64(s) & (PVSMM_WINDOW_SIZE - 1));
	default: return lo + page * below(s, 1 << 16);
	}
}

static uint64_t gen_size(struct src *s)
{
	static const uint64_t edge[] = {
		0, 1, 2, 4095, 4096, PVSMM_MAX_HANDLER_SIZE - 1,
		PVSMM_MAX_HANDLER_SIZE, PVSMM_MAX_HANDLER_SIZE + 1,
		PVSMM_WINDOW_SIZE, ~0ull, 1ull << 63,
	};

	if (below(s, 3))
		return 1 + below(s, PVSMM_MAX_HANDLER_SIZE);
	return below(s, 2) ? edge[below(s, sizeof(edge) / sizeof(edge[0]))] :
			     next64(s);
}

static uint32_t gen_nr(struct src *s)
{
	static const uint32_t edge[] = {
		0, 1, 2, 63, 64, 65, 0x7fffffff, 0x80000000, 0xffffffff,
	};

	if (below(s, 4))
		return 1 + below(s, 4);
	return edge[below(s, sizeof(edge) / sizeof(edge[0]))];
}

/* A descriptor for the memory map ms[0 .. n-1]. */
static void gen_desc(struct src *s, const struct model_slot *ms, int n,
		     struct pvsmm_descriptor *d)
{
	*d = (struct pvsmm_descriptor){
		.magic = PVSMM_DESC_MAGIC, .version = PVSMM_ABI_VERSION,
		.size = sizeof(*d), .nr_vcpus = gen_nr(s),
	};
	d->handler_size = gen_size(s);
	d->handler_va = gen_va(s, d->handler_size);
	d->private_cr3 = gen_gpa(s, ms, n, 1);
	d->window_pdpt = below(s, 4) ? gen_gpa(s, ms, n, 1) : d->private_cr3;
	d->percpu_gpa = gen_gpa(s, ms, n, d->nr_vcpus);
	d->percpu_va = gen_va(s, (uint64_t)d->nr_vcpus * PVSMM_PERCPU_SIZE);

	/* Sometimes break the header, sometimes just random bytes. */
	switch (below(s, 24)) {
	case 0: d->magic ^= 1u << below(s, 32); break;
	case 1: d->version = below(s, 4); break;
	case 2: d->size = below(s, 2) ? below(s, 200) : 64; break;
	case 3: d->flags = 1u << below(s, 32); break;
	case 4: d->reserved = next64(s); break;
	case 5:
		for (size_t i = 0; i < sizeof(*d); i += 8) {
			uint64_t v = next64(s);

			memcpy((uint8_t *)d + i, &v, sizeof(*d) - i < 8 ? sizeof(*d) - i : 8);
		}
		break;
	default: break;
	}
}

#endif
