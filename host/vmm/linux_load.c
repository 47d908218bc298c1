// SPDX-License-Identifier: MIT
/*
 * Linux boot, the VMM's side: files into guest RAM, the zero page, the
 * e820 map and the ACPI tables.  The firmware still runs first (kvmclock,
 * handler, registration) and then enters the kernel as bootinfo says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_load.h"
#include "acpi.h"
#include "e820.h"
#include "linux_boot.h"
#include "guest_mem.h"

#define MAX_FILE_BYTES	(1ull << 30)

static uint8_t *read_file(const char *path, const char *what, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		vmm_die(EXIT_SETUP_ERROR, "cannot open %s '%s': %s", what, path,
			strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		vmm_die(EXIT_SETUP_ERROR, "%s '%s' is not a regular file", what,
			path);
	if ((uint64_t)st.st_size > MAX_FILE_BYTES)
		vmm_die(EXIT_SETUP_ERROR, "%s '%s' is larger than 1 GiB", what,
			path);

	size_t len = (size_t)st.st_size, done = 0;
	uint8_t *buf = malloc(len ? len : 1);

	if (!buf)
		vmm_die(EXIT_SETUP_ERROR, "out of memory for %s '%s'", what, path);
	while (done < len) {
		ssize_t n = read(fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			vmm_die(EXIT_SETUP_ERROR, "cannot read %s '%s': %s", what,
				path, n < 0 ? strerror(errno) : "short read");
		done += (size_t)n;
	}
	close(fd);
	*size = len;
	return buf;
}

static void copy_in(struct vm *vm, uint64_t gpa, const void *src, size_t len)
{
	void *dst = guest_ram_ptr(vm, gpa, len);

	if (!dst)	/* linux_plan keeps everything in RAM */
		vmm_die(EXIT_SETUP_ERROR, "internal: 0x%llx+%zu is not RAM",
			(unsigned long long)gpa, len);
	memcpy(dst, src, len);
}

static uint64_t write_acpi(struct vm *vm)
{
	struct acpi_config cfg = {
		.nr_vcpus = vm->nr_vcpus,
		.pm_timer_port = vm->opts->pm_port,
	};
	uint8_t *area = guest_ram_ptr(vm, PVSMM_ACPI_GPA, PVSMM_ACPI_SIZE);

	if (!area || !acpi_build(&cfg, area, PVSMM_ACPI_SIZE, PVSMM_ACPI_GPA))
		vmm_die(EXIT_SETUP_ERROR, "internal: the ACPI tables do not fit");
	return PVSMM_ACPI_GPA;	/* the RSDP comes first */
}

void linux_check_files(const struct vmm_options *o)
{
	size_t kernel_size, initrd_size;
	uint8_t *kernel = read_file(o->kernel_path, "kernel", &kernel_size);
	struct linux_image img;
	char err[256];

	if (!linux_parse_image(kernel, kernel_size, &img, err, sizeof(err)))
		vmm_die(EXIT_SETUP_ERROR, "kernel '%s': %s", o->kernel_path, err);
	free(kernel);
	if (o->initrd_path)
		free(read_file(o->initrd_path, "initrd", &initrd_size));
}

void linux_load(struct vm *vm, struct pvsmm_bootinfo *bi)
{
	const struct vmm_options *o = vm->opts;
	const char *cmdline = o->cmdline ? o->cmdline : "";
	size_t kernel_size, initrd_size = 0;
	uint8_t *kernel = read_file(o->kernel_path, "kernel", &kernel_size);
	uint8_t *initrd = o->initrd_path ?
		read_file(o->initrd_path, "initrd", &initrd_size) : NULL;
	struct linux_image img;
	struct linux_layout lay;
	char err[256];

	if (!linux_parse_image(kernel, kernel_size, &img, err, sizeof(err)))
		vmm_die(EXIT_SETUP_ERROR, "kernel '%s': %s", o->kernel_path, err);
	if (!linux_plan(&img, vm->ram_size, initrd_size, &lay, err, sizeof(err)))
		vmm_die(EXIT_SETUP_ERROR, "kernel '%s': %s", o->kernel_path, err);

	size_t cmdline_len = strlen(cmdline);
	if (cmdline_len > img.cmdline_size ||
	    cmdline_len >= PVSMM_LINUX_CMDLINE_MAX)
		vmm_die(EXIT_SETUP_ERROR,
			"--append is %zu bytes; this kernel takes at most %u",
			cmdline_len,
			img.cmdline_size < PVSMM_LINUX_CMDLINE_MAX - 1 ?
			img.cmdline_size : PVSMM_LINUX_CMDLINE_MAX - 1);

	copy_in(vm, lay.kernel_gpa, kernel + img.setup_size,
		kernel_size - img.setup_size);
	if (initrd)
		copy_in(vm, lay.initrd_gpa, initrd, initrd_size);
	copy_in(vm, PVSMM_LINUX_CMDLINE_GPA, cmdline, cmdline_len + 1);

	struct boot_e820_entry e820[E820_MAX_ENTRIES_ZEROPAGE];
	size_t nr_e820 = e820_build(vm->ram_size, e820,
				    E820_MAX_ENTRIES_ZEROPAGE);
	uint64_t rsdp = write_acpi(vm);
	struct boot_params *bp = guest_ram_ptr(vm, PVSMM_LINUX_BOOT_PARAMS_GPA,
					       sizeof(*bp));

	linux_fill_boot_params(bp, &img, &lay, PVSMM_LINUX_CMDLINE_GPA, rsdp,
			       e820, nr_e820);

	bi->flags |= PVSMM_BOOTINFO_LINUX;
	if (lay.entry32)
		bi->flags |= PVSMM_BOOTINFO_LINUX_ENTRY32;
	bi->linux_entry = lay.entry;
	bi->linux_boot_params = PVSMM_LINUX_BOOT_PARAMS_GPA;

	vmm_warn("Linux: boot protocol %u.%02u, %s entry 0x%llx, kernel 0x%llx-0x%llx, initrd %llu bytes at 0x%llx",
		 img.version >> 8, img.version & 0xff,
		 lay.entry32 ? "32-bit" : "64-bit",
		 (unsigned long long)lay.entry,
		 (unsigned long long)lay.kernel_gpa,
		 (unsigned long long)lay.kernel_end,
		 (unsigned long long)lay.initrd_size,
		 (unsigned long long)lay.initrd_gpa);
	free(kernel);
	free(initrd);
}
