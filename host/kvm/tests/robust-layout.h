/* SPDX-License-Identifier: MIT */
/*
 * Guest-physical layout of kvm-robust-test's VMs, shared by the test
 * (C) and its guest code (robust-guest.S).  Guest virtual = guest physical
 * below 32 MiB (2 MiB pages); the handler's window holds the handler page
 * at PVSMM_WINDOW_BASE and vCPU n's area at + H_AREA_VA_OFF + n * 4 KiB.
 */
#ifndef PVSMM_ROBUST_LAYOUT_H
#define PVSMM_ROBUST_LAYOUT_H

/* Slots */
#define RAM_SIZE	0x400000	/* slot 0: guest RAM at 0 */
#define ROM_GPA		0x800000	/* slot 1: read-only, 16 pages */
#define ROM_SIZE	0x10000
#define RAM2_GPA	0x1000000	/* slot 2: RAM, 16 pages */
#define RAM3_GPA	0x1010000	/* slot 3: RAM, adjacent to slot 2 */
#define ROM2_GPA	0x1020000	/* slot 4: read-only, adjacent to 3 */
#define SMALL_SIZE	0x10000
#define MMIO_GPA	0xc0000000	/* no slot: MMIO to KVM */

/* Guest RAM */
#define G_GDT		0x1000
#define G_IDT		0x2000
#define G_TSS		0x3000		/* 0x80 per vCPU */
#define G_PML4		0x4000
#define G_PDPT		0x5000
#define G_PD		0x6000
#define G_DESC		0x8000		/* the good descriptor */
#define G_DESC2		0x9000		/* another one */
#define G_DATA		0xa000		/* shared guest data, D_* */
#define G_STATS		0xb000		/* per-vCPU reader stats, ST_* */
#define G_STATS_SIZE	0x40
#define G_CODE		0x10000		/* guest_start .. guest_end */
#define H_PML4		0x20000		/* the handler's private tables */
#define H_PDPT		0x21000		/* the window (window_pdpt) */
#define H_PD		0x22000
#define H_PT		0x23000
#define H_CODE		0x24000		/* handler, 1 page */
#define H_AREAS		0x28000		/* per-vCPU areas, 8 pages */
#define SMBASE		0x30000		/* KVM's default SMBASE */
#define G_STACKS	0x40000		/* vCPU n: top at + (n + 1) * 4K */
#define G_IST		0x50000		/* vCPU n: top at + (n + 1) * 4K */
#define G_FUZZ_TABLE	0x60000		/* guest_fuzz: MSR values */
#define G_FUZZ_GP	0x61000		/* guest_fuzz: #GP flags */
#define G_FUZZ_DESCS	0x100000	/* 256 descriptor pages */
#define FUZZ_BATCH	256
#define MAX_VCPUS	8

#define H_AREA_VA_OFF	0x10000
#define H_MMIO_VA_OFF	0x2000		/* mapped to MMIO_GPA */

/* Guest selectors */
#define SEL_CODE	0x08
#define SEL_DATA	0x10
#define SEL_TSS		0x18		/* + 16 * vCPU */

/* G_DATA offsets */
#define D_GLOBAL_LAST	0x00
#define D_GP_FLAG	0x08
#define D_EXC_VEC	0x10
#define D_EXC_RIP	0x18
#define D_EXC_RSP	0x20
#define D_EXC_COUNT	0x28
#define D_NMI_RIP	0x30
#define D_NMI_COUNT	0x38
#define D_IRQ_RIP	0x40
#define D_IRQ_COUNT	0x48

/* Per-vCPU stats block */
#define ST_READS	0x00
#define ST_OWN_BACK	0x08
#define ST_GLOBAL_BACK	0x10
#define ST_MAX_BACK	0x18
#define ST_LAST		0x20
#define ST_BAD_NOW	0x24
#define ST_BAD_PREV	0x28

/* Ports */
#define P_PM		0x608
#define P_RETURN	0xef0
#define P_PROGRESS	0xe0
#define P_DONE		0xe1
#define P_PROBE		0xe2
#define P_SMI		0xe3
#define V_IRQ		0x40

/* Save area offsets and ABI constants, for the assembler. */
#define SA_RETURN_METHOD 4
#define SA_RETURN_PORT	6
#define SA_RESULT	12
#define SA_RDI		72
#define SA_PVCLOCK	80
#define SA_HANDLER_RUNS	120
#define L_RETURN_IRET	1
#define L_MSR_REGISTER	0x50565300
#define L_PERCPU_SIZE	4096
#define L_WINDOW_BASE	0xffff878000000000

#endif
