/* SPDX-License-Identifier: MIT */
/*
 * Guest-physical layout shared by pvsmm's firmware and pvsmm's own VMM.
 * This is *not* host ABI: the kernel never looks at it.  It only lets the
 * VMM place the firmware, pass boot information and reserve the firmware's
 * memory (e820) where the firmware expects it.
 *
 *   0x00005000  struct pvsmm_bootinfo, written by the VMM before reset
 *   0x00010000  Linux boot: struct boot_params (the "zero page")
 *   0x00011000  Linux boot: the kernel command line
 *   0x00060000  firmware boot stacks, PVSMM_FW_STACK_SIZE per vCPU
 *   0x00070000  firmware boot page tables (identity map of 4 GiB, 2 MiB pages)
 *   0x00076000  per-vCPU kvmclock areas of the firmware (64 bytes each)
 *   0x00077000  self-test shared data
 *   0x00078000  self-test "OS" tables for the 32-bit guest modes: a PAE
 *               PDPT per vCPU (32 bytes each, onto the boot map's page
 *               directories) and a 2-level page directory of 4 MiB pages
 *   0x0007c000  firmware-private region (PVSMM_FW_PRIVATE_SIZE bytes), laid
 *               out as every pvsmm firmware lays out its region (below)
 *   0x000e0000  ACPI tables, RSDP first (Linux boot; in the BIOS area, where
 *               kernels that ignore boot_params.acpi_rsdp_addr scan for it)
 *   0x01000000  Linux boot: the kernel (its pref_address), initrd at the top
 *               of RAM
 *   0xffff0000  firmware image (64 KiB ROM, reset vector at 0xfffffff0)
 *
 * The private region (PVSMM_REGION_*: offsets from its 4 KiB aligned base,
 * the same in the self-test firmware, the option ROM and the UEFI driver;
 * the region lies below 4 GiB):
 *   +0x00000  descriptor
 *   +0x01000  GDT (+0x000), 64-bit IDT (+0x100), 32-bit IDT (+0x400)
 *   +0x02000  handler code (<= PVSMM_REGION_CODE_MAX): the 64-bit entry,
 *             its exception stubs, the 32-bit entry and its stubs
 *   +0x04000  long mode: PML4, window PDPT, window PD, window PT, PML5
 *   +0x09000  PAE: PDPT, two page directories, two page tables
 *   +0x0e000  2-level: page directory, two page tables
 *   +0x11000  per-vCPU areas (save area + private stack), one page each
 * Two PAE directories and two page tables per 32-bit mode because a
 * region anywhere below 4 GiB may straddle a 1 GiB, 2 MiB or 4 MiB line.
 *
 * Address spaces (abi.h, struct pvsmm_entry): the long-mode entry maps the
 * region's pages at PVSMM_WINDOW_BASE + their region offset (PML4 slot
 * PVSMM_WINDOW_SLOT -> window PDPT -> PD -> PT; PML5 entry 511 -> PML4 for
 * 5-level paging); the PAE and 2-level entries map them at their GPAs.
 * Mapped are only the GDT/IDT page (read-only, NX in long mode), the code
 * pages (read-only, executable) and the per-vCPU areas (writable, NX in
 * long mode), all supervisor-only, 4 KiB pages.
 */
#ifndef PVSMM_LAYOUT_H
#define PVSMM_LAYOUT_H

#include <linux/types.h>
#include "abi.h"

#define PVSMM_BOOTINFO_GPA		0x00005000
#define PVSMM_BOOTINFO_MAGIC		0x49425650	/* "PVBI" */

#define PVSMM_FW_STACKS_GPA		0x00060000
#define PVSMM_FW_STACK_SIZE		0x1000
#define PVSMM_FW_PAGETABLES_GPA		0x00070000
#define PVSMM_FW_KVMCLOCK_GPA		0x00076000
#define PVSMM_FW_KVMCLOCK_STRIDE	64
#define PVSMM_FW_SHARED_GPA		0x00077000
#define PVSMM_FW_OS_PAE_PDPT_GPA	0x00078000	/* + 32 * vCPU index */
#define PVSMM_FW_OS_PD32_GPA		0x00079000	/* 1024 4-MiB PDEs */
#define PVSMM_FW_PRIVATE_GPA		0x0007c000
#define PVSMM_FW_MAX_VCPUS		16
#define PVSMM_FW_PRIVATE_SIZE		PVSMM_REGION_SIZE(PVSMM_FW_MAX_VCPUS)

