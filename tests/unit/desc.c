// SPDX-License-Identifier: MIT
/*
 * Unit tests of the registration descriptor's validation (ABI version 2)
 * and of the software page walk behind it.  The good descriptor and its
 * private tables come from firmware/uefi/region.h, the UEFI driver's own
 * builder, in a sparse fake guest RAM; every other case breaks one thing:
 * fields in order, then hostile tables (W+X pages, user pages, a per-vCPU
 * area at the wrong GPA, NX or Accessed bits where the PAE format forbids
 * them, large pages where 4 KiB are required, loops, unmapped or
 * malformed GDT/IDT).  Each must get its status and nothing else.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "descriptor.h"
#include "suites.h"
#include "test.h"
#include "../../firmware/uefi/region.h"

#define RAM_SIZE	((1ull << 30) + (4ull << 20))	/* past the 1 GiB line */
#define BASE		0x7c000ull	/* the self-test image's region */
#define NR		4

static uint8_t *ram;
static struct pvsmm_guest_mem mem;

static uint8_t blob_code[0x900];
static const struct pvsmm_blob blob = {
	.code = blob_code, .size = sizeof(blob_code),
	.entry64 = 0, .stubs64 = 0x100, .entry32 = 0x400, .stubs32 = 0x500,
};

static uint64_t region_base;

/* A fresh good region at `base`; returns the descriptor's copy. */
static struct pvsmm_descriptor build(uint64_t base)
{
	struct pvsmm_descriptor d;

	memset(ram + base, 0, PVSMM_REGION_SIZE(NR));
	pvsmm_region_build(ram + base, base, NR, &blob);
	region_base = base;
	memcpy(&d, ram + base, sizeof(d));
	return d;
}

static int validate(const struct pvsmm_descriptor *d, unsigned int online)
{
	return pvsmm_validate_descriptor(d, &mem, online, NULL);
}

static uint64_t get64(uint64_t gpa)
{
	uint64_t v;

	memcpy(&v, ram + gpa, 8);
	return v;
}

static void set64(uint64_t gpa, uint64_t v)
{
	memcpy(ram + gpa, &v, 8);
}

static void or64(uint64_t gpa, uint64_t bits) { set64(gpa, get64(gpa) | bits); }
static void and64(uint64_t gpa, uint64_t bits) { set64(gpa, get64(gpa) & bits); }

static void or32(uint64_t gpa, uint32_t bits)
{
	uint32_t v;

	memcpy(&v, ram + gpa, 4);
	v |= bits;
	memcpy(ram + gpa, &v, 4);
}

/* The leaf entries of the page at region offset `off`, per mode. */
static uint64_t pte_long(uint32_t off)
{
	return region_base + PVSMM_REGION_WINDOW_PT + (off >> 12) * 8;
}

static uint64_t pte_pae(uint32_t off)	/* base below any 2 MiB line */
{
	return region_base + PVSMM_REGION_PAE_PT +
	       (((region_base + off) >> 12) & 511) * 8;
}

static uint64_t pte_32(uint32_t off)
{
	return region_base + PVSMM_REGION_PT32 +
	       (((region_base + off) >> 12) & 1023) * 4;
}

#define EXPECT(what, want, ...) do {					\
		struct pvsmm_descriptor d = build(BASE);		\
		unsigned int online = 1;				\
		__VA_ARGS__;						\
		int got = validate(&d, online);				\
		CHECK(got == (want), "%s: got status %d, want %d",	\
		      what, got, want);					\
	} while (0)

