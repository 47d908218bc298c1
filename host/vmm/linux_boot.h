/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_LINUX_BOOT_H
#define PVSMM_LINUX_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/bootparam.h>

#define LINUX_MIN_PROTOCOL	0x020c	/* 2.12: xloadflags, 64-bit entry */

/* What the setup header of a bzImage says, checked. */
struct linux_image {
	const uint8_t *data;
	size_t size;
	uint16_t version;		/* boot protocol, e.g. 0x020f */
	size_t setup_size;		/* real-mode part: (setup_sects+1)*512 */
	size_t header_end;		/* 0x202 + byte at 0x201, clamped */
	uint64_t pref_address;
	uint32_t init_size;
	uint32_t kernel_alignment;
	uint32_t initrd_addr_max;
	uint32_t cmdline_size;		/* without the NUL */
	bool relocatable;
	bool entry64;			/* XLF_KERNEL_64: startup_64 at +0x200 */
};

/* Where everything goes in guest memory. */
struct linux_layout {
	uint64_t kernel_gpa;		/* the protected-mode kernel */
	uint64_t kernel_end;		/* kernel_gpa + its init_size */
	uint64_t initrd_gpa;		/* 0 without an initrd */
	uint64_t initrd_size;
	uint64_t entry;			/* startup_64 or code32_start */
	bool entry32;			/* use the 32-bit boot protocol */
};

/*
 * Checks a bzImage's setup header ("HdrS", protocol >= 2.12, loads high).
 * False with a one-line reason in err otherwise.  Pure.
 */
bool linux_parse_image(const uint8_t *data, size_t size,
		       struct linux_image *img, char *err, size_t errlen);

/*
 * Places the kernel (at its pref_address if relocatable, else 1 MiB) and
 * the initrd (as high as initrd_addr_max and RAM allow, page aligned,
 * above the kernel's init_size).  False with a reason if RAM is short.
 */
bool linux_plan(const struct linux_image *img, uint64_t ram_size,
		uint64_t initrd_size, struct linux_layout *lay, char *err,
		size_t errlen);

/* Fills the zero page: the kernel's own header, then what we provide. */
void linux_fill_boot_params(struct boot_params *bp,
			    const struct linux_image *img,
			    const struct linux_layout *lay,
			    uint64_t cmdline_gpa, uint64_t rsdp_gpa,
			    const struct boot_e820_entry *e820, size_t nr_e820);

#endif