/* The private region, as offsets from its base (see above). */
#define PVSMM_REGION_DESC		0x00000
#define PVSMM_REGION_TABLES		0x01000
#define PVSMM_REGION_GDT		(PVSMM_REGION_TABLES + 0x000)
#define PVSMM_REGION_IDT64		(PVSMM_REGION_TABLES + 0x100)
#define PVSMM_REGION_IDT32		(PVSMM_REGION_TABLES + 0x400)
#define PVSMM_REGION_CODE		0x02000
#define PVSMM_REGION_CODE_MAX		0x02000
#define PVSMM_REGION_PML4		0x04000
#define PVSMM_REGION_WINDOW_PDPT	0x05000
#define PVSMM_REGION_WINDOW_PD		0x06000
#define PVSMM_REGION_WINDOW_PT		0x07000
#define PVSMM_REGION_PML5		0x08000
#define PVSMM_REGION_PAE_PDPT		0x09000
#define PVSMM_REGION_PAE_PD		0x0a000	/* two pages */
#define PVSMM_REGION_PAE_PT		0x0c000	/* two pages */
#define PVSMM_REGION_PD32		0x0e000
#define PVSMM_REGION_PT32		0x0f000	/* two pages */
#define PVSMM_REGION_PERCPU		0x11000
#define PVSMM_REGION_SIZE(nr_vcpus)	(PVSMM_REGION_PERCPU + \
					 (nr_vcpus) * PVSMM_PERCPU_SIZE)

#define PVSMM_FW_ROM_GPA		0xffff0000u
#define PVSMM_FW_ROM_SIZE		0x10000

/* Linux boot (pvsmm-vmm --kernel): where the VMM puts what it builds. */
#define PVSMM_LINUX_BOOT_PARAMS_GPA	0x00010000
#define PVSMM_LINUX_CMDLINE_GPA		0x00011000
#define PVSMM_LINUX_CMDLINE_MAX		0x1000	/* bytes, NUL included */
#define PVSMM_ACPI_GPA			0x000e0000
#define PVSMM_ACPI_SIZE			0x00010000
#define PVSMM_BIOS_AREA_GPA		0x000e0000	/* to 1 MiB: reserved */

/* Self-test devices of pvsmm's VMM. */
#define PVSMM_SERIAL_PORT		0x3f8
#define PVSMM_DEBUG_EXIT_PORT		0xf4	/* OUT: 0 = pass, else fail code */
#define PVSMM_MARKER_PORT		0x0ef8	/* OUT: PVSMM_MARK_* << 16 | vcpu */
#define PVSMM_MARK_BENCH_BEGIN		1
#define PVSMM_MARK_BENCH_END		2

/* bootinfo.flags */
#define PVSMM_BOOTINFO_LINUX		(1u << 0)	/* boot a kernel, no self-test */
#define PVSMM_BOOTINFO_LINUX_ENTRY32	(1u << 1)	/* 32-bit boot protocol */
/* Self-test: the paging mode (PVSMM_MODE_*) of its check and bench phases. */
#define PVSMM_BOOTINFO_MODE_SHIFT	2
#define PVSMM_BOOTINFO_MODE_MASK	(3u << PVSMM_BOOTINFO_MODE_SHIFT)

/* Written by the VMM at PVSMM_BOOTINFO_GPA before the vCPUs start. */
struct pvsmm_bootinfo {
	__u32 magic;		/* PVSMM_BOOTINFO_MAGIC */
	__u32 nr_vcpus;
	__u64 ram_size;
	__u64 reads_per_vcpu;	/* self-test: PM timer reads in the bench loop */
	__u64 check_reads;	/* self-test: reads checked against kvmclock */
	__u16 pm_timer_port;
	__u16 flags;		/* PVSMM_BOOTINFO_* */
	__u32 pad;
	/* With PVSMM_BOOTINFO_LINUX only (the BSP enters the kernel): */
	__u64 linux_entry;	/* startup_64 (load + 0x200) or code32_start */
	__u64 linux_boot_params; /* GPA of struct boot_params: RSI/ESI */
};

_Static_assert(sizeof(struct pvsmm_bootinfo) == 56, "bootinfo size");
_Static_assert(PVSMM_FW_PRIVATE_GPA + PVSMM_FW_PRIVATE_SIZE <= 0xa0000,
	       "the self-test's region reaches the VGA window");
_Static_assert(PVSMM_FW_OS_PD32_GPA + 0x1000 <= PVSMM_FW_PRIVATE_GPA,
	       "the self-test's OS tables overlap the region");
_Static_assert(PVSMM_REGION_PERCPU + PVSMM_MAX_VCPUS * PVSMM_PERCPU_SIZE <=
	       0x200000, "the window needs more than one page table");

#endif /* PVSMM_LAYOUT_H */
