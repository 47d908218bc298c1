// SPDX-License-Identifier: MIT
/*
 * Unit tests of the Linux boot pieces: the e820 map, the ACPI tables,
 * the setup-header checks and placement, and the PM timer carry math
 * behind TMR_STS.  No /dev/kvm, no kernel image: synthetic inputs.
 */
#include <stdlib.h>
#include <string.h>

#include "acpi.h"
#include "e820.h"
#include "linux_boot.h"
#include "pm_ticks.h"
#include "pvsmm/abi.h"
#include "pvsmm/layout.h"
#include "suites.h"
#include "test.h"

static bool e820_covers(const struct boot_e820_entry *e, size_t n,
			uint64_t start, uint64_t end, uint32_t type)
{
	for (size_t i = 0; i < n; i++)
		if (e[i].addr <= start && end <= e[i].addr + e[i].size)
			return e[i].type == type;
	return false;
}

static void test_e820(void)
{
	struct boot_e820_entry e[16];
	uint64_t ram = 256ull << 20;
	size_t n = e820_build(ram, e, 16);

	CHECK(n >= 6, "%zu entries", n);
	for (size_t i = 1; i < n; i++)
		CHECK(e[i - 1].addr + e[i - 1].size <= e[i].addr,
		      "entry %zu overlaps or is out of order", i);
	CHECK(e820_covers(e, n, 0, 0x1000, E820_TYPE_RAM), "page 0 RAM");
	CHECK(e820_covers(e, n, PVSMM_BOOTINFO_GPA, PVSMM_BOOTINFO_GPA + 0x1000,
			  E820_TYPE_RESERVED), "bootinfo reserved");
	CHECK(e820_covers(e, n, PVSMM_LINUX_BOOT_PARAMS_GPA,
			  PVSMM_LINUX_CMDLINE_GPA + PVSMM_LINUX_CMDLINE_MAX,
			  E820_TYPE_RAM), "zero page and command line RAM");
	CHECK(e820_covers(e, n, PVSMM_FW_STACKS_GPA,
			  PVSMM_FW_PRIVATE_GPA + PVSMM_FW_PRIVATE_SIZE,
			  E820_TYPE_RESERVED), "firmware pages reserved");
	CHECK(e820_covers(e, n, PVSMM_ACPI_GPA, PVSMM_ACPI_GPA + PVSMM_ACPI_SIZE,
			  E820_TYPE_RESERVED), "ACPI tables reserved");
	CHECK(e820_covers(e, n, 0x100000, ram, E820_TYPE_RAM), "high RAM");
	CHECK(!e820_covers(e, n, ram, ram + 0x1000, E820_TYPE_RAM),
	      "nothing past RAM");
	CHECK(e820_covers(e, n, PVSMM_FW_ROM_GPA,
			  (uint64_t)PVSMM_FW_ROM_GPA + PVSMM_FW_ROM_SIZE,
			  E820_TYPE_RESERVED), "ROM reserved");
	CHECK(e820_build(ram, e, 3) == 3, "stops at max");
}

/* Finds a table by signature through RSDP -> XSDT. */
static const uint8_t *find_table(const uint8_t *buf, uint64_t base,
				 const char *sig)
{
	uint64_t xsdt_gpa, entry;
	uint32_t len;

	memcpy(&xsdt_gpa, buf + 24, 8);
	const uint8_t *xsdt = buf + (xsdt_gpa - base);
	memcpy(&len, xsdt + 4, 4);
	for (uint32_t off = 36; off + 8 <= len; off += 8) {
		memcpy(&entry, xsdt + off, 8);
		if (!memcmp(buf + (entry - base), sig, 4))
			return buf + (entry - base);
	}
	return NULL;
}

static uint32_t u32_at(const uint8_t *p, size_t off)
{
	uint32_t v;

	memcpy(&v, p + off, 4);
	return v;
}