static void test_fields(void)
{
	EXPECT("good", PVSMM_STATUS_OK);
	EXPECT("good, all vCPUs online", PVSMM_STATUS_OK, online = NR);
	EXPECT("magic", PVSMM_STATUS_BAD_MAGIC, d.magic = 0);
	EXPECT("version 1", PVSMM_STATUS_BAD_VERSION, d.version = 1);
	EXPECT("size of version 1", PVSMM_STATUS_BAD_SIZE, d.size = 88);
	EXPECT("flags", PVSMM_STATUS_BAD_FLAGS, d.flags = 1);
	EXPECT("reserved", PVSMM_STATUS_BAD_FLAGS, d.reserved = 1);
	EXPECT("entry reserved", PVSMM_STATUS_BAD_FLAGS,
	       d.entry[PVSMM_MODE_32].reserved = 1);
	EXPECT("first fault wins", PVSMM_STATUS_BAD_MAGIC,
	       d.magic = 0; d.flags = 1);
	EXPECT("no vCPUs", PVSMM_STATUS_BAD_VCPUS, d.nr_vcpus = 0);
	EXPECT("too many vCPUs", PVSMM_STATUS_BAD_VCPUS,
	       d.nr_vcpus = PVSMM_MAX_VCPUS + 1);
	EXPECT("fewer areas than vCPUs", PVSMM_STATUS_BAD_VCPUS, online = NR + 1);

	EXPECT("percpu unaligned", PVSMM_STATUS_BAD_GPA, d.percpu_gpa += 8);
	EXPECT("percpu past RAM", PVSMM_STATUS_BAD_GPA,
	       d.percpu_gpa = RAM_SIZE - 3 * PVSMM_PAGE_SIZE);
	EXPECT("window PDPT past RAM", PVSMM_STATUS_BAD_GPA,
	       d.window_pdpt = RAM_SIZE);
	EXPECT("PML5 unaligned", PVSMM_STATUS_BAD_GPA, d.cr3_la57 += 0x10);
	EXPECT("PAE PDPT misaligned", PVSMM_STATUS_BAD_GPA,
	       d.entry[PVSMM_MODE_PAE].cr3 += 8);
	EXPECT("2-level cr3 above 4 GiB", PVSMM_STATUS_BAD_GPA,
	       d.entry[PVSMM_MODE_32].cr3 = 0x100000000ull);
	EXPECT("long cr3 unaligned", PVSMM_STATUS_BAD_GPA,
	       d.entry[PVSMM_MODE_LONG].cr3 |= 0x18);

	EXPECT("no entry at all", PVSMM_STATUS_BAD_VA,
	       d.window_pdpt = 0; d.cr3_la57 = 0;
	       for (int m = 0; m < PVSMM_NR_MODES; m++) d.entry[m].cr3 = 0);
	EXPECT("window without a long entry", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_LONG].cr3 = 0);
	EXPECT("long handler outside the window", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_LONG].handler_va = 0x1000);
	EXPECT("long handler past the window", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_LONG].handler_va =
		       PVSMM_WINDOW_BASE + PVSMM_WINDOW_SIZE - 8);
	EXPECT("handler size 0", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_PAE].handler_size = 0);
	EXPECT("handler too large", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_PAE].handler_size = PVSMM_MAX_HANDLER_SIZE + 1);
	EXPECT("32-bit handler past 4 GiB", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_32].handler_va = 0xfffffff0ull;
	       d.entry[PVSMM_MODE_32].handler_size = 0x20);
	EXPECT("percpu VA unaligned", PVSMM_STATUS_BAD_VA,
	       d.entry[PVSMM_MODE_PAE].percpu_va += 0x800);
	EXPECT("long, no window, non-canonical", PVSMM_STATUS_BAD_VA,
	       d.window_pdpt = 0;
	       d.entry[PVSMM_MODE_LONG].idt_va = 0x0000800000000000ull);
	/* Only some modes served: fine. */
	EXPECT("only the PAE entry", PVSMM_STATUS_OK,
	       d.window_pdpt = 0; d.cr3_la57 = 0;
	       d.entry[PVSMM_MODE_LONG].cr3 = 0; d.entry[PVSMM_MODE_32].cr3 = 0);
	EXPECT("long without the window", PVSMM_STATUS_OK, d.window_pdpt = 0);
	EXPECT("no 5-level root", PVSMM_STATUS_OK, d.cr3_la57 = 0);
}

