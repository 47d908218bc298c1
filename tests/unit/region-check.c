// SPDX-License-Identifier: MIT
/*
 * region-check: validates a firmware's private region in a dump of guest
 * RAM with the VMM's own descriptor validation (host/vmm/descriptor.c: the
 * rules of abi.h, W^X and the page walk included).  Used on memory that
 * the self-test image and the option ROM's test image built under plain
 * QEMU (firmware/region-check.sh), so all three firmware builds are held
 * to the host's rules (the UEFI driver's C builder in tests/unit/desc.c).
 *
 * Usage: region-check DUMP BASE [ONLINE_VCPUS]
 *   DUMP   raw guest RAM from GPA 0 (QEMU's pmemsave)
 *   BASE   the region's GPA (the descriptor's)
 * Prints the status and exits 0 for PVSMM_STATUS_OK, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "descriptor.h"

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: region-check DUMP BASE [ONLINE_VCPUS]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	rewind(f);
	uint8_t *ram = malloc((size_t)size);
	if (!ram || fread(ram, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "region-check: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(f);

	uint64_t base = strtoull(argv[2], NULL, 0);
	unsigned int online = argc > 3 ? (unsigned int)strtoul(argv[3], NULL, 0) : 1;
	struct pvsmm_guest_mem mem = { .ram = ram, .size = (uint64_t)size };
	struct pvsmm_descriptor d;

	if (base >= (uint64_t)size || (uint64_t)size - base < sizeof(d)) {
		fprintf(stderr, "region-check: base %#llx outside the dump\n",
			(unsigned long long)base);
		return 2;
	}
	memcpy(&d, ram + base, sizeof(d));
	int status = pvsmm_validate_descriptor(&d, &mem, online, NULL);
	printf("region at %#llx: %u vCPU areas, entries long %s, PAE %s, 2-level %s: status %d%s\n",
	       (unsigned long long)base, d.nr_vcpus,
	       d.entry[PVSMM_MODE_LONG].cr3 ? "yes" : "no",
	       d.entry[PVSMM_MODE_PAE].cr3 ? "yes" : "no",
	       d.entry[PVSMM_MODE_32].cr3 ? "yes" : "no", status,
	       status == PVSMM_STATUS_OK ? " (OK)" : "");
	free(ram);
	return status == PVSMM_STATUS_OK ? 0 : 1;
}
