// SPDX-License-Identifier: MIT
/*
 * Fuzzer of KVM's validation of a pvsmm registration descriptor (ABI v2).
 *
 * The kernel code under test is arch/x86/kvm/pvsmm_desc.h from the patched
 * tree (build/kvm/src), compiled unchanged against a userspace stand-in
 * for memslots and guest memory (host/kvm/tests/shim).  The reference is
 * the model of the series' KVM selftests
 * (tools/testing/selftests/kvm/lib/x86_64/pvsmm_model.c), written from
 * <asm/pvsmm.h>, not from KVM's code.
 *
 * Each case builds a valid descriptor and private tables for every paging
 * mode (long 4-level with the window PDPT in slot 271, LA57, PAE, 2-level)
 * in guest memory, with the private GDT's selectors as abi.h wants them
 * (Accessed preset), then breaks one to four things: a field set to an
 * edge value (slot edges, unaligned, ROM, private or dying slots, 4 GiB,
 * 2^52, the window's edges, wrapping sizes), a bit of a page-table entry
 * flipped or its address redirected (self-maps, other tables, other
 * slots: a table at two levels, a table mapped as a page, code on a
 * per-vCPU page), one page made a table at two levels of an address space
 * that is otherwise valid, a bit of a GDT descriptor flipped or the GDT moved
 * (across a page boundary too), the memslots changed under the tables,
 * the number of online vCPUs.  For every case:
 *
 *  - the status is one of PVSMM_STATUS_OK .. PVSMM_STATUS_BAD_TABLES but
 *    DISABLED (which only a failing handler produces);
 *  - it is exactly the model's status;
 *  - the work is bounded (memslot lookups), whatever the tables hold;
 *  - pvsmm_va_ok() and pvsmm_va32_ok() agree with 128-bit arithmetic.
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
#include "pvsmm_model.h"	/* the selftests' model */

typedef unsigned __int128 u128;

static const uint64_t page = PVSMM_PAGE_SIZE;

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
	s->state ^= s->state >> 12;		/* xorshift64* */
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

#define PICK(s, a)	((a)[below(s, sizeof(a) / sizeof((a)[0]))])

/* ---- The layout: pages of the RAM slot at BASE -------------------------- */

#define BASE		0x100000ull	/* slot 1, 256 pages */
#define DESC_GPA	0x8000000ull	/* slot 0, one page, never changed */
#define WB		PVSMM_WINDOW_BASE
#define B32		0xc0000000ull
enum {
	P_DESC, P_CODE, P_GDT, P_IDT64, P_IDT32, P_PML4, P_WPDPT, P_WPD,
	P_WPT, P_PML5, P_PAE_PDPT, P_PAE_PD, P_PAE_PT, P_PD32, P_PT32,
	P_PERCPU, P_SPARE = P_PERCPU + 4, P_NR
};
#define GPA(p)		(BASE + (uint64_t)(p) * page)
#define V_CODE		0x0
#define V_GDT		0x10000
#define V_IDT		0x11000
#define V_PERCPU	0x40000

struct fcase {
	struct kvm kvm;
	struct pvsmm_descriptor d;
	uint32_t online;
	char what[256];
};

static void note(struct fcase *c, const char *s, uint64_t a, uint64_t b)
{
	size_t n = strlen(c->what);

	snprintf(c->what + n, sizeof(c->what) - n, " %s:%llx:%llx", s,
		 (unsigned long long)a, (unsigned long long)b);
}

static uint8_t *mem(struct kvm *kvm, uint64_t gpa)
{
	uint8_t *p = shim_page(kvm, gpa_to_gfn(gpa));

	if (!p && kvm->nr_pages < SHIM_MAX_PAGES) {
		kvm->pages[kvm->nr_pages].gfn = gpa_to_gfn(gpa);
		p = kvm->pages[kvm->nr_pages++].data;
		memset(p, 0, page);
	}
	return p ? p + (gpa & (page - 1)) : NULL;
}

static void put64(struct kvm *kvm, uint64_t gpa, uint64_t v)
{
	memcpy(mem(kvm, gpa), &v, 8);
}