static void test_tables(void)
{
	const uint32_t code = PVSMM_REGION_CODE, percpu = PVSMM_REGION_PERCPU;
	const uint32_t tables = PVSMM_REGION_TABLES;
	const uint64_t nx = 1ull << 63;

	/* wx-*: W^X and supervisor-only. */
	EXPECT("wx-save-area-executable (long)", PVSMM_STATUS_BAD_TABLES,
	       and64(pte_long(percpu + 0x1000), ~nx));
	EXPECT("wx-code-writable (long)", PVSMM_STATUS_BAD_TABLES,
	       or64(pte_long(code), 2));
	EXPECT("wx-code-nx (long)", PVSMM_STATUS_BAD_TABLES,
	       or64(pte_long(code), nx));
	EXPECT("wx-code-writable (PAE)", PVSMM_STATUS_BAD_TABLES,
	       or64(pte_pae(code), 2));
	EXPECT("wx-code-writable (2-level)", PVSMM_STATUS_BAD_TABLES,
	       or32(pte_32(code), 2));
	EXPECT("wx-gdt-writable (2-level)", PVSMM_STATUS_BAD_TABLES,
	       or32(pte_32(tables), 2));
	EXPECT("wx-save-area-read-only (PAE)", PVSMM_STATUS_BAD_TABLES,
	       and64(pte_pae(percpu), ~2ull));
	/* U/S at every level: a page the guest's user mode could reach. */
	EXPECT("wx-user-page (long)", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PML4 + PVSMM_WINDOW_SLOT * 8, 4);
	       or64(region_base + PVSMM_REGION_WINDOW_PDPT, 4);
	       or64(region_base + PVSMM_REGION_WINDOW_PD, 4);
	       or64(pte_long(percpu), 4));
	EXPECT("wx-user-page (2-level)", PVSMM_STATUS_BAD_TABLES,
	       or32(region_base + PVSMM_REGION_PD32, 4);
	       or32(pte_32(code), 4));
	EXPECT("U/S on a leaf alone is still supervisor", PVSMM_STATUS_OK,
	       or64(pte_long(percpu), 4));
	EXPECT("wx-code-is-a-save-area (long)", PVSMM_STATUS_BAD_TABLES,
	       set64(pte_long(code), (region_base + percpu) | 0x21));

	/* The per-vCPU areas at exactly their GPAs. */
	EXPECT("percpu wrong GPA (long)", PVSMM_STATUS_BAD_TABLES,
	       set64(pte_long(percpu + 0x1000), get64(pte_long(percpu + 0x2000))));
	EXPECT("percpu wrong GPA (2-level)", PVSMM_STATUS_BAD_TABLES,
	       or32(pte_32(percpu + 0x3000), 0x1000));
	EXPECT("percpu unmapped (PAE)", PVSMM_STATUS_BAD_TABLES,
	       set64(pte_pae(percpu + 0x3000), 0));

	/* What the 32-bit formats forbid. */
	EXPECT("NX in a PAE PTE", PVSMM_STATUS_BAD_TABLES,
	       or64(pte_pae(percpu), nx));
	EXPECT("NX in a PAE PDPTE", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PAE_PDPT, nx));
	EXPECT("Accessed in a PAE PDPTE", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PAE_PDPT, 0x20));
	EXPECT("R/W in a PAE PDPTE", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PAE_PDPT, 2));
	EXPECT("bit 52 in a PAE PDPTE", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PAE_PDPT, 1ull << 52));
	/* The CPU loads PDPTE 3 with CR3 although no walk here uses it. */
	EXPECT("unused PAE PDPTE: bit 8", PVSMM_STATUS_BAD_TABLES,
	       set64(region_base + PVSMM_REGION_PAE_PDPT + 24,
		     (region_base + PVSMM_REGION_PAE_PD) | 0x101));
	EXPECT("unused PAE PDPTE: address past RAM (MAXPHYADDR)",
	       PVSMM_STATUS_BAD_TABLES,
	       set64(region_base + PVSMM_REGION_PAE_PDPT + 24,
		     (region_base + PVSMM_REGION_PAE_PD) | 1ull << 51 | 1));
	EXPECT("unused PAE PDPTE in RAM", PVSMM_STATUS_OK,
	       set64(region_base + PVSMM_REGION_PAE_PDPT + 24,
		     (region_base + PVSMM_REGION_PAE_PD) | 1));
	EXPECT("2 MiB page in PAE tables", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PAE_PD, 0x80));
	EXPECT("4 MiB page in 2-level tables", PVSMM_STATUS_BAD_TABLES,
	       or32(region_base + PVSMM_REGION_PD32, 0x80));
	EXPECT("1 GiB page in the window", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_WINDOW_PDPT, 0x80));
	EXPECT("PS in the PML4", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_PML4 + PVSMM_WINDOW_SLOT * 8, 0x80));

	/* Loops: a table reachable at two levels. */
	EXPECT("loop: the window PDPT names itself", PVSMM_STATUS_BAD_TABLES,
	       set64(region_base + PVSMM_REGION_WINDOW_PDPT,
		     (region_base + PVSMM_REGION_WINDOW_PDPT) | 3));
	EXPECT("loop: PML4 self-map", PVSMM_STATUS_BAD_TABLES,
	       set64(region_base + PVSMM_REGION_WINDOW_PD,
		     (region_base + PVSMM_REGION_PML4) | 3));
	EXPECT("loop: 2-level directory as its own table", PVSMM_STATUS_BAD_TABLES,
	       or32(region_base + PVSMM_REGION_PD32, 0);
	       {
		       uint32_t pde = (uint32_t)(region_base + PVSMM_REGION_PD32) | 3;
		       memcpy(ram + region_base + PVSMM_REGION_PD32, &pde, 4);
	       });
	EXPECT("a table mapped as the save area", PVSMM_STATUS_BAD_TABLES,
	       set64(pte_long(percpu), (region_base + PVSMM_REGION_WINDOW_PT) |
				       0x63 | nx);
	       d.percpu_gpa = region_base + PVSMM_REGION_WINDOW_PT;
	       d.nr_vcpus = 1);

	/* Tables outside RAM. */
	EXPECT("page table outside RAM", PVSMM_STATUS_BAD_TABLES,
	       set64(region_base + PVSMM_REGION_WINDOW_PD, RAM_SIZE | 3));

	/* The window, the 5-level root. */
	EXPECT("window PDPT is not PML4[271]'s", PVSMM_STATUS_BAD_TABLES,
	       d.window_pdpt = region_base + PVSMM_REGION_PAE_PD);
	EXPECT("PML5 without its entry 511", PVSMM_STATUS_BAD_TABLES,
	       set64(region_base + PVSMM_REGION_PML5 + 511 * 8, 0));

	/* GDT and IDT. */
	EXPECT("GDT limit below the minimum", PVSMM_STATUS_BAD_TABLES,
	       d.entry[PVSMM_MODE_PAE].gdt_limit = 0x17);
	EXPECT("IDT64 limit below the minimum", PVSMM_STATUS_BAD_TABLES,
	       d.entry[PVSMM_MODE_LONG].idt_limit = PVSMM_PRIVATE_IDT32_MIN_LIMIT);
	EXPECT("IDT limit past PVSMM_MAX_TABLE_SIZE", PVSMM_STATUS_BAD_TABLES,
	       d.entry[PVSMM_MODE_32].idt_limit = PVSMM_MAX_TABLE_SIZE);
	EXPECT("GDT unmapped (2-level)", PVSMM_STATUS_BAD_TABLES,
	       memset(ram + pte_32(tables), 0, 4));
	EXPECT("IDT into an unmapped page (PAE)", PVSMM_STATUS_BAD_TABLES,
	       d.entry[PVSMM_MODE_PAE].idt_va = region_base + code + 0xf80);
	EXPECT("CS32 16-bit", PVSMM_STATUS_BAD_TABLES,
	       and64(region_base + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS32,
		     ~(1ull << 54)));
	EXPECT("CS64 without L", PVSMM_STATUS_BAD_TABLES,
	       and64(region_base + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS64,
		     ~(1ull << 53)));
	EXPECT("data segment not accessed", PVSMM_STATUS_BAD_TABLES,
	       and64(region_base + PVSMM_REGION_GDT + PVSMM_PRIVATE_DS,
		     ~(1ull << 40)));
	EXPECT("CS32 DPL 3", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS32,
		    3ull << 45));
	EXPECT("data segment based", PVSMM_STATUS_BAD_TABLES,
	       or64(region_base + PVSMM_REGION_GDT + PVSMM_PRIVATE_DS,
		    0x1000ull << 16));
}

