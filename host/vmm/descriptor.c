// SPDX-License-Identifier: MIT
/*
 * Descriptor validation for the registration MSR (ABI version 2): the
 * checks abi.h says the host makes, in the order of the fields, so that a
 * descriptor with several faults always reports the same (first) one, and
 * then a software walk of the firmware's private page tables.
 */
#include <string.h>

#include "descriptor.h"
#include "x86.h"

#define PAGE_MASK	((uint64_t)PVSMM_PAGE_SIZE - 1)
#define GIB4		0x100000000ull

#define PTE_P		(1ull << 0)
#define PTE_RW		(1ull << 1)
#define PTE_US		(1ull << 2)
#define PTE_A		(1ull << 5)
#define PTE_PS		(1ull << 7)
#define PTE_NX		(1ull << 63)
#define PTE_ADDR	0x000ffffffffff000ull
/* PAE PDPTE: bits 2:1, 8:5 and 63:52 are reserved, NX among them (SDM
 * 4.4.1); so are MAXPHYADDR..51, which pae_pdptes_ok() covers. */
#define PDPTE_RSVD	(0x6ull | 0x1e0ull | 0xfff0000000000000ull)

/* ---- Guest memory ------------------------------------------------------ */

static bool mem_range(const struct pvsmm_guest_mem *m, uint64_t gpa,
		      uint64_t len)
{
	return gpa < m->size && len <= m->size - gpa;
}

static bool read_u64(const struct pvsmm_guest_mem *m, uint64_t gpa,
		     uint64_t *v)
{
	if (!mem_range(m, gpa, 8))
		return false;
	memcpy(v, m->ram + gpa, 8);
	return true;
}

static bool read_u32(const struct pvsmm_guest_mem *m, uint64_t gpa,
		     uint32_t *v)
{
	if (!mem_range(m, gpa, 4))
		return false;
	memcpy(v, m->ram + gpa, 4);
	return true;
}

/* ---- The page walk ----------------------------------------------------- */

/* Index of va at `level` (1 = page table) and the bits per level. */
static unsigned int walk_index(const struct pvsmm_walk_config *cfg,
			       unsigned int level, uint64_t va)
{
	if (cfg->levels == 2)
		return (unsigned int)(va >> (12 + 10 * (level - 1))) & 1023;
	if (cfg->levels == 3 && level == 3)
		return (unsigned int)(va >> 30) & 3;
	return (unsigned int)(va >> (12 + 9 * (level - 1))) & 511;
}

static bool canonical(const struct pvsmm_walk_config *cfg, uint64_t va)
{
	return x86_canonical(va, cfg->levels == 5);
}

enum pvsmm_walk_status pvsmm_walk(const struct pvsmm_guest_mem *mem,
				  const struct pvsmm_walk_config *cfg,
				  uint64_t cr3, uint64_t va,
				  struct pvsmm_walk *out)
{
	bool wide = cfg->levels != 2;		/* 8-byte entries */
	unsigned int level = cfg->levels;
	uint64_t table;

	memset(out, 0, sizeof(*out));
	out->writable = out->user = true;
	if (cfg->levels <= 3) {
		if (va >= GIB4)
			return PVSMM_WALK_NONCANONICAL;
		table = cfg->levels == 3 ? cr3 & 0xffffffe0ull :
					   cr3 & 0xfffff000ull;
	} else {
		if (!canonical(cfg, va))
			return PVSMM_WALK_NONCANONICAL;
		table = cr3 & PTE_ADDR;
	}