static void put32(struct kvm *kvm, uint64_t gpa, uint32_t v)
{
	memcpy(mem(kvm, gpa), &v, 4);
}

/* Leaf PTEs of one address space (64-bit entries unless @pt32). */
static void leaves(struct kvm *kvm, uint64_t pt, bool nx, bool pt32,
		   unsigned int idt)
{
	const uint64_t a = 0x21, rw = 0x43, x = nx ? 1ull << 63 : 0;
	const struct { uint64_t va; uint64_t pte; } l[] = {
		{ V_CODE, GPA(P_CODE) | a },
		{ V_GDT, GPA(P_GDT) | a | x },
		{ V_IDT, GPA(idt) | a | x },
		{ V_PERCPU, GPA(P_PERCPU) | rw | x },
		{ V_PERCPU + 0x1000, GPA(P_PERCPU + 1) | rw | x },
		{ V_PERCPU + 0x2000, GPA(P_PERCPU + 2) | rw | x },
		{ V_PERCPU + 0x3000, GPA(P_PERCPU + 3) | rw | x },
	};

	for (unsigned int i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		if (pt32)
			put32(kvm, GPA(pt) + l[i].va / page * 4, l[i].pte);
		else
			put64(kvm, GPA(pt) + l[i].va / page * 8, l[i].pte);
	}
}

/*
 * The private GDT as abi.h wants it (Accessed preset): null, 64-bit code,
 * flat data, flat 32-bit code.
 */
static const uint64_t gdt_desc[4] = {
	0, 0x00af9b000000ffffull, 0x00cf93000000ffffull, 0x00cf9b000000ffffull,
};

static void gdt(struct kvm *kvm, uint64_t gpa)
{
	const uint8_t *b = (const uint8_t *)gdt_desc;

	/* Byte by byte: the GDT may straddle two pages. */
	for (size_t i = 0; i < sizeof(gdt_desc); i++)
		*mem(kvm, gpa + i) = b[i];
}

/*
 * A valid registration: slot 1 is RAM, everything lies in it; the
 * descriptor itself has a slot of its own (the model reads it from there).
 */
static void build(struct fcase *c, unsigned int nr)
{
	struct kvm *kvm = &c->kvm;
	struct pvsmm_descriptor *d = &c->d;

	memset(c, 0, sizeof(*c));
	kvm->nr_slots = 2;
	kvm->slots[0] = (struct kvm_memory_slot){
		.base_gfn = DESC_GPA / page, .npages = 1, .id = 0 };
	kvm->slots[1] = (struct kvm_memory_slot){
		.base_gfn = BASE / page, .npages = 256, .id = 1 };
	gdt(kvm, GPA(P_GDT));
	put64(kvm, GPA(P_PML4) + PVSMM_WINDOW_SLOT * 8, GPA(P_WPDPT) | 0x23);
	put64(kvm, GPA(P_WPDPT), GPA(P_WPD) | 0x23);
	put64(kvm, GPA(P_WPD), GPA(P_WPT) | 0x23);
	leaves(kvm, P_WPT, true, false, P_IDT64);
	put64(kvm, GPA(P_PML5) + 511 * 8, GPA(P_PML4) | 0x23);
	put64(kvm, GPA(P_PAE_PDPT) + 0x20 + 3 * 8, GPA(P_PAE_PD) | 1);
	put64(kvm, GPA(P_PAE_PD), GPA(P_PAE_PT) | 0x23);
	leaves(kvm, P_PAE_PT, false, false, P_IDT32);
	put32(kvm, GPA(P_PD32) + (B32 >> 22) * 4, GPA(P_PT32) | 0x23);
	leaves(kvm, P_PT32, false, true, P_IDT32);

	d->magic = PVSMM_DESC_MAGIC;
	d->version = PVSMM_ABI_VERSION;
	d->size = sizeof(*d);
	d->nr_vcpus = nr;
	d->percpu_gpa = GPA(P_PERCPU);
	d->window_pdpt = GPA(P_WPDPT);
	d->cr3_la57 = GPA(P_PML5);
	for (int m = 0; m < PVSMM_NR_MODES; m++) {
		struct pvsmm_entry *e = &d->entry[m];
		uint64_t b = m == PVSMM_MODE_LONG ? WB : B32;

		e->handler_va = b + V_CODE + 16;
		e->handler_size = 2048;
		e->percpu_va = b + V_PERCPU;
		e->gdt_va = b + V_GDT;
		e->idt_va = b + V_IDT;
		e->gdt_limit = PVSMM_PRIVATE_GDT_MIN_LIMIT;
		e->idt_limit = m == PVSMM_MODE_LONG ?
			       PVSMM_PRIVATE_IDT64_MIN_LIMIT :
			       PVSMM_PRIVATE_IDT32_MIN_LIMIT;
	}
	d->entry[PVSMM_MODE_LONG].cr3 = GPA(P_PML4);
	d->entry[PVSMM_MODE_PAE].cr3 = GPA(P_PAE_PDPT) + 0x20;
	d->entry[PVSMM_MODE_32].cr3 = GPA(P_PD32);
	c->online = nr;
}