/* Regions that straddle a 2 MiB / 4 MiB line, and the 1 GiB line. */
static void test_placement(void)
{
	static const uint64_t bases[] = {
		0x1f0000, 0x3f8000, 0x3ffe0000, RAM_SIZE - PVSMM_REGION_SIZE(NR) -
		0x1000,
	};

	for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		struct pvsmm_descriptor d = build(bases[i]);
		int got = validate(&d, NR);

		CHECK(got == PVSMM_STATUS_OK, "region at %#llx: status %d",
		      (unsigned long long)bases[i], got);
		memset(ram + bases[i], 0, PVSMM_REGION_SIZE(NR));
	}
}

/*
 * The PDPTEs the host loads are the ones it checked: the validator reads
 * them once and hands them back, so a PDPT that another vCPU rewrites
 * after the check (the guest may, at any time) is never loaded.
 */
static void test_pdptes_read_once(void)
{
	struct pvsmm_descriptor d = build(BASE);
	uint64_t pdpt = region_base + PVSMM_REGION_PAE_PDPT;
	uint64_t got[4], want[4];

	memcpy(want, ram + pdpt, sizeof(want));
	CHECK(pvsmm_validate_descriptor(&d, &mem, 1, got) == PVSMM_STATUS_OK &&
	      !memcmp(got, want, sizeof(got)),
	      "the validated PDPTEs are handed back");
	/* The guest's later write changes nothing that was handed back. */
	set64(pdpt + 24, (region_base + PVSMM_REGION_PAE_PD) | 0x101);
	CHECK(!memcmp(got, want, sizeof(got)) && !(got[3] & 0x100),
	      "a PDPT rewritten after validation is not what the host holds");
	/* No PAE entry: nothing to load. */
	d = build(BASE);
	memset(&d.entry[PVSMM_MODE_PAE], 0, sizeof(d.entry[PVSMM_MODE_PAE]));
	memset(got, 0xff, sizeof(got));
	int status = pvsmm_validate_descriptor(&d, &mem, 1, got);

	CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 0,
	      "no PAE entry: no PDPTEs handed back (status %d)", status);
}

