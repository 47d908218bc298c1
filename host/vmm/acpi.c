// SPDX-License-Identifier: MIT
/*
 * ACPI tables for a Linux guest: what a stock kernel needs to find the PM
 * timer, the SCI, the CPUs and the interrupt controllers, and to power off.
 *
 *   RSDP (revision 2) -> XSDT -> FADT, MADT
 *   FADT -> FACS, DSDT (X_ and 32-bit fields both filled, and equal)
 *
 * Layouts are the ACPI specification's (FADT as in ACPI 3.0, revision 4,
 * 244 bytes).  The FADT describes pvsmm's fixed hardware: PM1a event and
 * control blocks in userspace, the PM timer at the VMM's --pm-port, a
 * 24-bit counter (no TMR_VAL_EXT), SCI on IRQ 9, no SMI command port (the
 * machine is in ACPI mode from reset), no 8042 and no VGA (so the kernel
 * does not probe them), and a reset register.
 */
#include <stdbool.h>
#include <string.h>

#include "acpi.h"

#define OEM_ID		"PVSMM "	/* 6 bytes */
#define OEM_TABLE_ID	"PVSMMVMM"	/* 8 bytes */
#define CREATOR_ID	"PVSM"
#define OEM_REVISION	1
#define CREATOR_REV	1

struct acpi_header {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_header) == 36, "ACPI header");

struct acpi_rsdp {
	char signature[8];
	uint8_t checksum;		/* first 20 bytes */
	char oem_id[6];
	uint8_t revision;
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t extended_checksum;	/* all 36 bytes */
	uint8_t reserved[3];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP");

struct acpi_gas {
	uint8_t space_id;
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;
	uint64_t address;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS");

#define GAS_SYSTEM_IO		1
#define GAS_ACCESS_BYTE		1
#define GAS_ACCESS_WORD		2
#define GAS_ACCESS_DWORD	3

struct acpi_fadt {
	struct acpi_header h;
	uint32_t facs;
	uint32_t dsdt;
	uint8_t model;
	uint8_t preferred_pm_profile;
	uint16_t sci_int;
	uint32_t smi_cmd;
	uint8_t acpi_enable;
	uint8_t acpi_disable;
	uint8_t s4bios_req;
	uint8_t pstate_cnt;
	uint32_t pm1a_evt_blk;
	uint32_t pm1b_evt_blk;
	uint32_t pm1a_cnt_blk;
	uint32_t pm1b_cnt_blk;
	uint32_t pm2_cnt_blk;
	uint32_t pm_tmr_blk;
	uint32_t gpe0_blk;
	uint32_t gpe1_blk;
	uint8_t pm1_evt_len;
	uint8_t pm1_cnt_len;
	uint8_t pm2_cnt_len;
	uint8_t pm_tmr_len;
	uint8_t gpe0_blk_len;
	uint8_t gpe1_blk_len;
	uint8_t gpe1_base;
	uint8_t cst_cnt;
	uint16_t p_lvl2_lat;
	uint16_t p_lvl3_lat;
	uint16_t flush_size;
	uint16_t flush_stride;
	uint8_t duty_offset;
	uint8_t duty_width;
	uint8_t day_alrm;
	uint8_t mon_alrm;
	uint8_t century;
	uint16_t iapc_boot_arch;
	uint8_t reserved1;
	uint32_t flags;
	struct acpi_gas reset_reg;
	uint8_t reset_value;
	uint8_t reserved2[3];
	uint64_t x_firmware_ctrl;
	uint64_t x_dsdt;
	struct acpi_gas x_pm1a_evt_blk;
	struct acpi_gas x_pm1b_evt_blk;
	struct acpi_gas x_pm1a_cnt_blk;
	struct acpi_gas x_pm1b_cnt_blk;
	struct acpi_gas x_pm2_cnt_blk;
	struct acpi_gas x_pm_tmr_blk;
	struct acpi_gas x_gpe0_blk;
	struct acpi_gas x_gpe1_blk;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_fadt) == 244, "FADT");
_Static_assert(offsetof(struct acpi_fadt, pm_tmr_blk) == 76, "FADT.PM_TMR_BLK");
_Static_assert(offsetof(struct acpi_fadt, flags) == 112, "FADT.Flags");
_Static_assert(offsetof(struct acpi_fadt, x_dsdt) == 140, "FADT.X_DSDT");
_Static_assert(offsetof(struct acpi_fadt, x_pm_tmr_blk) == 208,
	       "FADT.X_PM_TMR_BLK");

/* FADT.Flags */
#define FADT_WBINVD		(1u << 0)
#define FADT_PROC_C1		(1u << 2)
#define FADT_PWR_BUTTON		(1u << 4)	/* no fixed power button */
#define FADT_SLP_BUTTON		(1u << 5)	/* no fixed sleep button */
#define FADT_RESET_REG_SUP	(1u << 10)
/* FADT.IAPC_BOOT_ARCH: legacy devices; no 8042 (bit 1 clear), no VGA,
 * no MSI (there is no PCI), no CMOS RTC flag clear (cmos.c is one). */
#define BOOT_ARCH_LEGACY_DEVICES	(1u << 0)
#define BOOT_ARCH_NO_VGA		(1u << 2)
#define BOOT_ARCH_NO_MSI		(1u << 3)
/* C2/C3 latencies above these limits mean "not supported". */
#define P_LVL2_NONE		101
#define P_LVL3_NONE		1001
#define CMOS_CENTURY_INDEX	0x32

struct acpi_facs {
	char signature[4];
	uint32_t length;
	uint32_t hardware_signature;
	uint32_t firmware_waking_vector;
	uint32_t global_lock;
	uint32_t flags;
	uint64_t x_firmware_waking_vector;
	uint8_t version;
	uint8_t reserved[3];
	uint32_t ospm_flags;
	uint8_t reserved2[24];
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_facs) == 64, "FACS");

