/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * pvsmm ABI: the one definition shared by the guest firmware (through the
 * generated NASM mirror include/pvsmm/abi.inc), the userspace VMM and the
 * KVM patch.  Everything here is guest-visible or userspace-visible ABI;
 * change it only together with PVSMM_ABI_VERSION.
 *
 * Model
 * -----
 * A guest's firmware registers one *handler* for the whole VM by writing the
 * guest-physical address of a struct pvsmm_descriptor to PVSMM_MSR_REGISTER
 * on any vCPU (the registration is VM-wide, like MSR_KVM_WALL_CLOCK_NEW, so
 * that vCPUs the OS starts later -- which never run firmware -- are covered).
 * The host copies and validates the descriptor once, at the write, and from
 * then on uses only its own copy: the guest cannot change what the host
 * does by editing the descriptor afterwards.
 *
 * When a vCPU executes a single (non-string) IN on a port the VMM opted in
 * (KVM_CAP_PVSMM_REFLECT), the host *reflects* the read: it fills that
 * vCPU's struct pvsmm_save_area, switches the vCPU to the handler and
 * re-enters the guest.  Two ways back exist, and the save area says which
 * one the host chose for this reflection (return_method):
 *
 *  PVSMM_RETURN_IRET  -- the fast path, no second exit.  The handler runs on
 *	the interrupted CR3: the host makes the firmware's window (one
 *	page-directory-pointer table) visible in PML4 slot PVSMM_WINDOW_SLOT of
 *	the interrupted address space.  That slot lies in the range x86-64
 *	Linux reserves for hypervisors (0xffff800000000000-0xffff87ffffffffff);
 *	the host only ever fills it when it is empty (or already holds the
 *	window), so nothing the guest owns is overwritten.  The host pushes an
 *	iretq frame (RIP after the IN, CS, RFLAGS, RSP, SS) on the private
 *	stack; the handler merges the value into RAX, restores what it
 *	clobbered and executes iretq.
 *
 *  PVSMM_RETURN_EXIT  -- the generic path, for any interrupted context the
 *	fast path cannot serve (not in 64-bit mode, LA57, slot in use, ...).
 *	The host saves the full interrupted state in *its own* memory, loads
 *	the handler's private address space (private_cr3, 64-bit mode) and
 *	enters the handler.  The handler stores the value in save_area.result
 *	and executes a 32-bit OUT to save_area.return_port; the host then
 *	restores the interrupted state from its own copy, puts the low
 *	access-size bytes of result into RAX and resumes after the IN.  One
 *	extra exit, handled by whoever did the reflection (VMM or KVM).
 *
 * Handler entry state (both paths): 64-bit mode, CPL 0, RFLAGS = 0x2 (IF=0,
 * TF=0, DF=0), RIP = descriptor.handler_va, RDI = linear address of this
 * vCPU's save area, RSP = this vCPU's private stack.  Each vCPU n owns one
 * PVSMM_PERCPU_SIZE area at percpu_va + n * PVSMM_PERCPU_SIZE: the save
 * area at its start, the stack growing down from its end.  On the fast
 * path the host pushes the iretq frame at the top, so entry RSP = area end
 * - sizeof(struct pvsmm_iret_frame); on the generic path RSP = area end.
 * The handler may use the stack down to the end of the save area.  All
 * other registers hold the interrupted values; on the fast path the
 * handler must preserve every register except RAX (the interrupted RDI is
 * in save_area.rdi).  The host writes the whole host-owned part of the
 * save area (port .. sequence, padding as zero) at every reflection.
 *
 * Time: at every reflection the host copies the vCPU's current kvmclock
 * parameters into save_area.pvclock (the same values KVM writes to the
 * guest's MSR_KVM_SYSTEM_TIME_NEW page).  The handler therefore never
 * depends on which kvmclock area the OS registered last (last writer wins),
 * and every mode -- userspace device, in-kernel device, handler -- derives
 * the counter from the one kvmclock:
 *	ticks = floor(kvmclock_ns * 3579545 / 10^9) mod 2^24
 *
 * Numbers, and why they cannot collide
 * ------------------------------------
 *  - PVSMM_MSR_REGISTER is outside both the architectural hypervisor range
 *    (0x40000000-0x400000ff, used by Hyper-V enlightenments that KVM
 *    emulates) and KVM's own paravirtual block 0x4b564d00-0x4b564dff ("KVM"),
 *    which KVM allocates upwards: a block of our own ("PVS") can never be
 *    reused by a future KVM MSR.
 *  - The CPUID leaf is KVM's base leaf + 0x80 (0x40000080, or 0x40000180
 *    when KVM's leaves are moved above Hyper-V's).  KVM defines only base+0
 *    and base+1; a signature in EAX makes the probe safe on hosts that
 *    answer unknown leaves with other data.
 *  - The KVM capability numbers are in a private block far above KVM's
 *    sequentially allocated ones.
 */