/* The walker alone, as the VMM uses it on a guest's own tables. */
static void test_walk(void)
{
	struct pvsmm_descriptor d = build(BASE);
	struct pvsmm_walk w;
	struct pvsmm_walk_config lenient = { .levels = 3 };
	struct pvsmm_walk_config strict = { .levels = 3, .strict = true };
	uint64_t va = region_base + PVSMM_REGION_PERCPU + 0x1000;

	CHECK(pvsmm_walk(&mem, &strict, d.entry[PVSMM_MODE_PAE].cr3, va + 0x123,
			 &w) == PVSMM_WALK_OK && w.gpa == va + 0x123 &&
	      w.writable && !w.user && !w.nx && w.nr_tables == 3,
	      "PAE walk to the save area");
	or64(region_base + PVSMM_REGION_PAE_PDPT, 0x20);	/* TCG's A bit */
	CHECK(pvsmm_walk(&mem, &lenient, d.entry[PVSMM_MODE_PAE].cr3, va, &w) ==
	      PVSMM_WALK_OK, "a guest's PDPTE with A set is walked");
	CHECK(pvsmm_walk(&mem, &strict, d.entry[PVSMM_MODE_PAE].cr3, va, &w) ==
	      PVSMM_WALK_RESERVED, "but not in private tables");
	CHECK(pvsmm_walk(&mem, &strict, d.entry[PVSMM_MODE_PAE].cr3,
			 0x100000000ull, &w) == PVSMM_WALK_NONCANONICAL,
	      "no VA above 4 GiB in 32-bit modes");
	/* The PDPTRs the CPU holds win over the PDPT in memory. */
	uint64_t held[4] = { 0 };
	struct pvsmm_walk_config cached = { .levels = 3, .pdptrs = held };
	CHECK(pvsmm_walk(&mem, &cached, d.entry[PVSMM_MODE_PAE].cr3, va, &w) ==
	      PVSMM_WALK_NOT_PRESENT, "PAE walk through held PDPTRs");
	held[0] = get64(region_base + PVSMM_REGION_PAE_PDPT) & ~0x20ull;
	CHECK(pvsmm_walk(&mem, &cached, d.entry[PVSMM_MODE_PAE].cr3, va, &w) ==
	      PVSMM_WALK_OK && w.gpa == va, "PAE walk through held PDPTRs, 2");

	/* A 2-level guest with 4 MiB pages (CR4.PSE) and without. */
	uint32_t pd[1024];
	memset(pd, 0, sizeof(pd));
	pd[1] = 0x00400000u | 0x83;
	memcpy(ram + 0x300000, pd, sizeof(pd));
	struct pvsmm_walk_config pse = { .levels = 2, .pse = true };
	CHECK(pvsmm_walk(&mem, &pse, 0x300000, 0x456789, &w) == PVSMM_WALK_OK &&
	      w.gpa == 0x456789 && w.writable, "4 MiB page with PSE");
	/* 1 GiB and 2 MiB pages of a long-mode guest. */
	uint64_t pml4[512], pdpt[512], pdir[512];
	memset(pml4, 0, sizeof(pml4));
	memset(pdpt, 0, sizeof(pdpt));
	memset(pdir, 0, sizeof(pdir));
	pml4[0] = 0x311000 | 3;
	pdpt[0] = 0x312000 | 3;
	pdpt[1] = 0x40000000 | 0x83 | (1ull << 63);
	pdir[3] = 0x600000 | 0x81;
	memcpy(ram + 0x310000, pml4, sizeof(pml4));
	memcpy(ram + 0x311000, pdpt, sizeof(pdpt));
	memcpy(ram + 0x312000, pdir, sizeof(pdir));
	struct pvsmm_walk_config l4 = { .levels = 4 };
	CHECK(pvsmm_walk(&mem, &l4, 0x310000, 0x4000abcdull, &w) == PVSMM_WALK_OK &&
	      w.gpa == 0x4000abcd && w.nx, "1 GiB page, NX");
	CHECK(pvsmm_walk(&mem, &l4, 0x310000, 0x612345, &w) == PVSMM_WALK_OK &&
	      w.gpa == 0x612345 && !w.writable, "2 MiB page, read-only");
	CHECK(pvsmm_walk(&mem, &l4, 0x310000, 0x0000800000000000ull, &w) ==
	      PVSMM_WALK_NONCANONICAL, "non-canonical");
	CHECK(pvsmm_walk(&mem, &l4, 0x310000, 0x80000000ull, &w) ==
	      PVSMM_WALK_NOT_PRESENT, "not present");
}

void test_descriptor(void)
{
	ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED) {
		CHECK(0, "cannot map %llu bytes of fake RAM",
		      (unsigned long long)RAM_SIZE);
		return;
	}
	mem.ram = ram;
	mem.size = RAM_SIZE;
	for (size_t i = 0; i < sizeof(blob_code); i++)
		blob_code[i] = 0xcc;
	test_fields();
	test_tables();
	test_placement();
	test_pdptes_read_once();
	test_walk();
	munmap(ram, RAM_SIZE);
}
