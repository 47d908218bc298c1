// SPDX-License-Identifier: MIT
/*
 * The Linux x86 boot protocol (Documentation/x86/boot.rst), the part a
 * loader that enters the kernel in protected or long mode needs: check the
 * setup header, decide where the kernel and initrd go, fill the zero page.
 * No real-mode setup code runs, so nothing below 1 MiB is the kernel's.
 * Pure functions over buffers: the unit tests call them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "linux_boot.h"

#define HDR_OFFSET		0x1f1
#define HDR_JUMP_END		0x202	/* header end = this + byte at 0x201 */
#define HDR_MAGIC		0x53726448	/* "HdrS" */
#define BOOT_FLAG		0xaa55
#define DEFAULT_SETUP_SECTS	4
#define LOW_LOAD_GPA		0x100000ull	/* where a fixed kernel runs */
#define STARTUP_64_OFFSET	0x200
#define LOADER_TYPE_UNDEFINED	0xff
#define PAGE_MASK_4K		0xfffull

static bool fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return false;
}

static struct setup_header read_header(const uint8_t *data, size_t len)
{
	struct setup_header h;

	memset(&h, 0, sizeof(h));
	memcpy(&h, data + HDR_OFFSET, len);
	return h;
}

bool linux_parse_image(const uint8_t *data, size_t size,
		       struct linux_image *img, char *err, size_t errlen)
{
	const size_t hdr_max = sizeof(struct setup_header);

	if (size < HDR_JUMP_END + 8)
		return fail(err, errlen, "too small (%zu bytes) for a bzImage",
			    size);
	size_t end = HDR_JUMP_END + data[HDR_JUMP_END - 1];
	size_t len = end - HDR_OFFSET;

	if (len > hdr_max)
		len = hdr_max;	/* newer fields than we know: not needed */
	if (HDR_OFFSET + len > size)
		return fail(err, errlen, "setup header runs past the file");
	struct setup_header h = read_header(data, len);

	if (h.header != HDR_MAGIC || h.boot_flag != BOOT_FLAG)
		return fail(err, errlen, "not a bzImage (no \"HdrS\" setup header)");
	if (h.version < LINUX_MIN_PROTOCOL)
		return fail(err, errlen,
			    "boot protocol %u.%02u is too old (2.12 or later needed)",
			    h.version >> 8, h.version & 0xff);
	if (!(h.loadflags & LOADED_HIGH))
		return fail(err, errlen, "a zImage (loads low): not supported");

	unsigned int sects = h.setup_sects ? h.setup_sects : DEFAULT_SETUP_SECTS;
	size_t setup_size = ((size_t)sects + 1) * 512;

	if (setup_size >= size)
		return fail(err, errlen, "no protected-mode kernel after %zu setup bytes",
			    setup_size);

	memset(img, 0, sizeof(*img));
	img->data = data;
	img->size = size;
	img->version = h.version;
	img->setup_size = setup_size;
	img->header_end = HDR_OFFSET + len;
	img->pref_address = h.pref_address;
	img->init_size = h.init_size;
	img->kernel_alignment = h.kernel_alignment;
	img->initrd_addr_max = h.initrd_addr_max;
	img->cmdline_size = h.cmdline_size;
	img->relocatable = h.relocatable_kernel != 0;
	img->entry64 = h.xloadflags & XLF_KERNEL_64;
	return true;
}

bool linux_plan(const struct linux_image *img, uint64_t ram_size,
		uint64_t initrd_size, struct linux_layout *lay, char *err,
		size_t errlen)
{
	uint64_t pm_size = img->size - img->setup_size;
	uint64_t need = img->init_size > pm_size ? img->init_size : pm_size;
	uint64_t at = LOW_LOAD_GPA;

	memset(lay, 0, sizeof(*lay));
	/*
	 * A relocatable kernel runs where it is loaded; at pref_address it
	 * need not move itself.  Otherwise the protocol's 1 MiB.
	 */
	if (img->relocatable && img->pref_address >= LOW_LOAD_GPA)
		at = img->pref_address;
	if (at + need > ram_size)
		return fail(err, errlen,
			    "the kernel needs RAM up to %llu MiB (%llu MiB at 0x%llx): raise --mem",
			    (unsigned long long)((at + need + (1 << 20) - 1) >> 20),
			    (unsigned long long)((need + (1 << 20) - 1) >> 20),
			    (unsigned long long)at);
	lay->kernel_gpa = at;
	lay->kernel_end = at + need;
	lay->entry32 = !img->entry64;
	lay->entry = img->entry64 ? at + STARTUP_64_OFFSET : at;

	if (initrd_size) {
		uint64_t top = ram_size;

		if ((uint64_t)img->initrd_addr_max + 1 < top)
			top = (uint64_t)img->initrd_addr_max + 1;
		if (initrd_size > top || ((top - initrd_size) & ~PAGE_MASK_4K) <
		    lay->kernel_end)
			return fail(err, errlen,
				    "the initrd (%llu bytes) does not fit between the kernel (ends at 0x%llx) and 0x%llx: raise --mem",
				    (unsigned long long)initrd_size,
				    (unsigned long long)lay->kernel_end,
				    (unsigned long long)top);
		lay->initrd_gpa = (top - initrd_size) & ~PAGE_MASK_4K;
		lay->initrd_size = initrd_size;
	}
	return true;
}

void linux_fill_boot_params(struct boot_params *bp,
			    const struct linux_image *img,
			    const struct linux_layout *lay,
			    uint64_t cmdline_gpa, uint64_t rsdp_gpa,
			    const struct boot_e820_entry *e820, size_t nr_e820)
{
	memset(bp, 0, sizeof(*bp));
	/* The kernel's header as it is, then the fields a loader writes. */
	memcpy(&bp->hdr, img->data + HDR_OFFSET, img->header_end - HDR_OFFSET);
	bp->hdr.type_of_loader = LOADER_TYPE_UNDEFINED;
	/* KEEP_SEGMENTS is obsolete; QUIET would hide early messages. */
	bp->hdr.loadflags &= (uint8_t)~(KEEP_SEGMENTS | QUIET_FLAG);
	bp->hdr.code32_start = (uint32_t)lay->kernel_gpa;
	bp->hdr.cmd_line_ptr = (uint32_t)cmdline_gpa;
	bp->hdr.ramdisk_image = (uint32_t)lay->initrd_gpa;
	bp->hdr.ramdisk_size = (uint32_t)lay->initrd_size;
	/* No video: screen_info stays zero, so vgacon finds no screen. */
	bp->acpi_rsdp_addr = rsdp_gpa;	/* protocol 2.14; older ones scan */
	if (nr_e820 > E820_MAX_ENTRIES_ZEROPAGE)
		nr_e820 = E820_MAX_ENTRIES_ZEROPAGE;
	memcpy(bp->e820_table, e820, nr_e820 * sizeof(e820[0]));
	bp->e820_entries = (uint8_t)nr_e820;
}