struct madt_header {
	struct acpi_header h;
	uint32_t lapic_address;
	uint32_t flags;
} __attribute__((packed));

#define MADT_PCAT_COMPAT	1u	/* dual 8259s present */

struct madt_lapic {
	uint8_t type, length, processor_uid, apic_id;
	uint32_t flags;
} __attribute__((packed));

struct madt_ioapic {
	uint8_t type, length, ioapic_id, reserved;
	uint32_t address;
	uint32_t gsi_base;
} __attribute__((packed));

struct madt_iso {
	uint8_t type, length, bus, source;
	uint32_t gsi;
	uint16_t flags;
} __attribute__((packed));

struct madt_lapic_nmi {
	uint8_t type, length, processor_uid;
	uint16_t flags;
	uint8_t lint;
} __attribute__((packed));

_Static_assert(sizeof(struct madt_lapic) == 8, "MADT LAPIC");
_Static_assert(sizeof(struct madt_ioapic) == 12, "MADT IOAPIC");
_Static_assert(sizeof(struct madt_iso) == 10, "MADT ISO");
_Static_assert(sizeof(struct madt_lapic_nmi) == 6, "MADT LAPIC NMI");

#define MADT_TYPE_LAPIC		0
#define MADT_TYPE_IOAPIC	1
#define MADT_TYPE_ISO		2
#define MADT_TYPE_LAPIC_NMI	4
#define MADT_LAPIC_ENABLED	1u
#define ISO_POLARITY_HIGH	0x1
#define ISO_TRIGGER_LEVEL	(0x3 << 2)
#define KVM_IOAPIC_ID		0	/* KVM's in-kernel IOAPIC resets to 0 */

/*
 * The DSDT, compiled from dsdt.asl by iasl (-tc: a C array, dsdt_aml_code,
 * with iasl's own table header first).  Only its AML body is used: the
 * header is ours, like every other table's.
 */
#include "dsdt.hex"

#define AML_HEADER_LEN		36
#define DSDT_AML		(dsdt_aml_code + AML_HEADER_LEN)
#define DSDT_AML_LEN		(sizeof(dsdt_aml_code) - AML_HEADER_LEN)

uint8_t acpi_sum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum = (uint8_t)(sum + *b++);
	return sum;
}

static void header(struct acpi_header *h, const char *sig, uint32_t length,
		   uint8_t revision)
{
	memcpy(h->signature, sig, 4);
	h->length = length;
	h->revision = revision;
	memcpy(h->oem_id, OEM_ID, 6);
	memcpy(h->oem_table_id, OEM_TABLE_ID, 8);
	h->oem_revision = OEM_REVISION;
	memcpy(h->creator_id, CREATOR_ID, 4);
	h->creator_revision = CREATOR_REV;
}

static void checksum(void *table, size_t len, uint8_t *field)
{
	*field = 0;
	*field = (uint8_t)(0x100 - acpi_sum(table, len));
}