#ifndef PVSMM_ABI_H
#define PVSMM_ABI_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <linux/types.h>
#include <stddef.h>
#endif

#define PVSMM_ABI_VERSION		1

/* ---- Guest discovery and registration --------------------------------- */

#define PVSMM_CPUID_LEAF_OFFSET		0x80	/* from the KVM base leaf */
#define PVSMM_CPUID_LEAF		0x40000080
#define PVSMM_CPUID_SIGNATURE		0x4d535650	/* "PVSM" in EAX */
/* EBX: feature bits */
#define PVSMM_FEATURE_REGISTER		(1u << 0)	/* MSR is handled */
#define PVSMM_FEATURE_IRET_RETURN	(1u << 1)	/* fast path possible */
/* ECX: the registration MSR index; EDX: PVSMM_ABI_VERSION */

#define PVSMM_MSR_REGISTER		0x50565300
#define PVSMM_MSR_ENABLE		0x1ull
#define PVSMM_MSR_GPA_MASK		0x000ffffffffff000ull
/* Bits 11:1 and 63:52 are reserved: writing them raises #GP. */
#define PVSMM_MSR_RESERVED_MASK		(~(PVSMM_MSR_GPA_MASK | PVSMM_MSR_ENABLE))

/* ---- The handler's window ---------------------------------------------- */

#define PVSMM_WINDOW_SLOT		271
#define PVSMM_WINDOW_BASE		0xffff878000000000ull
#define PVSMM_WINDOW_SIZE		(1ull << 39)
#define PVSMM_PAGE_SIZE			4096
#define PVSMM_PERCPU_SIZE		4096	/* save area + private stack */
#define PVSMM_MAX_VCPUS			64
#define PVSMM_MAX_HANDLER_SIZE		(64 * 1024)

#define PVSMM_DESC_MAGIC		0x44535650	/* "PVSD" */

/*
 * Registration descriptor: 4 KiB aligned, in guest RAM.  Only "status" is
 * written by the host.  All GPAs must lie in ordinary (non-ROM, non-MMIO)
 * memslots, all VAs inside the window.
 */
struct pvsmm_descriptor {
	__u32 magic;		/* PVSMM_DESC_MAGIC */
	__u16 version;		/* PVSMM_ABI_VERSION */
	__u16 size;		/* sizeof(struct pvsmm_descriptor) */
	__u32 flags;		/* none defined: must be 0 */
	__u32 nr_vcpus;		/* per-vCPU areas provided, 1..PVSMM_MAX_VCPUS */
	__u64 handler_va;	/* entry point */
	__u64 handler_size;	/* bytes of code from handler_va */
	__u64 private_cr3;	/* GPA of the handler's own PML4 (generic path) */
	__u64 window_pdpt;	/* GPA of the PDPT mapped at PVSMM_WINDOW_SLOT */
	__u64 percpu_gpa;	/* GPA of vCPU 0's area; vCPU n at +n*PERCPU_SIZE */
	__u64 percpu_va;	/* its linear address in the window */
	__u32 status;		/* PVSMM_STATUS_*, written by the host */
	__u32 reserved;		/* must be 0 */
};

/* Registration result, written to descriptor.status by the host. */
#define PVSMM_STATUS_NONE		0	/* not (yet) looked at */
#define PVSMM_STATUS_OK			1
#define PVSMM_STATUS_BAD_MAGIC		2
#define PVSMM_STATUS_BAD_VERSION	3
#define PVSMM_STATUS_BAD_SIZE		4
#define PVSMM_STATUS_BAD_FLAGS		5
#define PVSMM_STATUS_BAD_GPA		6	/* not in RAM, or unaligned */
#define PVSMM_STATUS_BAD_VA		7	/* outside the window */
#define PVSMM_STATUS_BAD_VCPUS		8	/* 0, too many, or < online */
#define PVSMM_STATUS_DISABLED		9	/* host turned reflection off */

/* ---- Per-vCPU save area (at the start of each per-vCPU area) ----------- */

#define PVSMM_DIR_IN			0
#define PVSMM_DIR_OUT			1

#define PVSMM_RETURN_IRET		1
#define PVSMM_RETURN_EXIT		2

/* Same layout as struct pvclock_vcpu_time_info (asm/pvclock-abi.h). */
struct pvsmm_pvclock {
	__u32 version;
	__u32 pad0;
	__u64 tsc_timestamp;
	__u64 system_time;
	__u32 tsc_to_system_mul;
	__s8 tsc_shift;
	__u8 flags;
	__u8 pad[2];
};