/* ---- Mutations ---------------------------------------------------------- */

static uint64_t gen_gpa(struct src *s)
{
	static const uint64_t t[] = { 0, 0, 0, 1, 8, 0x10, 0x20, 0x800, 0xfff };
	static const uint64_t g[] = {
		0, BASE - page, BASE + 256 * page, BASE + 255 * page,
		0x200000, 0x300000, 0xffffe000, 1ull << 32, 1ull << 52,
		(1ull << 52) - page, ~0ull - 0xfff,
	};

	if (below(s, 3))
		return GPA(below(s, P_NR)) + PICK(s, t);
	if (below(s, 8) == 0)
		return next64(s);
	return PICK(s, g) + PICK(s, t);
}

static uint64_t gen_va(struct src *s)
{
	static const uint64_t v[] = {
		WB, WB + V_CODE + 16, WB + V_GDT, WB + V_IDT, WB + V_PERCPU,
		WB + PVSMM_WINDOW_SIZE - page, WB + PVSMM_WINDOW_SIZE, WB - 8,
		B32, B32 + V_GDT, B32 + V_PERCPU, 0xfffff000, 1ull << 32, 0,
		~0ull, ~0ull - 0xfff, 0xffff800000000000ull,
	};
	static const uint64_t t[] = { 0, 0, 0, 1, 8, 0x800, 0x1000 };

	if (below(s, 8) == 0)
		return next64(s);
	return PICK(s, v) + PICK(s, t);
}

static uint64_t gen_size(struct src *s)
{
	static const uint64_t v[] = {
		0, 1, 16, 0x1e, 0x1f, 0x20, 254, 255, 510, 511, 4095, 4096,
		4097, 0x8000, 0xffff, 0x10000, 0x10001, ~0ull, 1ull << 63,
	};

	return PICK(s, v);
}

static void mutate_desc(struct src *s, struct fcase *c)
{
	struct pvsmm_descriptor *d = &c->d;
	unsigned int m = below(s, PVSMM_NR_MODES), f = below(s, 20);
	struct pvsmm_entry *e = &d->entry[m];
	static const uint64_t vcpus[] = { 0, 1, 2, 3, 4, 5, 64, 65, ~0u };

	note(c, "field", f, m);
	switch (f) {
	case 0: d->magic ^= 1u << below(s, 32); break;
	case 1: d->version = below(s, 4); break;
	case 2: d->size = gen_size(s); break;
	case 3: d->flags = below(s, 2) ? 1u << below(s, 32) : next64(s); break;
	case 4: d->reserved = next64(s); break;
	case 5: e->reserved = 1u << below(s, 32); break;
	case 6: d->nr_vcpus = PICK(s, vcpus); break;
	case 7: d->percpu_gpa = gen_gpa(s); break;
	case 8: d->window_pdpt = below(s, 4) ? gen_gpa(s) : 0; break;
	case 9: d->cr3_la57 = below(s, 4) ? gen_gpa(s) : 0; break;
	case 10: e->cr3 = below(s, 4) ? gen_gpa(s) : 0; break;
	case 11: e->handler_va = gen_va(s); break;
	case 12: e->handler_size = gen_size(s); break;
	case 13: e->percpu_va = gen_va(s); break;
	case 14: e->gdt_va = gen_va(s); break;
	case 15: e->idt_va = gen_va(s); break;
	case 16: e->gdt_limit = gen_size(s); break;
	case 17: e->idt_limit = gen_size(s); break;
	case 18: c->online = below(s, 6); break;
	default: d->nr_vcpus = 1 + below(s, 4); break;
	}
}