static struct acpi_gas io_gas(uint16_t port, unsigned int bytes,
			      uint8_t access)
{
	return (struct acpi_gas){
		.space_id = GAS_SYSTEM_IO,
		.bit_width = (uint8_t)(bytes * 8),
		.access_size = access,
		.address = port,
	};
}

/* A bump allocator over buf: each table at an aligned offset. */
struct area {
	uint8_t *buf;
	size_t size, used;
	uint64_t base_gpa;
	bool failed;
};

static void *take(struct area *a, size_t len, size_t align, uint64_t *gpa)
{
	size_t at = (a->used + align - 1) & ~(align - 1);

	if (a->failed || at > a->size || len > a->size - at) {
		a->failed = true;
		return NULL;
	}
	a->used = at + len;
	*gpa = a->base_gpa + at;
	memset(a->buf + at, 0, len);
	return a->buf + at;
}

static void build_fadt(struct acpi_fadt *f, const struct acpi_config *cfg,
		       uint64_t facs_gpa, uint64_t dsdt_gpa)
{
	header(&f->h, "FACP", sizeof(*f), 4);
	/* FACS only through X_FIRMWARE_CTRL: the spec wants one of the two. */
	f->facs = 0;
	f->dsdt = (uint32_t)dsdt_gpa;
	f->sci_int = ACPI_SCI_IRQ;
	f->smi_cmd = 0;			/* always in ACPI mode */
	f->pm1a_evt_blk = ACPI_PM1_EVT_PORT;
	f->pm1a_cnt_blk = ACPI_PM1_CNT_PORT;
	f->pm_tmr_blk = cfg->pm_timer_port;
	f->pm1_evt_len = ACPI_PM1_EVT_LEN;
	f->pm1_cnt_len = ACPI_PM1_CNT_LEN;
	f->pm_tmr_len = ACPI_PM_TMR_LEN;
	f->p_lvl2_lat = P_LVL2_NONE;
	f->p_lvl3_lat = P_LVL3_NONE;
	f->century = CMOS_CENTURY_INDEX;
	f->iapc_boot_arch = BOOT_ARCH_LEGACY_DEVICES | BOOT_ARCH_NO_VGA |
			    BOOT_ARCH_NO_MSI;
	/* No TMR_VAL_EXT (bit 8): the counter is 24 bits wide. */
	f->flags = FADT_WBINVD | FADT_PROC_C1 | FADT_PWR_BUTTON |
		   FADT_SLP_BUTTON | FADT_RESET_REG_SUP;
	f->reset_reg = io_gas(ACPI_RESET_PORT, 1, GAS_ACCESS_BYTE);
	f->reset_value = ACPI_RESET_VALUE;
	f->x_firmware_ctrl = facs_gpa;	/* below 4 GiB: 32-bit kernels too */
	f->x_dsdt = dsdt_gpa;
	f->x_pm1a_evt_blk = io_gas(ACPI_PM1_EVT_PORT, ACPI_PM1_EVT_LEN,
				   GAS_ACCESS_WORD);
	f->x_pm1a_cnt_blk = io_gas(ACPI_PM1_CNT_PORT, ACPI_PM1_CNT_LEN,
				   GAS_ACCESS_WORD);
	f->x_pm_tmr_blk = io_gas(cfg->pm_timer_port, ACPI_PM_TMR_LEN,
				 GAS_ACCESS_DWORD);
	checksum(f, sizeof(*f), &f->h.checksum);
}