struct pvsmm_save_area {
	/* Written by the host at each reflection. */
	__u16 port;		/* trapped port */
	__u8 size;		/* access size: 1, 2 or 4 */
	__u8 direction;		/* PVSMM_DIR_IN */
	__u8 return_method;	/* PVSMM_RETURN_* */
	__u8 pad0;
	__u16 return_port;	/* PVSMM_RETURN_EXIT: OUT here to return */
	__u32 vcpu_index;
	__u32 result;		/* written by the handler */
	__u64 rip;		/* interrupted RIP, after the IN */
	__u64 cs;		/* interrupted CS selector */
	__u64 rflags;
	__u64 rsp;
	__u64 ss;
	__u64 cr3;
	__u64 rax;		/* interrupted RAX (bits the access keeps) */
	__u64 rdi;		/* interrupted RDI (entry clobbers it) */
	struct pvsmm_pvclock pvclock;	/* this vCPU's kvmclock, now */
	__u64 sequence;		/* reflections on this vCPU, host counted */
	/* Owned by the handler (never read by the host). */
	__u64 handler_runs;
	__u64 handler_scratch[4];
};

#define PVSMM_SAVE_AREA_SIZE		160

/* The iretq frame the host pushes for PVSMM_RETURN_IRET, at entry RSP. */
struct pvsmm_iret_frame {
	__u64 rip;
	__u64 cs;
	__u64 rflags;
	__u64 rsp;
	__u64 ss;
};

/* ---- The ACPI PM timer ------------------------------------------------- */

#define PVSMM_PM_TIMER_HZ		3579545ull
#define PVSMM_PM_TIMER_MASK		0xffffffu	/* 24-bit counter */
#define PVSMM_NSEC_PER_SEC		1000000000ull
#define PVSMM_PM_TIMER_DEFAULT_PORT	0x608	/* q35's PMBASE 0x600 + 8 */
/* Port the VMM reserves for PVSMM_RETURN_EXIT (unused in the PC/q35 map). */
#define PVSMM_DEFAULT_RETURN_PORT	0x0ef0

/* ---- KVM capabilities (VM ioctls) -------------------------------------- */

/*
 * KVM_CAP_PVSMM_REFLECT: KVM_ENABLE_CAP on the VM fd, before vCPUs run.
 *   args[0] = first port, args[1] = number of ports (1..PVSMM_MAX_PORTS
 *   total), args[2] = return port, args[3] = flags (PVSMM_CAP_*).
 *   KVM_CHECK_EXTENSION returns PVSMM_ABI_VERSION.
 * KVM_CAP_PVSMM_PMTIMER: the in-kernel PM timer comparator.
 *   args[0] = port, args[1] = flags.  Reads are served in the kernel from
 *   kvmclock.  PVSMM_PMTIMER_DEASSIGN removes the device again (reads of
 *   the port then exit to userspace), so a VMM can switch at run time.
 */
#define KVM_CAP_PVSMM_REFLECT		0x50565301
#define KVM_CAP_PVSMM_PMTIMER		0x50565302
#define PVSMM_MAX_PORTS			8
#define PVSMM_CAP_FORCE_EXIT_RETURN	(1u << 0)	/* never take fast path */
#define PVSMM_CAP_VALID_FLAGS		PVSMM_CAP_FORCE_EXIT_RETURN
#define PVSMM_PMTIMER_DEASSIGN		(1u << 0)

/* ---- Layout checks ------------------------------------------------------ */

#define PVSMM_ASSERT_OFFSET(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), \
		       #type "." #field " moved")

PVSMM_ASSERT_OFFSET(pvsmm_descriptor, magic, 0);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, version, 4);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, size, 6);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, flags, 8);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, nr_vcpus, 12);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, handler_va, 16);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, handler_size, 24);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, private_cr3, 32);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, window_pdpt, 40);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, percpu_gpa, 48);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, percpu_va, 56);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, status, 64);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, reserved, 68);
_Static_assert(sizeof(struct pvsmm_descriptor) == 72, "descriptor size");

PVSMM_ASSERT_OFFSET(pvsmm_pvclock, version, 0);
PVSMM_ASSERT_OFFSET(pvsmm_pvclock, tsc_timestamp, 8);
PVSMM_ASSERT_OFFSET(pvsmm_pvclock, system_time, 16);
PVSMM_ASSERT_OFFSET(pvsmm_pvclock, tsc_to_system_mul, 24);
PVSMM_ASSERT_OFFSET(pvsmm_pvclock, tsc_shift, 28);
PVSMM_ASSERT_OFFSET(pvsmm_pvclock, flags, 29);
_Static_assert(sizeof(struct pvsmm_pvclock) == 32, "pvclock size");

PVSMM_ASSERT_OFFSET(pvsmm_save_area, port, 0);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, size, 2);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, direction, 3);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, return_method, 4);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, return_port, 6);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, vcpu_index, 8);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, result, 12);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rip, 16);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, cs, 24);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rflags, 32);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rsp, 40);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, ss, 48);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, cr3, 56);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rax, 64);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rdi, 72);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, pvclock, 80);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, sequence, 112);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, handler_runs, 120);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, handler_scratch, 128);
_Static_assert(sizeof(struct pvsmm_save_area) == PVSMM_SAVE_AREA_SIZE,
	       "save area size");
_Static_assert(sizeof(struct pvsmm_iret_frame) == 40, "iret frame size");

#endif /* PVSMM_ABI_H */