/* One entry of a table on the walks, or anywhere in one: a bit, or where. */
static void mutate_table(struct src *s, struct fcase *c)
{
	static const struct { unsigned int pg, off, bytes; } t[] = {
		{ P_PML4, PVSMM_WINDOW_SLOT * 8, 8 }, { P_WPDPT, 0, 8 },
		{ P_WPD, 0, 8 }, { P_WPT, 0, 8 }, { P_WPT, 0x80, 8 },
		{ P_WPT, 0x88, 8 }, { P_WPT, 0x200, 8 }, { P_WPT, 0x208, 8 },
		{ P_PML5, 511 * 8, 8 }, { P_PAE_PDPT, 0x20 + 24, 8 },
		{ P_PAE_PD, 0, 8 }, { P_PAE_PT, 0, 8 }, { P_PAE_PT, 0x80, 8 },
		{ P_PAE_PT, 0x200, 8 }, { P_PD32, 0x300 * 4, 4 },
		{ P_PT32, 0, 4 }, { P_PT32, 0x40, 4 }, { P_PT32, 0x100, 4 },
		{ P_WPD, 8, 8 }, { P_PML4, 0, 8 },
	};
	unsigned int i = below(s, sizeof(t) / sizeof(t[0])), bit;
	uint64_t gpa = GPA(t[i].pg) + t[i].off, v = 0;

	if (below(s, 8) == 0)
		gpa = GPA(below(s, P_NR)) + below(s, page / t[i].bytes) *
		      t[i].bytes;
	memcpy(&v, mem(&c->kvm, gpa), t[i].bytes);
	if (below(s, 4)) {
		bit = below(s, t[i].bytes * 8);
		v ^= 1ull << bit;
	} else {
		v = (v & 0xfff) | (gen_gpa(s) & ~0xfffull);
	}
	if (t[i].bytes == 4)
		v &= 0xffffffffull;
	memcpy(mem(&c->kvm, gpa), &v, t[i].bytes);
	note(c, "pte", gpa, v);
}

/*
 * The private GDT: one of its selectors' bits flipped (type, S, DPL, P,
 * L, D/B, G, AVL, base or limit), or the whole GDT moved within its page
 * or across into the IDT's page (descriptors straddling the two), with
 * the mode's gdt_va following it.
 */
static void mutate_gdt(struct src *s, struct fcase *c)
{
	static const uint64_t offs[] = {
		0x20, 0x804, 0xfe8, 0xff0, 0xff4, 0xffc,
	};
	static const unsigned int bits[] = {
		0, 15, 16, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 51, 52, 53,
		54, 55, 56, 63,
	};
	unsigned int m = below(s, PVSMM_NR_MODES);
	uint64_t off, gpa;

	if (below(s, 3)) {
		unsigned int i = 1 + below(s, 3), bit = PICK(s, bits);
		uint64_t v;

		gpa = GPA(P_GDT) + i * 8;
		memcpy(&v, mem(&c->kvm, gpa), 8);
		v ^= 1ull << bit;
		put64(&c->kvm, gpa, v);
		note(c, "gdt", i, bit);
		return;
	}
	/* The 32-bit modes map P_IDT32 after the GDT page: spill into both. */
	off = PICK(s, offs);
	gdt(&c->kvm, GPA(P_GDT) + off);
	if (off + sizeof(gdt_desc) > page)
		memcpy(mem(&c->kvm, GPA(P_IDT32)), mem(&c->kvm, GPA(P_IDT64)),
		       off + sizeof(gdt_desc) - page);
	c->d.entry[m].gdt_va += off;
	note(c, "gdt-at", off, m);
}

/*
 * The tables' structure: one page serving at two levels of one address
 * space, where every walk still succeeds and no mapped page is a table,
 * or a recursive PML4 slot that no walk uses (still valid).
 */