static void test_acpi(void)
{
	static uint8_t buf[PVSMM_ACPI_SIZE];
	const uint64_t base = PVSMM_ACPI_GPA;
	struct acpi_config cfg = { .nr_vcpus = 4, .pm_timer_port = 0xb008 };
	size_t used = acpi_build(&cfg, buf, sizeof(buf), base);

	CHECK(used > 0 && used < 4096, "used %zu bytes", used);
	CHECK(!memcmp(buf, "RSD PTR ", 8), "RSDP first");
	CHECK(acpi_sum(buf, 20) == 0, "RSDP checksum");
	CHECK(acpi_sum(buf, 36) == 0, "RSDP extended checksum");
	CHECK(buf[15] == 2, "RSDP revision 2");

	const uint8_t *fadt = find_table(buf, base, "FACP");
	const uint8_t *madt = find_table(buf, base, "APIC");
	CHECK(fadt && madt, "XSDT lists FADT and MADT");
	if (!fadt || !madt)
		return;
	CHECK(acpi_sum(fadt, u32_at(fadt, 4)) == 0, "FADT checksum");
	CHECK(fadt[8] >= 3, "FADT revision %u", fadt[8]);
	CHECK(u32_at(fadt, 76) == 0xb008, "PM_TMR_BLK follows --pm-port");
	CHECK(fadt[91] == 4, "PM_TMR_LEN");
	CHECK(u32_at(fadt, 56) == ACPI_PM1_EVT_PORT && fadt[88] == 4,
	      "PM1a_EVT_BLK");
	CHECK(u32_at(fadt, 64) == ACPI_PM1_CNT_PORT && fadt[89] == 2,
	      "PM1a_CNT_BLK");
	CHECK((fadt[46] | fadt[47] << 8) == ACPI_SCI_IRQ, "SCI_INT");
	CHECK(!(u32_at(fadt, 112) & (1u << 8)), "24-bit timer (no TMR_VAL_EXT)");
	CHECK(fadt[208] == 1 && u32_at(fadt, 212) == 0xb008,
	      "X_PM_TMR_BLK in system I/O");

	uint64_t dsdt_gpa;
	memcpy(&dsdt_gpa, fadt + 140, 8);
	const uint8_t *dsdt = buf + (dsdt_gpa - base);
	CHECK(!memcmp(dsdt, "DSDT", 4) && acpi_sum(dsdt, u32_at(dsdt, 4)) == 0,
	      "DSDT signature and checksum");
	CHECK(u32_at(fadt, 40) == dsdt_gpa, "DSDT == X_DSDT");
	/*
	 * The AML the VMM gave guests before dsdt.asl existed, byte for
	 * byte: Name (_S5_, Package (4) { 5, 5, 0, 0 }).
	 */
	static const uint8_t s5_aml[] = {
		0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04,
		0x0a, ACPI_S5_SLP_TYP, 0x0a, ACPI_S5_SLP_TYP, 0x00, 0x00,
	};
	CHECK(u32_at(dsdt, 4) == 36 + sizeof(s5_aml) &&
	      !memcmp(dsdt + 36, s5_aml, sizeof(s5_aml)),
	      "DSDT AML unchanged (%u bytes)", u32_at(dsdt, 4));
	CHECK(!memcmp(dsdt + 10, "PVSMM PVSMMVMM", 14) &&
	      !memcmp(dsdt + 28, "PVSM", 4), "DSDT header is the VMM's own");
	uint64_t facs_gpa;
	memcpy(&facs_gpa, fadt + 132, 8);
	const uint8_t *facs = buf + (facs_gpa - base);
	CHECK(!memcmp(facs, "FACS", 4) && facs_gpa % 64 == 0 &&
	      u32_at(fadt, 36) == 0, "FACS by X_FIRMWARE_CTRL only, aligned");

	uint32_t mlen = u32_at(madt, 4);
	unsigned int lapics = 0, ioapics = 0, isos = 0;
	bool irq0_gsi2 = false, sci_level = false;

	CHECK(acpi_sum(madt, mlen) == 0, "MADT checksum");
	for (uint32_t off = 44; off + 2 <= mlen && madt[off + 1];
	     off += madt[off + 1]) {
		const uint8_t *e = madt + off;

		if (e[0] == 0)
			lapics += e[3] == lapics && (e[4] & 1);
		if (e[0] == 1)
			ioapics += u32_at(e, 4) == ACPI_IOAPIC_GPA;
		if (e[0] == 2) {
			isos++;
			irq0_gsi2 |= e[3] == 0 && u32_at(e, 4) == 2;
			sci_level |= e[3] == 9 && u32_at(e, 4) == 9 &&
				     (e[8] & 0xf) == 0xd;
		}
	}
	CHECK(lapics == 4, "one enabled LAPIC per vCPU, IDs 0..3: %u", lapics);
	CHECK(ioapics == 1, "IOAPIC at 0xfec00000");
	CHECK(isos == 2 && irq0_gsi2 && sci_level,
	      "overrides IRQ0->GSI2, IRQ9 level/high");
	CHECK(acpi_build(&cfg, buf, 100, base) == 0, "too small a buffer");
}

/* A minimal bzImage: setup header, 4 setup sectors, a protected part. */
static uint8_t *fake_bzimage(size_t *size, uint16_t version, bool k64)
{
	size_t sz = 5 * 512 + 0x10000;
	uint8_t *d = calloc(1, sz);
	struct setup_header h;

	memset(&h, 0, sizeof(h));
	h.setup_sects = 4;
	h.boot_flag = 0xaa55;
	h.jump = 0x66eb;
	h.header = 0x53726448;
	h.version = version;
	h.loadflags = LOADED_HIGH;
	h.initrd_addr_max = 0x7fffffff;
	h.kernel_alignment = 0x200000;
	h.relocatable_kernel = 1;
	h.xloadflags = k64 ? XLF_KERNEL_64 : 0;
	h.cmdline_size = 2047;
	h.pref_address = 0x1000000;
	h.init_size = 0x800000;
	memcpy(d + 0x1f1, &h, sizeof(h));
	d[0x201] = 0x6a;	/* header ends at 0x26c */
	*size = sz;
	return d;
}

