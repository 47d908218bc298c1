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
 * The host copies and validates the descriptor once, at the write, walks
 * the firmware's private page tables once, and from then on uses only its
 * own copy: the guest cannot change what the host does by editing the
 * descriptor afterwards.  The outcome goes to descriptor.status.
 *
 * When a vCPU executes a single (non-string) IN at CPL 0 on a port the VMM
 * opted in (KVM_CAP_PVSMM_REFLECT), the host *reflects* the read: it fills
 * that vCPU's struct pvsmm_save_area and enters the handler.  Two paths
 * exist; the save area's return_method says which one this reflection took.
 *
 *  PVSMM_RETURN_EXIT -- the private path, the default.  The host never
 *	writes a guest page-table page.  It keeps the interrupted state in its
 *	own memory and enters the handler on the firmware's private address
 *	space, in the interrupted context's *own* paging mode: it changes CR3,
 *	GDTR, IDTR, CS, SS, RSP, RIP and RFLAGS, and nothing else -- no EFER,
 *	CR0 or CR4 switch, no MMU mode change, the guest's TR, LDTR and data
 *	segments stay loaded.  The descriptor provides one entry per paging
 *	mode (struct pvsmm_entry, indexed by PVSMM_MODE_*):
 *	    PVSMM_MODE_LONG  64-bit mode, 4-level paging (5-level: cr3_la57)
 *	    PVSMM_MODE_PAE   32-bit protected mode, PAE paging
 *	    PVSMM_MODE_32    32-bit protected mode, 2-level paging
 *	The handler leaves with one OUT to save_area.return_port: a 32-bit OUT
 *	carries the result in EAX; any other size reports a failure (the
 *	firmware's exception stubs do this, with AX = 0x100 | vector).  The
 *	host then restores the interrupted state from its own copy, puts the
 *	low size bytes of the result into RAX and resumes after the IN.
 *	Nothing is read back from guest memory.  In PAE mode that includes
 *	the PDPTRs: the host enters with the private PDPTEs it read when it
 *	validated the descriptor and restores the interrupted context's
 *	PDPTRs from its own copy, never reloading either PDPT from memory
 *	(the CPU holds what it loaded at the last CR3 load, and a PDPTE
 *	with the Accessed bit set -- which some emulated walks write -- is
 *	reserved).
 *
 *  PVSMM_RETURN_IRET -- the window path, opt-in (PVSMM_CAP_WINDOW), for
 *	guests whose layout leaves PML4 slot PVSMM_WINDOW_SLOT to the
 *	hypervisor (x86-64 Linux reserves 0xffff800000000000-0xffff87ffffffffff
 *	for it; see Documentation/virt/kvm/x86/pvsmm.rst for the OSes that
 *	qualify).  The host makes the firmware's window (one page-directory-
 *	pointer table, window_pdpt) visible in that slot of the interrupted
 *	address space -- only when the slot is empty, supervisor-only -- and
 *	pushes an iretq frame on the private stack; the handler runs on the
 *	interrupted CR3, CS and SS, completes the frame with CS and SS, stores
 *	save_area.sequence into save_area.done and returns with IRETQ: no
 *	second exit.  The host records every PML4 entry it filled and
 *	clears them again when the registration ends (a new registration, a
 *	disable, a failed handler; a system reset is the VMM's write of 0 to
 *	the MSR, while INIT keeps the VM-wide registration and its entries).
 *	It is used only in 64-bit
 *	mode with 4-level paging, with TDP, and never with CR4.CET set (an
 *	IRETQ the shadow stack never saw would fault).
 *
 * Handler entry state (both paths): CPL 0, RFLAGS = 0x2 (IF = TF = DF = 0),
 * RDI = linear address of this vCPU's save area, RSP = this vCPU's private
 * stack.  Each vCPU n owns one PVSMM_PERCPU_SIZE area at percpu_va +
 * n * PVSMM_PERCPU_SIZE (the save area at its start, the stack growing
 * down from its end; on the window path the iretq frame is pushed at the
 * top, entry RSP = area end - sizeof(struct pvsmm_iret_frame)).  On the
 * private path CS = PVSMM_PRIVATE_CS64 (long mode) or PVSMM_PRIVATE_CS32,
 * SS = PVSMM_PRIVATE_DS, all flat, loaded by the host without reading the
 * private GDT (which must hold matching descriptors for exception delivery
 * inside the handler); NMIs and SMIs are held until the return.  On the
 * window path CS and SS stay the interrupted (kernel) ones and the guest's
 * IDT is in force.  All other registers hold the interrupted values; on the
 * window path the handler must preserve every register but RAX (the
 * interrupted RDI is in save_area.rdi); on the private path it may clobber
 * any, the host restores them.  In 32-bit modes the handler addresses
 * memory through SS (the guest's DS may be anything).
 *
 * The private page tables must map, supervisor-only: the handler code
 * read-only and executable, each per-vCPU area writable (and in long mode
 * not executable) at exactly percpu_gpa + n * PVSMM_PERCPU_SIZE, the GDT
 * and the IDT (read-only; the three descriptors with their Accessed bit
 * set, which exception delivery would otherwise write into the read-only
 * page).  32-bit and PAE tables use 4 KiB pages and no NX bit (the
 * interrupted context's CR4.PSE and EFER.NXE are not known in advance);
 * long-mode tables may use 2 MiB pages and NX, and the host reflects in
 * long mode only with EFER.NXE = 1.  A window PDPT must be what the long
 * entry's PML4 slot PVSMM_WINDOW_SLOT points to, and all its VAs lie in
 * the window.  PVSMM_STATUS_BAD_TABLES reports a violation.
 *
 * Reads the host does not reflect go to the VMM exactly as without pvsmm,
 * counted by reason (per-vCPU binary stats pvsmm_fallback_*): CPL > 0, real
 * mode, virtual-8086 mode, 16-bit code, paging off, compatibility mode, a
 * paging mode the descriptor has no entry for, long mode without NXE, a
 * nested guest, SMM, NMIs blocked, a reflection already in flight on this
 * vCPU, single-stepping, a vCPU without a per-vCPU area, no stable
 * kvmclock (masterclock), guest memory the host cannot use.
 *
 * Why this design (alternatives considered)
 * -----------------------------------------
 *  - A window in the guest's own tables for every guest (ABI version 1):
 *    the host wrote a PML4 entry into whatever address space was current
 *    and never removed it.  Only x86-64 Linux leaves that slot free; RHEL 5
 *    keeps its direct map there, Windows 10 randomizes its regions over
 *    slots 256-511, and 32-bit guests have no such slot at all.  Kept as
 *    the opt-in window path.
 *  - A full switch to a 64-bit private context (version 1's generic path):
 *    EFER, CR0, CR4 and every segment change, KVM resets the MMU context
 *    both ways; it cost twice a userspace exit.  Entering in the
 *    interrupted paging mode changes only what a far call through a task
 *    gate would, and with TDP a guest CR3 is a VMCB/VMCS field to KVM.
 *  - Returning without an exit from private tables: a MOV to CR3 in the
 *    handler needs the next instruction mapped at the same address in the
 *    guest's space (a page we may not write); IRET/SYSRET cannot load CR3;
 *    a task switch does not switch GDTR and exits on VMX anyway; VMFUNC
 *    EPTP switching is Intel-only research.  So: one light exit back,
 *    handled in kvm_fast_pio() like the reflected IN itself.
 *  - No private IDT (version 1): a handler fault then became a triple
 *    fault, which KVM must not swallow (SVM's VMCB is undefined after
 *    SHUTDOWN).  The firmware's stubs turn a fault into a failure report.
 *  - A hypercall as the return: on CPUs without next-RIP (SVM without
 *    NRIPS) KVM decodes the instruction; an IN/OUT intercept always
 *    reports the next RIP.
 *
 * Time: at every reflection the host copies the vCPU's current kvmclock
 * parameters into save_area.pvclock (the same values KVM writes to the
 * guest's MSR_KVM_SYSTEM_TIME_NEW page), after any pending masterclock
 * update, and reflects only while KVM's masterclock is in use with a stable
 * TSC (PVCLOCK_TSC_STABLE_BIT), which keeps the time monotonic across
 * vCPUs.  The handler therefore never depends on which kvmclock area the
 * OS registered last, and every mode -- userspace device, in-kernel device,
 * handler -- derives the counter from the one kvmclock:
 *	ticks = floor(kvmclock_ns * 3579545 / 10^9) mod 2^24
 * A read of the opted-in range at offset k = port - first_port returns
 * ticks >> (8 * k): the four ports of the 32-bit PM_TMR register.
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

#define PVSMM_ABI_VERSION		2

/* ---- Guest discovery and registration --------------------------------- */

#define PVSMM_CPUID_LEAF_OFFSET		0x80	/* from the KVM base leaf */
#define PVSMM_CPUID_LEAF		0x40000080
#define PVSMM_CPUID_SIGNATURE		0x4d535650	/* "PVSM" in EAX */
/* EBX: feature bits */
#define PVSMM_FEATURE_REGISTER		(1u << 0)	/* MSR is handled */
#define PVSMM_FEATURE_WINDOW		(1u << 1)	/* window path enabled */
/* ECX: the registration MSR index; EDX: PVSMM_ABI_VERSION */

#define PVSMM_MSR_REGISTER		0x50565300
#define PVSMM_MSR_ENABLE		0x1ull
#define PVSMM_MSR_GPA_MASK		0x000ffffffffff000ull
/* Bits 11:1 and 63:52 are reserved: writing them raises #GP. */
#define PVSMM_MSR_RESERVED_MASK		(~(PVSMM_MSR_GPA_MASK | PVSMM_MSR_ENABLE))

/* ---- Address spaces ---------------------------------------------------- */

#define PVSMM_WINDOW_SLOT		271
#define PVSMM_WINDOW_BASE		0xffff878000000000ull
#define PVSMM_WINDOW_SIZE		(1ull << 39)
#define PVSMM_PAGE_SIZE			4096
#define PVSMM_PERCPU_SIZE		4096	/* save area + private stack */
#define PVSMM_MAX_VCPUS			64
#define PVSMM_MAX_HANDLER_SIZE		(64 * 1024)
#define PVSMM_MAX_TABLE_SIZE		4096	/* GDT, IDT: limit + 1 */

/* Paging modes, the index of struct pvsmm_entry in the descriptor. */
#define PVSMM_MODE_LONG			0	/* 64-bit, 4- or 5-level */
#define PVSMM_MODE_PAE			1	/* 32-bit, PAE paging */
#define PVSMM_MODE_32			2	/* 32-bit, 2-level paging */
#define PVSMM_NR_MODES			3

/* Selectors the host loads on the private path (flat, DPL 0). */
#define PVSMM_PRIVATE_CS64		0x08	/* 64-bit code */
#define PVSMM_PRIVATE_DS		0x10	/* data, SS */
#define PVSMM_PRIVATE_CS32		0x18	/* 32-bit code */
/* The private GDT holds at least these; the IDT all 32 exception gates. */
#define PVSMM_PRIVATE_GDT_MIN_LIMIT	0x1f
#define PVSMM_PRIVATE_IDT64_MIN_LIMIT	(32 * 16 - 1)
#define PVSMM_PRIVATE_IDT32_MIN_LIMIT	(32 * 8 - 1)

#define PVSMM_DESC_MAGIC		0x44535650	/* "PVSD" */

/*
 * One paging mode's entry into the handler: all VAs are linear addresses
 * in the address space that cr3 describes.
 */
struct pvsmm_entry {
	__u64 cr3;		/* GPA of the top-level table; 0: not served */
	__u64 handler_va;	/* entry point */
	__u64 handler_size;	/* bytes of code from handler_va */
	__u64 percpu_va;	/* vCPU 0's area; vCPU n at +n*PERCPU_SIZE */
	__u64 gdt_va;		/* private GDT */
	__u64 idt_va;		/* private IDT */
	__u16 gdt_limit;
	__u16 idt_limit;
	__u32 reserved;		/* must be 0 */
};

/*
 * Registration descriptor: 4 KiB aligned, in guest RAM.  Only "status" is
 * written by the host.  All GPAs must lie in ordinary (non-ROM, non-MMIO)
 * memslots.
 */
struct pvsmm_descriptor {
	__u32 magic;		/* PVSMM_DESC_MAGIC */
	__u16 version;		/* PVSMM_ABI_VERSION */
	__u16 size;		/* sizeof(struct pvsmm_descriptor) */
	__u32 flags;		/* none defined: must be 0 */
	__u32 nr_vcpus;		/* per-vCPU areas provided, 1..PVSMM_MAX_VCPUS */
	__u64 percpu_gpa;	/* GPA of vCPU 0's area; vCPU n at +n*PERCPU_SIZE */
	__u64 window_pdpt;	/* GPA of the window PDPT; 0: no window */
	__u64 cr3_la57;		/* GPA of a PML5 for 5-level paging; 0: none */
	struct pvsmm_entry entry[PVSMM_NR_MODES];
	__u32 status;		/* PVSMM_STATUS_*, written by the host */
	__u32 reserved;		/* must be 0 */
};

/* Registration result, written to descriptor.status by the host. */
#define PVSMM_STATUS_NONE		0	/* not (yet) looked at */
#define PVSMM_STATUS_OK			1
#define PVSMM_STATUS_BAD_MAGIC		2
#define PVSMM_STATUS_BAD_VERSION	3	/* e.g. a version 1 descriptor */
#define PVSMM_STATUS_BAD_SIZE		4
#define PVSMM_STATUS_BAD_FLAGS		5	/* or a reserved field set */
#define PVSMM_STATUS_BAD_GPA		6	/* not in RAM, or unaligned */
#define PVSMM_STATUS_BAD_VA		7	/* out of range, or no entry */
#define PVSMM_STATUS_BAD_VCPUS		8	/* 0, too many, or < online */
#define PVSMM_STATUS_DISABLED		9	/* host turned reflection off */
#define PVSMM_STATUS_BAD_TABLES		10	/* private tables, GDT, IDT */

/* ---- Per-vCPU save area (at the start of each per-vCPU area) ----------- */

#define PVSMM_DIR_IN			0
#define PVSMM_DIR_OUT			1

#define PVSMM_RETURN_IRET		1	/* window path */
#define PVSMM_RETURN_EXIT		2	/* private path */

/* A failure report on the private path: OUT of this size, AX = vector. */
#define PVSMM_FAULT_REPORT		0x100

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
	/* Written by the host at each reflection, port .. pvclock. */
	__u16 port;		/* port that was read */
	__u8 size;		/* access size: 1, 2 or 4 */
	__u8 direction;		/* PVSMM_DIR_IN */
	__u8 return_method;	/* PVSMM_RETURN_* */
	__u8 mode;		/* PVSMM_MODE_* of the address space entered */
	__u16 return_port;	/* PVSMM_RETURN_EXIT: OUT here to return */
	__u32 vcpu_index;
	__u16 first_port;	/* first opted-in port: offset = port - this */
	__u16 pad0;
	__u64 sequence;		/* this reflection's number on this vCPU */
	__u64 rax;		/* interrupted RAX */
	__u64 rdi;		/* interrupted RDI (entry clobbers it) */
	struct pvsmm_pvclock pvclock;	/* this vCPU's kvmclock, now */
	/* Written by the handler. */
	__u64 done;		/* PVSMM_RETURN_IRET: sequence, before IRETQ */
	__u64 handler_runs;
	__u64 handler_scratch[5];
};

#define PVSMM_SAVE_AREA_SIZE		128

/*
 * The iretq frame the host pushes for PVSMM_RETURN_IRET, at entry RSP.  The
 * host writes rip (after the IN), rflags and rsp, and zeroes cs and ss: the
 * handler, which runs on the interrupted CS and SS, stores them itself
 * (mov [rsp + 8], cs; mov [rsp + 32], ss) before its IRETQ.
 */
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
 *   args[0] = first port, args[1] = number of ports (1..PVSMM_MAX_PORTS:
 *   the bytes of one 32-bit register), args[2] = return port, args[3] =
 *   flags (PVSMM_CAP_*).  KVM_CHECK_EXTENSION returns PVSMM_ABI_VERSION.
 * KVM_CAP_PVSMM_PMTIMER: the in-kernel PM timer comparator.
 *   args[0] = port, args[1] = flags.  Reads are served in the kernel from
 *   kvmclock.  PVSMM_PMTIMER_DEASSIGN removes the device again (reads of
 *   the port then exit to userspace), so a VMM can switch at run time.
 */
#define KVM_CAP_PVSMM_REFLECT		0x50565301
#define KVM_CAP_PVSMM_PMTIMER		0x50565302
#define PVSMM_MAX_PORTS			4
#define PVSMM_CAP_WINDOW		(1u << 1)	/* allow the window path */
#define PVSMM_CAP_VALID_FLAGS		PVSMM_CAP_WINDOW
#define PVSMM_PMTIMER_DEASSIGN		(1u << 0)

/* ---- Layout checks ------------------------------------------------------ */

#define PVSMM_ASSERT_OFFSET(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), \
		       #type "." #field " moved")

PVSMM_ASSERT_OFFSET(pvsmm_entry, cr3, 0);
PVSMM_ASSERT_OFFSET(pvsmm_entry, handler_va, 8);
PVSMM_ASSERT_OFFSET(pvsmm_entry, handler_size, 16);
PVSMM_ASSERT_OFFSET(pvsmm_entry, percpu_va, 24);
PVSMM_ASSERT_OFFSET(pvsmm_entry, gdt_va, 32);
PVSMM_ASSERT_OFFSET(pvsmm_entry, idt_va, 40);
PVSMM_ASSERT_OFFSET(pvsmm_entry, gdt_limit, 48);
PVSMM_ASSERT_OFFSET(pvsmm_entry, idt_limit, 50);
PVSMM_ASSERT_OFFSET(pvsmm_entry, reserved, 52);
_Static_assert(sizeof(struct pvsmm_entry) == 56, "entry size");

PVSMM_ASSERT_OFFSET(pvsmm_descriptor, magic, 0);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, version, 4);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, size, 6);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, flags, 8);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, nr_vcpus, 12);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, percpu_gpa, 16);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, window_pdpt, 24);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, cr3_la57, 32);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, entry, 40);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, status, 208);
PVSMM_ASSERT_OFFSET(pvsmm_descriptor, reserved, 212);
_Static_assert(sizeof(struct pvsmm_descriptor) == 216, "descriptor size");

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
PVSMM_ASSERT_OFFSET(pvsmm_save_area, mode, 5);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, return_port, 6);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, vcpu_index, 8);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, first_port, 12);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, sequence, 16);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rax, 24);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, rdi, 32);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, pvclock, 40);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, done, 72);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, handler_runs, 80);
PVSMM_ASSERT_OFFSET(pvsmm_save_area, handler_scratch, 88);
_Static_assert(sizeof(struct pvsmm_save_area) == PVSMM_SAVE_AREA_SIZE,
	       "save area size");
_Static_assert(sizeof(struct pvsmm_iret_frame) == 40, "iret frame size");

#endif /* PVSMM_ABI_H */