	for (;;) {
		unsigned int idx = walk_index(cfg, level, va);
		uint64_t entry;

		if (out->nr_tables < PVSMM_WALK_MAX_LEVELS)
			out->tables[out->nr_tables++] = table & ~PAGE_MASK;
		if (cfg->levels == 3 && level == 3 && cfg->pdptrs) {
			entry = cfg->pdptrs[idx];
		} else if (wide) {
			if (!read_u64(mem, table + idx * 8ull, &entry))
				return PVSMM_WALK_OUTSIDE_RAM;
		} else {
			uint32_t e32;

			if (!read_u32(mem, table + idx * 4ull, &e32))
				return PVSMM_WALK_OUTSIDE_RAM;
			entry = e32;
		}
		if (!(entry & PTE_P))
			return PVSMM_WALK_NOT_PRESENT;

		if (cfg->levels == 3 && level == 3) {
			/* PAE PDPTE: no R/W, U/S, NX; the CPU loads it at CR3
			 * time.  The lab's TCG sets its Accessed bit, which
			 * only the strict rules refuse. */
			uint64_t rsvd = cfg->strict ? PDPTE_RSVD :
						      PDPTE_RSVD & ~PTE_A;
			if (entry & rsvd)
				return PVSMM_WALK_RESERVED;
		} else {
			out->writable &= !!(entry & PTE_RW);
			out->user &= !!(entry & PTE_US);
			if (wide && (entry & PTE_NX)) {
				if (cfg->levels == 3 && cfg->strict)
					return PVSMM_WALK_RESERVED;
				out->nx = true;
			}
		}

		/* A large page ends the walk early where the mode has one. */
		if (level > 1 && (entry & PTE_PS) &&
		    !(cfg->levels == 3 && level == 3)) {
			uint64_t size;

			if (cfg->levels == 2) {
				if (!cfg->pse || cfg->strict)
					goto next;	/* PS ignored without PSE */
				size = 1ull << 22;
				out->gpa = (entry & 0xffc00000ull) |
					   (va & (size - 1));
				return PVSMM_WALK_OK;
			}
			if (level >= 4 || (level == 3 && cfg->levels == 3))
				return PVSMM_WALK_RESERVED;	/* no PS there */
			if (cfg->strict && (cfg->levels == 3 || level == 3))
				return PVSMM_WALK_RESERVED;	/* 4 KiB / 2 MiB */
			size = level == 3 ? 1ull << 30 : 1ull << 21;
			out->gpa = (entry & PTE_ADDR & ~(size - 1)) |
				   (va & (size - 1));
			return PVSMM_WALK_OK;
		}
next:
		if (cfg->levels == 2 && level == 2 && cfg->strict &&
		    (entry & PTE_PS))
			return PVSMM_WALK_RESERVED;
		table = wide ? entry & PTE_ADDR : entry & 0xfffff000ull;
		if (level == 1) {
			out->gpa = table | (va & PAGE_MASK);
			return PVSMM_WALK_OK;
		}
		level--;
	}
}

/* ---- Field checks ------------------------------------------------------ */

/* [gpa, gpa + len) is aligned to `align` and wholly inside RAM. */
static bool gpa_ok(const struct pvsmm_guest_mem *m, uint64_t gpa, uint64_t len,
		   uint64_t align)
{
	return !(gpa & (align - 1)) && mem_range(m, gpa, len);
}

/* [va, va + len) in the linear addresses of an entry of this mode. */
static bool va_range_ok(unsigned int mode, bool window, uint64_t va,
			uint64_t len)
{
	if (len == 0 || va + len < va)
		return false;
	uint64_t last = va + len - 1;

	if (mode != PVSMM_MODE_LONG)
		return last < GIB4;
	if (window)
		return va >= PVSMM_WINDOW_BASE &&
		       last < PVSMM_WINDOW_BASE + PVSMM_WINDOW_SIZE;
	/* Canonical at both ends and in one half (4-level). */
	struct pvsmm_walk_config cfg = { .levels = 4 };
	return canonical(&cfg, va) && canonical(&cfg, last) &&
	       (va >> 63) == (last >> 63);
}

static bool entry_present(const struct pvsmm_descriptor *d, unsigned int mode)
{
	return d->entry[mode].cr3 != 0;
}

