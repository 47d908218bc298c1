/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_ACPI_H
#define PVSMM_ACPI_H

#include <stddef.h>
#include <stdint.h>

/* The ACPI fixed hardware of pvsmm's VMM (q35's layout, PMBASE 0x600). */
#define ACPI_PM1_EVT_PORT	0x600	/* PM1_STS (2 bytes), PM1_EN (2) */
#define ACPI_PM1_EVT_LEN	4
#define ACPI_PM1_CNT_PORT	0x604
#define ACPI_PM1_CNT_LEN	2
#define ACPI_PM_TMR_LEN		4
#define ACPI_SCI_IRQ		9
#define ACPI_RESET_PORT		0xcf9	/* FADT RESET_REG */
#define ACPI_RESET_VALUE	0x06	/* RST_CPU | SYS_RST */
#define ACPI_S5_SLP_TYP		5	/* what \_S5 tells the OS to write */

#define ACPI_IOAPIC_GPA		0xfec00000u
#define ACPI_LAPIC_GPA		0xfee00000u

struct acpi_config {
	unsigned int nr_vcpus;
	uint16_t pm_timer_port;
};

/*
 * Builds RSDP, XSDT, FADT, FACS, DSDT and MADT into buf, which the guest
 * sees at base_gpa (16-byte aligned; the RSDP comes first, so a kernel
 * that scans the BIOS area finds it when base_gpa lies there).  Returns
 * the bytes used, 0 if size is too small.  Pure: the unit tests call it.
 */
size_t acpi_build(const struct acpi_config *cfg, uint8_t *buf, size_t size,
		  uint64_t base_gpa);

/* Sum of len bytes, mod 256: 0 for a table with a correct checksum. */
uint8_t acpi_sum(const void *p, size_t len);

#endif
