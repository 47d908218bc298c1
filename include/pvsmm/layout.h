/* SPDX-License-Identifier: MIT */
/*
 * Guest-physical layout shared by pvsmm's firmware and pvsmm's own VMM.
 * This is *not* host ABI: the kernel never looks at it.  It only lets the
 * VMM place the firmware, pass boot information and reserve the firmware's
 * memory (e820) where the firmware expects it.
 *
 *   0x00005000  struct pvsmm_bootinfo, written by the VMM before reset
 *   0x00060000  firmware boot stacks, PVSMM_FW_STACK_SIZE per vCPU
 *   0x00070000  firmware boot page tables (identity map of 4 GiB, 2 MiB pages)
 *   0x00076000  per-vCPU kvmclock areas of the firmware (64 bytes each)
 *   0x00077000  self-test shared data
 *   0x00080000  firmware-private region, PVSMM_FW_PRIVATE_SIZE bytes:
 *                 +0x0000 descriptor, +0x1000 private PML4,
 *                 +0x2000 window PDPT, +0x3000 window PD,
 *                 +0x4000 window PT, +0x8000 handler code (<= 32 KiB),
 *                 +0x10000 per-vCPU areas (save area + stack)
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

/* Self-test devices of pvsmm's VMM. */
#define PVSMM_SERIAL_PORT		0x3f8
#define PVSMM_DEBUG_EXIT_PORT		0xf4	/* OUT: 0 = pass, else fail code */
#define PVSMM_MARKER_PORT		0x0ef8	/* OUT: PVSMM_MARK_* << 16 | vcpu */
#define PVSMM_MARK_BENCH_BEGIN		1
#define PVSMM_MARK_BENCH_END		2

/* Written by the VMM at PVSMM_BOOTINFO_GPA before the vCPUs start. */
struct pvsmm_bootinfo {
	__u32 magic;		/* PVSMM_BOOTINFO_MAGIC */
	__u32 nr_vcpus;
	__u64 ram_size;
	__u64 reads_per_vcpu;	/* self-test: PM timer reads in the bench loop */
	__u64 check_reads;	/* self-test: reads checked against kvmclock */
	__u16 pm_timer_port;
	__u16 flags;		/* none yet */
	__u32 pad;
};

_Static_assert(sizeof(struct pvsmm_bootinfo) == 40, "bootinfo size");

#endif /* PVSMM_LAYOUT_H */