static int check_gpas(const struct pvsmm_descriptor *d,
		      const struct pvsmm_guest_mem *m)
{
	uint64_t percpu_len = (uint64_t)d->nr_vcpus * PVSMM_PERCPU_SIZE;

	if (!gpa_ok(m, d->percpu_gpa, percpu_len, PVSMM_PAGE_SIZE))
		return PVSMM_STATUS_BAD_GPA;
	if (d->window_pdpt &&
	    !gpa_ok(m, d->window_pdpt, PVSMM_PAGE_SIZE, PVSMM_PAGE_SIZE))
		return PVSMM_STATUS_BAD_GPA;
	if (d->cr3_la57 &&
	    !gpa_ok(m, d->cr3_la57, PVSMM_PAGE_SIZE, PVSMM_PAGE_SIZE))
		return PVSMM_STATUS_BAD_GPA;
	for (unsigned int mode = 0; mode < PVSMM_NR_MODES; mode++) {
		uint64_t cr3 = d->entry[mode].cr3;

		if (!cr3)
			continue;
		if (mode == PVSMM_MODE_PAE ?
		    !gpa_ok(m, cr3, 32, 32) || cr3 >= GIB4 :
		    !gpa_ok(m, cr3, PVSMM_PAGE_SIZE, PVSMM_PAGE_SIZE) ||
		    (mode == PVSMM_MODE_32 && cr3 >= GIB4))
			return PVSMM_STATUS_BAD_GPA;
	}
	return PVSMM_STATUS_OK;
}

static int check_vas(const struct pvsmm_descriptor *d)
{
	bool any = false;

	if ((d->window_pdpt || d->cr3_la57) &&
	    !entry_present(d, PVSMM_MODE_LONG))
		return PVSMM_STATUS_BAD_VA;
	for (unsigned int mode = 0; mode < PVSMM_NR_MODES; mode++) {
		const struct pvsmm_entry *e = &d->entry[mode];
		bool window = mode == PVSMM_MODE_LONG && d->window_pdpt;

		if (!e->cr3)
			continue;
		any = true;
		if (e->handler_size < 1 ||
		    e->handler_size > PVSMM_MAX_HANDLER_SIZE ||
		    !va_range_ok(mode, window, e->handler_va, e->handler_size))
			return PVSMM_STATUS_BAD_VA;
		/* The private stacks are computed from percpu_va. */
		if ((e->percpu_va & PAGE_MASK) ||
		    !va_range_ok(mode, window, e->percpu_va,
				 (uint64_t)d->nr_vcpus * PVSMM_PERCPU_SIZE))
			return PVSMM_STATUS_BAD_VA;
		if (!va_range_ok(mode, window, e->gdt_va,
				 (uint64_t)e->gdt_limit + 1) ||
		    !va_range_ok(mode, window, e->idt_va,
				 (uint64_t)e->idt_limit + 1))
			return PVSMM_STATUS_BAD_VA;
	}
	return any ? PVSMM_STATUS_OK : PVSMM_STATUS_BAD_VA;
}

/* ---- The private tables ------------------------------------------------ */

/* Table pages seen so far, with the level each was read at. */
#define MAX_SEEN	128

struct table_check {
	const struct pvsmm_guest_mem *mem;
	struct pvsmm_walk_config cfg;
	uint64_t cr3;
	unsigned int nr_seen;
	uint64_t seen_gpa[MAX_SEEN];
	unsigned int seen_level[MAX_SEEN];
	unsigned int nr_leaves;
	uint64_t leaves[MAX_SEEN];	/* GPAs of mapped pages, for overlaps */
	bool full;
};

/* A table page reached at two levels is a loop (or a self-map). */
static bool note_tables(struct table_check *tc, const struct pvsmm_walk *w)
{
	for (unsigned int i = 0; i < w->nr_tables; i++) {
		unsigned int level = tc->cfg.levels - i;
		unsigned int j;

		for (j = 0; j < tc->nr_seen; j++)
			if (tc->seen_gpa[j] == w->tables[i])
				break;
		if (j < tc->nr_seen) {
			if (tc->seen_level[j] != level)
				return false;
			continue;
		}
		if (tc->nr_seen == MAX_SEEN) {
			tc->full = true;
			continue;
		}
		tc->seen_gpa[tc->nr_seen] = w->tables[i];
		tc->seen_level[tc->nr_seen++] = level;
	}
	return true;
}

