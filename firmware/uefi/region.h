/* SPDX-License-Identifier: MIT */
/*
 * The handler's private region in C: the UEFI driver builds its region
 * with this, and the VMM's unit tests (tests/unit/desc.c) build their good
 * descriptor with it and walk it with the VMM's validator, so the driver's
 * tables are checked by the same rules as the host's.  The self-test image
 * (firmware/private.asm) and the option ROM (firmware/optionrom/region.asm)
 * build the same layout (include/pvsmm/layout.h) in assembly.
 *
 * Pure C on a pointer to the region: no library calls, no EFI types.
 */
#ifndef PVSMM_REGION_H
#define PVSMM_REGION_H

#include <stdint.h>
#include "pvsmm/abi.h"
#include "pvsmm/layout.h"

/* The handler blob (firmware/handler.asm) and where its pieces start. */
struct pvsmm_blob {
	const uint8_t *code;
	uint32_t size;
	uint32_t entry64, stubs64, entry32, stubs32;	/* offsets in code */
};

#define PVSMM_RG_P		(1ull << 0)
#define PVSMM_RG_RW		(1ull << 1)
#define PVSMM_RG_A		(1ull << 5)
#define PVSMM_RG_D		(1ull << 6)
#define PVSMM_RG_NX		(1ull << 63)
#define PVSMM_RG_TABLE		(PVSMM_RG_P | PVSMM_RG_RW | PVSMM_RG_A)
#define PVSMM_RG_RO		(PVSMM_RG_P | PVSMM_RG_A)
#define PVSMM_RG_RWDATA		(PVSMM_RG_P | PVSMM_RG_RW | PVSMM_RG_A | PVSMM_RG_D)

static inline void pvsmm_rg_put64(uint8_t *r, uint32_t off, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		r[off + i] = (uint8_t)(v >> (8 * i));
}

static inline void pvsmm_rg_put32(uint8_t *r, uint32_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		r[off + i] = (uint8_t)(v >> (8 * i));
}

/*
 * Maps the page at region offset `off` in all three address spaces: the
 * window (long mode, VA = PVSMM_WINDOW_BASE + off) and the identity maps
 * of the PAE and 2-level entries (VA = GPA), each with its own second
 * directory/table should the region cross a 1 GiB, 2 MiB or 4 MiB line.
 */
static inline void pvsmm_rg_map(uint8_t *r, uint64_t base, uint32_t off,
				uint64_t flags, int nx)
{
	uint64_t gpa = base + off;
	uint32_t pd = PVSMM_REGION_PAE_PD +
		      (uint32_t)((gpa >> 30) - (base >> 30)) * PVSMM_PAGE_SIZE;
	uint32_t pt = PVSMM_REGION_PAE_PT +
		      (uint32_t)((gpa >> 21) - (base >> 21)) * PVSMM_PAGE_SIZE;
	uint32_t pt32 = PVSMM_REGION_PT32 +
			(uint32_t)((gpa >> 22) - (base >> 22)) * PVSMM_PAGE_SIZE;

	pvsmm_rg_put64(r, PVSMM_REGION_WINDOW_PT + (off >> 12) * 8,
		       gpa | flags | (nx ? PVSMM_RG_NX : 0));

	pvsmm_rg_put64(r, PVSMM_REGION_PAE_PDPT + (uint32_t)(gpa >> 30) * 8,
		       (base + pd) | PVSMM_RG_P);
	pvsmm_rg_put64(r, pd + (uint32_t)((gpa >> 21) & 511) * 8,
		       (base + pt) | PVSMM_RG_TABLE);
	pvsmm_rg_put64(r, pt + (uint32_t)((gpa >> 12) & 511) * 8, gpa | flags);

	pvsmm_rg_put32(r, PVSMM_REGION_PD32 + (uint32_t)(gpa >> 22) * 4,
		       (uint32_t)(base + pt32) | PVSMM_RG_TABLE);
	pvsmm_rg_put32(r, pt32 + (uint32_t)((gpa >> 12) & 1023) * 4,
		       (uint32_t)gpa | (uint32_t)flags);
}

/* va0 = the VA of region offset 0 in the entry's address space. */
static inline void pvsmm_rg_entry(struct pvsmm_entry *e, uint64_t cr3,
				  uint64_t va0, uint32_t entry_off,
				  const struct pvsmm_blob *b, uint32_t idt_off,
				  uint16_t idt_limit)
{
	e->cr3 = cr3;
	e->handler_va = va0 + PVSMM_REGION_CODE + entry_off;
	e->handler_size = b->size - entry_off;
	e->percpu_va = va0 + PVSMM_REGION_PERCPU;
	e->gdt_va = va0 + PVSMM_REGION_GDT;
	e->idt_va = va0 + idt_off;
	e->gdt_limit = PVSMM_PRIVATE_GDT_MIN_LIMIT;
	e->idt_limit = idt_limit;
	e->reserved = 0;
}