static void *build_madt(struct area *a, const struct acpi_config *cfg,
			uint64_t *gpa, uint32_t *len)
{
	size_t n = cfg->nr_vcpus;
	size_t size = sizeof(struct madt_header) + n * sizeof(struct madt_lapic) +
		      sizeof(struct madt_ioapic) + 2 * sizeof(struct madt_iso) +
		      sizeof(struct madt_lapic_nmi);
	uint8_t *t = take(a, size, 16, gpa);

	if (!t)
		return NULL;
	struct madt_header *m = (struct madt_header *)t;
	uint8_t *p = t + sizeof(*m);

	header(&m->h, "APIC", (uint32_t)size, 3);
	m->lapic_address = ACPI_LAPIC_GPA;
	m->flags = MADT_PCAT_COMPAT;

	/* APIC ID = vCPU index (cpuid.c), UID the same. */
	for (size_t i = 0; i < n; i++) {
		struct madt_lapic l = {
			.type = MADT_TYPE_LAPIC, .length = sizeof(l),
			.processor_uid = (uint8_t)i, .apic_id = (uint8_t)i,
			.flags = MADT_LAPIC_ENABLED,
		};
		memcpy(p, &l, sizeof(l));
		p += sizeof(l);
	}
	struct madt_ioapic io = {
		.type = MADT_TYPE_IOAPIC, .length = sizeof(io),
		.ioapic_id = KVM_IOAPIC_ID, .address = ACPI_IOAPIC_GPA,
		.gsi_base = 0,
	};
	memcpy(p, &io, sizeof(io));
	p += sizeof(io);
	/* The PIT's IRQ 0 is IOAPIC pin 2 (irq.c routes it there). */
	struct madt_iso timer = {
		.type = MADT_TYPE_ISO, .length = sizeof(timer), .bus = 0,
		.source = 0, .gsi = 2, .flags = 0,
	};
	memcpy(p, &timer, sizeof(timer));
	p += sizeof(timer);
	/* The SCI is level-triggered, active high (pm1.c drives it). */
	struct madt_iso sci = {
		.type = MADT_TYPE_ISO, .length = sizeof(sci), .bus = 0,
		.source = ACPI_SCI_IRQ, .gsi = ACPI_SCI_IRQ,
		.flags = ISO_POLARITY_HIGH | ISO_TRIGGER_LEVEL,
	};
	memcpy(p, &sci, sizeof(sci));
	p += sizeof(sci);
	struct madt_lapic_nmi nmi = {
		.type = MADT_TYPE_LAPIC_NMI, .length = sizeof(nmi),
		.processor_uid = 0xff, .flags = 0, .lint = 1,
	};
	memcpy(p, &nmi, sizeof(nmi));
	checksum(t, size, &m->h.checksum);
	*len = (uint32_t)size;
	return t;
}

size_t acpi_build(const struct acpi_config *cfg, uint8_t *buf, size_t size,
		  uint64_t base_gpa)
{
	struct area a = { .buf = buf, .size = size, .base_gpa = base_gpa };
	uint64_t rsdp_gpa, xsdt_gpa, fadt_gpa, facs_gpa, dsdt_gpa, madt_gpa;
	uint32_t madt_len;
	const size_t xsdt_len = sizeof(struct acpi_header) + 2 * sizeof(uint64_t);
	const size_t dsdt_len = sizeof(struct acpi_header) + DSDT_AML_LEN;

	struct acpi_rsdp *rsdp = take(&a, sizeof(*rsdp), 16, &rsdp_gpa);
	uint8_t *xsdt = take(&a, xsdt_len, 16, &xsdt_gpa);
	struct acpi_fadt *fadt = take(&a, sizeof(*fadt), 16, &fadt_gpa);
	struct acpi_facs *facs = take(&a, sizeof(*facs), 64, &facs_gpa);
	uint8_t *dsdt = take(&a, dsdt_len, 16, &dsdt_gpa);
	void *madt = a.failed ? NULL : build_madt(&a, cfg, &madt_gpa, &madt_len);

	if (a.failed || !madt)
		return 0;

	memcpy(facs->signature, "FACS", 4);
	facs->length = sizeof(*facs);
	facs->version = 1;

	header((struct acpi_header *)dsdt, "DSDT", (uint32_t)dsdt_len, 2);
	memcpy(dsdt + sizeof(struct acpi_header), DSDT_AML, DSDT_AML_LEN);
	checksum(dsdt, dsdt_len, &((struct acpi_header *)dsdt)->checksum);

	build_fadt(fadt, cfg, facs_gpa, dsdt_gpa);

	header((struct acpi_header *)xsdt, "XSDT", (uint32_t)xsdt_len, 1);
	uint64_t entries[2] = { fadt_gpa, madt_gpa };
	memcpy(xsdt + sizeof(struct acpi_header), entries, sizeof(entries));
	checksum(xsdt, xsdt_len, &((struct acpi_header *)xsdt)->checksum);

	memcpy(rsdp->signature, "RSD PTR ", 8);
	memcpy(rsdp->oem_id, OEM_ID, 6);
	rsdp->revision = 2;
	rsdp->length = sizeof(*rsdp);
	rsdp->xsdt_address = xsdt_gpa;
	checksum(rsdp, 20, &rsdp->checksum);
	checksum(rsdp, sizeof(*rsdp), &rsdp->extended_checksum);
	(void)rsdp_gpa;		/* = base_gpa: the RSDP is taken first */
	return a.used;
}