static void note_leaf(struct table_check *tc, uint64_t gpa)
{
	if (tc->nr_leaves < MAX_SEEN)
		tc->leaves[tc->nr_leaves++] = gpa & ~PAGE_MASK;
	else
		tc->full = true;
}

enum page_kind { PAGE_CODE, PAGE_PERCPU, PAGE_TABLE };

/* Walks one page of an entry and applies its kind's rules. */
static bool check_page(struct table_check *tc, uint64_t va, enum page_kind kind,
		       uint64_t want_gpa, struct pvsmm_walk *w)
{
	if (pvsmm_walk(tc->mem, &tc->cfg, tc->cr3, va, w) != PVSMM_WALK_OK)
		return false;
	if (w->user || !note_tables(tc, w))
		return false;
	bool nx = w->nx;	/* always false in 32-bit and PAE tables */

	switch (kind) {
	case PAGE_CODE:		/* read-only, executable */
		if (w->writable || nx)
			return false;
		break;
	case PAGE_PERCPU:	/* writable, NX where the mode has NX */
		if (!w->writable || (tc->cfg.levels >= 4 && !nx) ||
		    (w->gpa & ~PAGE_MASK) != want_gpa)
			return false;
		break;
	case PAGE_TABLE:	/* GDT, IDT: read-only */
		if (w->writable)
			return false;
		break;
	}
	note_leaf(tc, w->gpa);
	return true;
}

static bool check_range(struct table_check *tc, uint64_t va, uint64_t len,
			enum page_kind kind)
{
	struct pvsmm_walk w;

	for (uint64_t page = va & ~PAGE_MASK; page <= va + len - 1;
	     page += PVSMM_PAGE_SIZE)
		if (!check_page(tc, page, kind, 0, &w))
			return false;
	return true;
}

/* Reads linear memory of the entry (the GDT's descriptors). */
static bool read_linear(struct table_check *tc, uint64_t va, void *buf,
			size_t len)
{
	struct pvsmm_walk w;

	for (size_t done = 0; done < len;) {
		size_t chunk = PVSMM_PAGE_SIZE - ((va + done) & PAGE_MASK);

		if (chunk > len - done)
			chunk = len - done;
		if (pvsmm_walk(tc->mem, &tc->cfg, tc->cr3, va + done, &w) !=
		    PVSMM_WALK_OK || !mem_range(tc->mem, w.gpa, chunk))
			return false;
		memcpy((uint8_t *)buf + done, tc->mem->ram + w.gpa, chunk);
		done += chunk;
	}
	return true;
}

/* The descriptor the host loads from a selector must be what is there. */
static bool gdt_ok(struct table_check *tc, const struct pvsmm_entry *e,
		   unsigned int mode)
{
	uint64_t gdt[4];

	if (!read_linear(tc, e->gdt_va, gdt, sizeof(gdt)))
		return false;
	/*
	 * Present, S, DPL 0, code or (writable) data, Accessed preset (the
	 * CPU would write it into the read-only page on exception delivery);
	 * L for the 64-bit code; G and D/B, base 0 and a 4 GiB limit for the
	 * 32-bit code and the data segment.
	 */
	const uint64_t long_mask = 0x0060f90000000000ull;	/* D L P DPL S type3 A */
	const uint64_t data_mask = 0x00e0fb0000000000ull;	/* G B L ... W A */
	const uint64_t flat_mask = 0xff0f00ffffffffffull;	/* base, limit */
	const uint64_t flat = 0x000f00000000ffffull;
	uint64_t cs64 = gdt[PVSMM_PRIVATE_CS64 / 8];
	uint64_t ds = gdt[PVSMM_PRIVATE_DS / 8];
	uint64_t cs32 = gdt[PVSMM_PRIVATE_CS32 / 8];

	if (mode == PVSMM_MODE_LONG)
		return (cs64 & long_mask) == 0x0020990000000000ull &&
		       (ds & 0x0000fb0000000000ull) == 0x0000930000000000ull;
	return (cs32 & (data_mask & ~0x0000020000000000ull)) ==
		       0x00c0990000000000ull &&
	       (cs32 & flat_mask) == flat &&
	       (ds & data_mask) == 0x00c0930000000000ull &&
	       (ds & flat_mask) == flat;
}