static void mutate_struct(struct src *s, struct fcase *c)
{
	struct kvm *kvm = &c->kvm;
	unsigned int what = below(s, 4);

	note(c, "struct", what, 0);
	switch (what) {
	case 0:
		/* PML4[511] maps the PML4: unused by the walks. */
		put64(kvm, GPA(P_PML4) + 511 * 8, GPA(P_PML4) | 0x23);
		break;
	case 1:
		/* ... and it is the PML5 too: levels 5 and 4. */
		put64(kvm, GPA(P_PML4) + 511 * 8, GPA(P_PML4) | 0x23);
		c->d.cr3_la57 = GPA(P_PML4);
		break;
	case 2:
		/* The PAE PDPT's page is its PD too: levels 3 and 2. */
		put64(kvm, GPA(P_PAE_PDPT), GPA(P_PAE_PT) | 0x23);
		put64(kvm, GPA(P_PAE_PDPT) + 0x20 + 3 * 8, GPA(P_PAE_PDPT) | 1);
		break;
	default:
		/* The 2-level PD is its own PT: levels 2 and 1. */
		leaves(kvm, P_PD32, false, true, P_IDT32);
		put32(kvm, GPA(P_PD32) + (B32 >> 22) * 4, GPA(P_PD32) | 0x23);
		break;
	}
}

/* The memslots change under the tables. */
static void mutate_slots(struct src *s, struct fcase *c)
{
	struct kvm *kvm = &c->kvm;
	struct kvm_memory_slot *k = &kvm->slots[1];
	unsigned int what = below(s, 6);

	note(c, "slots", what, 0);
	switch (what) {
	case 0: k->flags |= KVM_MEM_READONLY; break;
	case 1: k->flags |= KVM_MEMSLOT_INVALID; break;
	case 2: k->id = KVM_USER_MEM_SLOTS + below(s, 3); break;
	case 3: k->npages = 1 + below(s, 256); break;
	case 4:
		/* The slot split in two around one page, maybe ROM. */
		if (kvm->nr_slots + 1 < SHIM_MAX_SLOTS) {
			uint64_t at = 1 + below(s, P_NR);

			kvm->slots[kvm->nr_slots++] = (struct kvm_memory_slot){
				.base_gfn = k->base_gfn + at + 1,
				.npages = k->npages - at - 1,
				.flags = below(s, 2) ? KVM_MEM_READONLY : 0,
				.id = 4 };
			k->npages = at;
		}
		break;
	default:
		/* Another slot, elsewhere: RAM, ROM or KVM's own. */
		if (kvm->nr_slots < SHIM_MAX_SLOTS)
			kvm->slots[kvm->nr_slots++] = (struct kvm_memory_slot){
				.base_gfn = (1ull << 20) + below(s, 1ull << 20),
				.npages = 1 + below(s, 64),
				.flags = below(s, 3) ? 0 : KVM_MEM_READONLY,
				.id = below(s, 4) ? 2 : KVM_USER_MEM_SLOTS };
		break;
	}
}

static void gen_case(struct src *s, struct fcase *c)
{
	int k;

	build(c, 1 + below(s, 4));
	for (k = 1 + below(s, 4); k > 0; k--) {
		switch (below(s, 10)) {
		case 0: mutate_slots(s, c); break;
		case 1: case 2: case 3: mutate_table(s, c); break;
		case 4: mutate_gdt(s, c); break;
		case 5: mutate_struct(s, c); break;
		default: mutate_desc(s, c); break;
		}
	}
}

/* ---- The model's view of the stand-in memory --------------------------- */

static bool m_visible(void *ctx, uint64_t gpa)
{
	struct kvm *kvm = ctx;
	unsigned long n = kvm->lookups;
	bool v = kvm_is_visible_memslot(gfn_to_memslot(kvm, gpa_to_gfn(gpa)));

	kvm->lookups = n;
	return v;
}

static bool m_writable(void *ctx, uint64_t gpa)
{
	struct kvm *kvm = ctx;
	unsigned long n = kvm->lookups;
	struct kvm_memory_slot *k = gfn_to_memslot(kvm, gpa_to_gfn(gpa));

	kvm->lookups = n;
	return k && !(k->flags & KVM_MEM_READONLY);
}

