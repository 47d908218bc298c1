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
 *   0x00080000  firmware-private region, PVSMM_FW_PRIVATE_SIZE bytes:
 *                 +0x0000 descriptor, +0x1000 private PML4,
 *                 +0x2000 window PDPT, +0x3000 window PD,
 *                 +0x4000 window PT, +0x8000 handler code (<= 32 KiB),
 *                 +0x10000 per-vCPU areas (save area + stack)
 *   0x000e0000  ACPI tables, RSDP first (Linux boot; in the BIOS area, where
 *               kernels that ignore boot_params.acpi_rsdp_addr scan for it)
 *   0x01000000  Linux boot: the kernel (its pref_address), initrd at the top
 *               of RAM
 *   0xffff0000  firmware image (64 KiB ROM, reset vector at 0xfffffff0)
 *
 * The window maps the handler code at PVSMM_WINDOW_BASE and the per-vCPU
 * areas at PVSMM_WINDOW_BASE + PVSMM_FW_WINDOW_PERCPU_OFFSET.
 */
#ifndef PVSMM_LAYOUT_H
#define PVSMM_LAYOUT_H

#include <linux/types.h>

#define PVSMM_BOOTINFO_GPA		0x00005000
#define PVSMM_BOOTINFO_MAGIC		0x49425650	/* "PVBI" */

#define PVSMM_FW_STACKS_GPA		0x00060000
#define PVSMM_FW_STACK_SIZE		0x1000
#define PVSMM_FW_PAGETABLES_GPA		0x00070000
#define PVSMM_FW_KVMCLOCK_GPA		0x00076000
#define PVSMM_FW_KVMCLOCK_STRIDE	64
#define PVSMM_FW_SHARED_GPA		0x00077000
#define PVSMM_FW_PRIVATE_GPA		0x00080000
#define PVSMM_FW_PRIVATE_SIZE		0x00020000
#define PVSMM_FW_DESCRIPTOR_GPA		(PVSMM_FW_PRIVATE_GPA + 0x0000)
#define PVSMM_FW_PRIVATE_PML4_GPA	(PVSMM_FW_PRIVATE_GPA + 0x1000)
#define PVSMM_FW_WINDOW_PDPT_GPA	(PVSMM_FW_PRIVATE_GPA + 0x2000)
#define PVSMM_FW_WINDOW_PD_GPA		(PVSMM_FW_PRIVATE_GPA + 0x3000)
#define PVSMM_FW_WINDOW_PT_GPA		(PVSMM_FW_PRIVATE_GPA + 0x4000)
#define PVSMM_FW_HANDLER_GPA		(PVSMM_FW_PRIVATE_GPA + 0x8000)
#define PVSMM_FW_HANDLER_MAX		0x8000
#define PVSMM_FW_PERCPU_GPA		(PVSMM_FW_PRIVATE_GPA + 0x10000)
#define PVSMM_FW_MAX_VCPUS		16	/* 16 x 4 KiB fit the region */
#define PVSMM_FW_WINDOW_PERCPU_OFFSET	0x10000

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

#endif /* PVSMM_LAYOUT_H */