static bool overlaps(uint64_t gpa, uint64_t start, uint64_t len)
{
	return gpa >= start && gpa - start < len;
}

/*
 * The CPU loads all four PAE PDPTEs at CR3 time and fails on a reserved
 * bit in any present one, whether a walk uses it or not.  Bits
 * MAXPHYADDR..51 are reserved too: a present PDPTE must name a page of
 * guest RAM, as KVM requires.  Reads them once into pdptes, which the
 * walk and the host then use.
 */
static bool pae_pdptes_ok(const struct pvsmm_guest_mem *m, uint64_t cr3,
			  uint64_t pdptes[4])
{
	for (unsigned int i = 0; i < 4; i++) {
		if (!read_u64(m, (cr3 & 0xffffffe0ull) + i * 8ull, &pdptes[i]))
			return false;
		if ((pdptes[i] & PTE_P) &&
		    ((pdptes[i] & PDPTE_RSVD) ||
		     !mem_range(m, pdptes[i] & PTE_ADDR, PVSMM_PAGE_SIZE)))
			return false;
	}
	return true;
}

static int check_entry_tables(const struct pvsmm_descriptor *d,
			      const struct pvsmm_guest_mem *m,
			      unsigned int mode, uint64_t cr3, unsigned int levels,
			      uint64_t pae_pdptes[4])
{
	const struct pvsmm_entry *e = &d->entry[mode];
	uint64_t idt_min = mode == PVSMM_MODE_LONG ?
			   PVSMM_PRIVATE_IDT64_MIN_LIMIT :
			   PVSMM_PRIVATE_IDT32_MIN_LIMIT;
	uint64_t percpu_len = (uint64_t)d->nr_vcpus * PVSMM_PERCPU_SIZE;
	struct table_check tc = {
		.mem = m,
		.cfg = { .levels = levels, .strict = true },
		.cr3 = cr3,
	};
	struct pvsmm_walk w;

	if (e->gdt_limit < PVSMM_PRIVATE_GDT_MIN_LIMIT ||
	    e->gdt_limit >= PVSMM_MAX_TABLE_SIZE ||
	    e->idt_limit < idt_min || e->idt_limit >= PVSMM_MAX_TABLE_SIZE)
		return PVSMM_STATUS_BAD_TABLES;

	if (levels == 3) {
		if (!pae_pdptes_ok(m, cr3, pae_pdptes))
			return PVSMM_STATUS_BAD_TABLES;
		tc.cfg.pdptrs = pae_pdptes;
	}

	/* The window: what slot PVSMM_WINDOW_SLOT of the PML4 names. */
	if (mode == PVSMM_MODE_LONG && d->window_pdpt) {
		uint64_t pml4 = cr3 & PTE_ADDR, pml4e;

		if (levels == 5) {
			uint64_t pml5e;

			if (!read_u64(m, pml4 + 511 * 8, &pml5e))
				return PVSMM_STATUS_BAD_TABLES;
			pml4 = pml5e & PTE_ADDR;
		}
		if (!read_u64(m, pml4 + PVSMM_WINDOW_SLOT * 8, &pml4e) ||
		    !(pml4e & PTE_P) || (pml4e & PTE_PS) ||
		    (pml4e & PTE_ADDR) != d->window_pdpt)
			return PVSMM_STATUS_BAD_TABLES;
	}

	if (!check_range(&tc, e->handler_va, e->handler_size, PAGE_CODE) ||
	    !check_range(&tc, e->gdt_va, (uint64_t)e->gdt_limit + 1,
			 PAGE_TABLE) ||
	    !check_range(&tc, e->idt_va, (uint64_t)e->idt_limit + 1,
			 PAGE_TABLE))
		return PVSMM_STATUS_BAD_TABLES;
	unsigned int code_leaves = tc.nr_leaves;

	for (uint32_t n = 0; n < d->nr_vcpus; n++)
		if (!check_page(&tc, e->percpu_va + n * (uint64_t)PVSMM_PERCPU_SIZE,
				PAGE_PERCPU,
				d->percpu_gpa + n * (uint64_t)PVSMM_PERCPU_SIZE,
				&w))
			return PVSMM_STATUS_BAD_TABLES;
	if (!gdt_ok(&tc, e, mode))
		return PVSMM_STATUS_BAD_TABLES;

	/*
	 * W^X across mappings, and no loops: no code, GDT or IDT page is also
	 * a per-vCPU area, and no mapped page is one of the page tables.
	 */
	for (unsigned int i = 0; i < tc.nr_leaves; i++) {
		if (i < code_leaves && overlaps(tc.leaves[i], d->percpu_gpa,
						percpu_len))
			return PVSMM_STATUS_BAD_TABLES;
		for (unsigned int j = 0; j < tc.nr_seen; j++)
			if (tc.leaves[i] == tc.seen_gpa[j])
				return PVSMM_STATUS_BAD_TABLES;
	}
	return PVSMM_STATUS_OK;
}