static void test_linux_boot(void)
{
	struct linux_image img;
	struct linux_layout lay;
	char err[256];
	size_t size;
	uint8_t *k = fake_bzimage(&size, 0x020f, true);

	CHECK(linux_parse_image(k, size, &img, err, sizeof(err)), "%s", err);
	CHECK(img.setup_size == 5 * 512 && img.entry64 && img.relocatable,
	      "setup size %zu", img.setup_size);
	CHECK(linux_plan(&img, 64ull << 20, 0x12345, &lay, err, sizeof(err)),
	      "%s", err);
	CHECK(lay.kernel_gpa == 0x1000000 && lay.entry == 0x1000200 &&
	      !lay.entry32, "pref_address, startup_64");
	CHECK(lay.initrd_gpa + lay.initrd_size <= (64ull << 20) &&
	      lay.initrd_gpa >= lay.kernel_end && !(lay.initrd_gpa & 0xfff),
	      "initrd high, page aligned, above the kernel");
	CHECK(!linux_plan(&img, 23ull << 20, 0, &lay, err, sizeof(err)) &&
	      strstr(err, "raise --mem"), "short RAM: %s", err);
	CHECK(!linux_plan(&img, 26ull << 20, 4ull << 20, &lay, err, sizeof(err)),
	      "initrd does not fit");

	struct boot_e820_entry e[4] = { { 0, 0x1000, 1 } };
	struct boot_params *bp = malloc(sizeof(*bp));
	linux_plan(&img, 64ull << 20, 0x12345, &lay, err, sizeof(err));
	linux_fill_boot_params(bp, &img, &lay, 0x11000, 0xe0000, e, 1);
	CHECK(bp->hdr.header == 0x53726448 && bp->hdr.type_of_loader == 0xff,
	      "header copied, loader type");
	CHECK(bp->hdr.cmd_line_ptr == 0x11000 && bp->acpi_rsdp_addr == 0xe0000 &&
	      bp->e820_entries == 1 && bp->hdr.ramdisk_size == 0x12345 &&
	      bp->hdr.code32_start == 0x1000000, "fields a loader fills");
	free(bp);

	k[0x206] = 0x0b;	/* protocol 2.11 */
	CHECK(!linux_parse_image(k, size, &img, err, sizeof(err)) &&
	      strstr(err, "too old"), "old protocol: %s", err);
	k[0x206] = 0x0f;
	k[0x202] = 'X';
	CHECK(!linux_parse_image(k, size, &img, err, sizeof(err)) &&
	      strstr(err, "HdrS"), "no magic: %s", err);
	CHECK(!linux_parse_image(k, 100, &img, err, sizeof(err)), "truncated");
	free(k);

	k = fake_bzimage(&size, 0x020c, false);
	CHECK(linux_parse_image(k, size, &img, err, sizeof(err)) && !img.entry64,
	      "32-bit kernel: %s", err);
	CHECK(linux_plan(&img, 64ull << 20, 0, &lay, err, sizeof(err)) &&
	      lay.entry32 && lay.entry == lay.kernel_gpa, "code32_start entry");
	free(k);
}

/* TMR_STS: bit 23 of the counter toggles exactly at pm_timer_ns_at_ticks. */
static void test_pm_carry(void)
{
	for (uint64_t epoch = 1; epoch < 5000; epoch += 37) {
		uint64_t t = epoch << PM_TIMER_CARRY_SHIFT;
		uint64_t ns = pm_timer_ns_at_ticks(t);

		CHECK(pm_timer_total_ticks(ns) >> PM_TIMER_CARRY_SHIFT == epoch &&
		      pm_timer_total_ticks(ns - 1) >> PM_TIMER_CARRY_SHIFT ==
		      epoch - 1, "toggle %llu", (unsigned long long)epoch);
		CHECK(((pm_timer_ticks_from_ns(ns) ^ pm_timer_ticks_from_ns(ns - 1)) >>
		       PM_TIMER_CARRY_SHIFT) & 1, "bit 23 toggles there");
	}
	/* Past the 2^64 product (~5153 s): still exact. */
	uint64_t t = ((uint64_t)1 << 40) + 12345;
	uint64_t ns = pm_timer_ns_at_ticks(t);
	CHECK(pm_timer_total_ticks(ns) == t && pm_timer_total_ticks(ns - 1) == t - 1,
	      "ns_at_ticks is the first ns with that count");
}

void test_boot(void)
{
	test_e820();
	test_acpi();
	test_linux_boot();
	test_pm_carry();
}