static bool m_read(void *ctx, uint64_t gpa, void *buf, size_t len)
{
	return !kvm_read_guest(ctx, gpa, buf, len);
}

/* ---- Checks ------------------------------------------------------------- */

static unsigned long hist[16];
static unsigned long failed;

static void fail(const struct fcase *c, uint32_t st, uint32_t want,
		 const char *why)
{
	if (++failed > 10)
		return;
	printf("FAIL %s: status %u, model %u, online %u, nr_vcpus %u:%s\n",
	       why, st, want, c->online, c->d.nr_vcpus, c->what);
}

/* Every memslot lookup is bounded by the pages the walks may visit. */
#define MAX_LOOKUPS	(3 + PVSMM_MAX_VCPUS + \
			 4 * 4 * PVSMM_WALK_MAX_PAGES * 6 + 8)

/* KVM's walk scratch (kmalloc'd per registration there). */
static struct pvsmm_walk_state walk_state;

static bool run_case(struct fcase *c, struct src *s)
{
	const struct pvsmm_model_mem mm = {
		.visible = m_visible, .writable = m_writable, .read = m_read,
		.ctx = &c->kvm,
	};
	uint32_t st, want;
	uint64_t va, len;

	/* The model reads the descriptor where the guest would keep it. */
	if (!mem(&c->kvm, DESC_GPA))
		return true;	/* out of stand-in pages: not a case */
	memcpy(mem(&c->kvm, DESC_GPA), &c->d, sizeof(c->d));

	c->kvm.lookups = 0;
	st = pvsmm_validate(&c->kvm, &c->d, c->online, &walk_state);
	hist[st < 16 ? st : 15]++;
	if (c->kvm.lookups > MAX_LOOKUPS) {
		fail(c, st, 0, "unbounded memslot lookups");
		return false;
	}
	if (st < PVSMM_STATUS_OK || st > PVSMM_STATUS_BAD_TABLES ||
	    st == PVSMM_STATUS_DISABLED) {
		fail(c, st, 0, "undefined status");
		return false;
	}
	want = pvsmm_model_status(&mm, DESC_GPA, c->online);
	if (st != want) {
		fail(c, st, want, "status differs from the ABI's model");
		return false;
	}

	/* The range helpers on their own, at and around their edges. */
	va = gen_va(s);
	len = below(s, 2) ? gen_size(s) : next64(s);
	if (pvsmm_va_ok(va, len) !=
	    (va >= WB && (u128)va + len <= (u128)WB + PVSMM_WINDOW_SIZE) ||
	    pvsmm_va32_ok(va, len) != ((u128)va + len <= (u128)1 << 32)) {
		failed++;
		if (failed <= 10)
			printf("FAIL range check (%#llx, %#llx)\n",
			       (unsigned long long)va, (unsigned long long)len);
		return false;
	}
	return true;
}

#ifdef PVSMM_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fcase c;
	struct src s = { .data = data, .len = size };

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
	static const char *const name[] = {
		"none", "ok", "bad_magic", "bad_version", "bad_size",
		"bad_flags", "bad_gpa", "bad_va", "bad_vcpus", "disabled",
		"bad_tables",
	};
	static struct fcase c;
	unsigned long passed = 0;

	if (!s.state)
		s.state = 1;
	for (unsigned long i = 0; i < n; i++) {
		gen_case(&s, &c);
		passed += run_case(&c, &s);
	}
	printf("statuses:");
	for (int i = 1; i <= PVSMM_STATUS_BAD_TABLES; i++)
		if (i != PVSMM_STATUS_DISABLED)
			printf(" %s %lu", name[i], hist[i]);
	printf("\n");
	/* Every status must have been produced, or the generator is weak. */
	for (int i = PVSMM_STATUS_OK; i <= PVSMM_STATUS_BAD_TABLES; i++) {
		if (n >= 100000 && !hist[i] && i != PVSMM_STATUS_DISABLED) {
			printf("FAIL status %s never produced\n", name[i]);
			failed++;
		}
	}
	printf("fuzz-desc: %lu passed, %lu failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif
