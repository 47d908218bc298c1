// SPDX-License-Identifier: MIT
/*
 * Writes the ACPI tables pvsmm-vmm gives a guest (host/vmm/acpi.c, the
 * DSDT compiled from dsdt.asl) as one file a table, SIG.dat, the form
 * `iasl -d` disassembles: tests/unit/acpi-check.sh reads them back.
 * Usage: acpi-dump DIR [VCPUS [PM_PORT]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi.h"

#define BASE_GPA	0xe0000u

static uint8_t buf[8192];

static uint32_t u32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static const uint8_t *table_at(uint64_t gpa)
{
	return buf + (gpa - BASE_GPA);
}

static int write_table(const char *dir, const uint8_t *t)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%.4s.dat", dir, (const char *)t);
	f = fopen(path, "wb");
	if (!f || fwrite(t, 1, u32_at(t + 4), f) != u32_at(t + 4) || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct acpi_config cfg = {
		.nr_vcpus = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 2,
		.pm_timer_port = argc > 3 ? (uint16_t)strtoul(argv[3], NULL, 0) :
					    0x608,
	};
	uint64_t xsdt_gpa, entry, dsdt_gpa;
	const uint8_t *xsdt, *fadt;
	int err = 0;

	if (argc < 2 || !acpi_build(&cfg, buf, sizeof(buf), BASE_GPA)) {
		fprintf(stderr, "usage: acpi-dump DIR [VCPUS [PM_PORT]]\n");
		return 2;
	}
	memcpy(&xsdt_gpa, buf + 24, 8);		/* RSDP.XsdtAddress */
	xsdt = table_at(xsdt_gpa);
	err |= write_table(argv[1], xsdt);
	for (uint32_t off = 36; off < u32_at(xsdt + 4); off += 8) {
		memcpy(&entry, xsdt + off, 8);
		err |= write_table(argv[1], table_at(entry));
	}
	fadt = table_at(((const uint64_t *)(xsdt + 36))[0]);
	memcpy(&dsdt_gpa, fadt + 140, 8);	/* FADT.X_DSDT */
	err |= write_table(argv[1], table_at(dsdt_gpa));
	return err;
}