/*
 * Builds the region at r (host pointer) for guest-physical base `base`
 * (4 KiB aligned, below 4 GiB) with nr per-vCPU areas.  The region's
 * PVSMM_REGION_SIZE(nr) bytes must be zero; the blob must fit
 * PVSMM_REGION_CODE_MAX.  Leaves descriptor.status at PVSMM_STATUS_NONE.
 */
static inline void pvsmm_region_build(uint8_t *r, uint64_t base, uint32_t nr,
				      const struct pvsmm_blob *b)
{
	struct pvsmm_descriptor *d = (struct pvsmm_descriptor *)r;
	uint64_t win = PVSMM_WINDOW_BASE;
	uint32_t i;

	for (i = 0; i < b->size; i++)
		r[PVSMM_REGION_CODE + i] = b->code[i];

	pvsmm_rg_put64(r, PVSMM_REGION_GDT + PVSMM_PRIVATE_CS64,
		       0x00af9b000000ffffull);
	pvsmm_rg_put64(r, PVSMM_REGION_GDT + PVSMM_PRIVATE_DS,
		       0x00cf93000000ffffull);
	pvsmm_rg_put64(r, PVSMM_REGION_GDT + PVSMM_PRIVATE_CS32,
		       0x00cf9b000000ffffull);
	for (i = 0; i < 32; i++) {
		uint64_t s64 = win + PVSMM_REGION_CODE + b->stubs64 + 16 * i;
		uint32_t s32 = (uint32_t)base + PVSMM_REGION_CODE + b->stubs32 +
			       16 * i;
		uint32_t g64 = PVSMM_REGION_IDT64 + 16 * i;
		uint32_t g32 = PVSMM_REGION_IDT32 + 8 * i;

		/* Interrupt gates, present, DPL 0. */
		pvsmm_rg_put32(r, g64, (uint32_t)(s64 & 0xffff) |
				       (PVSMM_PRIVATE_CS64 << 16));
		pvsmm_rg_put32(r, g64 + 4, (uint32_t)(s64 & 0xffff0000) | 0x8e00);
		pvsmm_rg_put64(r, g64 + 8, s64 >> 32);
		pvsmm_rg_put32(r, g32, (s32 & 0xffff) | (PVSMM_PRIVATE_CS32 << 16));
		pvsmm_rg_put32(r, g32 + 4, (s32 & 0xffff0000) | 0x8e00);
	}

	pvsmm_rg_put64(r, PVSMM_REGION_PML4 + PVSMM_WINDOW_SLOT * 8,
		       (base + PVSMM_REGION_WINDOW_PDPT) | PVSMM_RG_TABLE);
	pvsmm_rg_put64(r, PVSMM_REGION_WINDOW_PDPT,
		       (base + PVSMM_REGION_WINDOW_PD) | PVSMM_RG_TABLE);
	pvsmm_rg_put64(r, PVSMM_REGION_WINDOW_PD,
		       (base + PVSMM_REGION_WINDOW_PT) | PVSMM_RG_TABLE);
	pvsmm_rg_put64(r, PVSMM_REGION_PML5 + 511 * 8,
		       (base + PVSMM_REGION_PML4) | PVSMM_RG_TABLE);

	pvsmm_rg_map(r, base, PVSMM_REGION_TABLES, PVSMM_RG_RO, 1);
	for (i = 0; i < b->size; i += PVSMM_PAGE_SIZE)
		pvsmm_rg_map(r, base, PVSMM_REGION_CODE + i, PVSMM_RG_RO, 0);
	for (i = 0; i < nr; i++)
		pvsmm_rg_map(r, base, PVSMM_REGION_PERCPU + i * PVSMM_PERCPU_SIZE,
			     PVSMM_RG_RWDATA, 1);

	d->magic = PVSMM_DESC_MAGIC;
	d->version = PVSMM_ABI_VERSION;
	d->size = sizeof(*d);
	d->flags = 0;
	d->nr_vcpus = nr;
	d->percpu_gpa = base + PVSMM_REGION_PERCPU;
	d->window_pdpt = base + PVSMM_REGION_WINDOW_PDPT;
	d->cr3_la57 = base + PVSMM_REGION_PML5;
	pvsmm_rg_entry(&d->entry[PVSMM_MODE_LONG], base + PVSMM_REGION_PML4,
		       win, b->entry64, b, PVSMM_REGION_IDT64,
		       PVSMM_PRIVATE_IDT64_MIN_LIMIT);
	pvsmm_rg_entry(&d->entry[PVSMM_MODE_PAE], base + PVSMM_REGION_PAE_PDPT,
		       base, b->entry32, b, PVSMM_REGION_IDT32,
		       PVSMM_PRIVATE_IDT32_MIN_LIMIT);
	pvsmm_rg_entry(&d->entry[PVSMM_MODE_32], base + PVSMM_REGION_PD32,
		       base, b->entry32, b, PVSMM_REGION_IDT32,
		       PVSMM_PRIVATE_IDT32_MIN_LIMIT);
	d->status = PVSMM_STATUS_NONE;
	d->reserved = 0;
}

#endif