static int check_tables(const struct pvsmm_descriptor *d,
			const struct pvsmm_guest_mem *m, uint64_t pae_pdptes[4])
{
	static const unsigned int levels[PVSMM_NR_MODES] = {
		[PVSMM_MODE_LONG] = 4, [PVSMM_MODE_PAE] = 3, [PVSMM_MODE_32] = 2,
	};

	for (unsigned int mode = 0; mode < PVSMM_NR_MODES; mode++) {
		if (!entry_present(d, mode))
			continue;
		int status = check_entry_tables(d, m, mode, d->entry[mode].cr3,
						levels[mode], pae_pdptes);
		if (status != PVSMM_STATUS_OK)
			return status;
	}
	/* 5-level paging: the same pages at the same VAs from the PML5. */
	if (d->cr3_la57)
		return check_entry_tables(d, m, PVSMM_MODE_LONG, d->cr3_la57, 5,
					  pae_pdptes);
	return PVSMM_STATUS_OK;
}

int pvsmm_validate_descriptor(const struct pvsmm_descriptor *d,
			      const struct pvsmm_guest_mem *mem,
			      unsigned int online_vcpus, uint64_t *pae_pdptes)
{
	uint64_t scratch[4];
	uint64_t *pdptes = pae_pdptes ? pae_pdptes : scratch;

	memset(pdptes, 0, sizeof(scratch));
	if (d->magic != PVSMM_DESC_MAGIC)
		return PVSMM_STATUS_BAD_MAGIC;
	if (d->version != PVSMM_ABI_VERSION)
		return PVSMM_STATUS_BAD_VERSION;
	if (d->size != sizeof(struct pvsmm_descriptor))
		return PVSMM_STATUS_BAD_SIZE;
	if (d->flags != 0 || d->reserved != 0)
		return PVSMM_STATUS_BAD_FLAGS;
	for (unsigned int mode = 0; mode < PVSMM_NR_MODES; mode++)
		if (d->entry[mode].reserved)
			return PVSMM_STATUS_BAD_FLAGS;
	if (d->nr_vcpus < 1 || d->nr_vcpus > PVSMM_MAX_VCPUS ||
	    d->nr_vcpus < online_vcpus)
		return PVSMM_STATUS_BAD_VCPUS;

	int status = check_gpas(d, mem);
	if (status == PVSMM_STATUS_OK)
		status = check_vas(d);
	if (status == PVSMM_STATUS_OK)
		status = check_tables(d, mem, pdptes);
	return status;
}
