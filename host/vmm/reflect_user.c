// SPDX-License-Identifier: MIT
/*
 * Reflection done by the VMM on a stock KVM, exactly as abi.h (version 2)
 * says the host does it, with KVM_GET/SET_REGS, _SREGS and _VCPU_EVENTS:
 *
 *  - the private path (the default): the interrupted state goes into the
 *    VMM's own memory; the vCPU enters the handler in the interrupted
 *    context's own paging mode, on the entry of that mode: only CR3, GDTR,
 *    IDTR, CS, SS, RSP, RIP and RFLAGS change, and NMIs are held
 *    (nmi.masked).  The handler's 32-bit OUT to the return port carries the
 *    value; the VMM restores everything from its copy, merges the value
 *    into RAX and resumes after the IN.  A fault report (an OUT of another
 *    size, from the firmware's exception stubs) puts the vCPU back at the
 *    IN, whose read then goes to the userspace device, and ends the
 *    registration with PVSMM_STATUS_DISABLED.
 *  - the window path (--window): in 64-bit mode with 4-level paging, NXE
 *    and no CET, when PML4 slot PVSMM_WINDOW_SLOT of the interrupted CR3
 *    is empty or already ours, the VMM fills it with the window PDPT,
 *    records that for the registration (cleared when it ends) and pushes
 *    an iretq frame: the handler returns without a second exit.
 *
 * Reads the VMM does not reflect are served by the userspace device,
 * counted by reason (enum reflect_fallback).
 *
 * KVM leaves an I/O exit half done: the next KVM_RUN first completes it
 * (writes RAX for an IN, skips the instruction).  Older KVMs drop that
 * completion when userspace moved RIP (complete_fast_pio_in compares the
 * linear RIP), but not every KVM does: 6.18 was seen to skip to the IN's
 * next RIP anyway, i.e. out of the handler.  So we let KVM finish first,
 * with KVM_RUN and immediate_exit set (api.rst: that completes pending
 * operations without running the guest), and only then load the state we
 * want, built from the registers as they were at the exit.
 */
#include <cpuid.h>
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <asm/kvm_para.h>

#include "reflect_user.h"
#include "descriptor.h"
#include "fallback.h"
#include "insn.h"
#include "registration.h"
#include "guest_mem.h"
#include "vm_stop.h"
#include "x86.h"

#define CR3_PML4_MASK		0x000ffffffffff000ull
#define RFLAGS_HANDLER		0x2ull	/* IF=0, TF=0, DF=0 */
#define PVCLOCK_TSC_STABLE	0x1	/* pvclock flags: masterclock in use */

static struct kvm_segment code_dpl0(uint16_t selector, bool long_mode)
{
	return (struct kvm_segment){
		.selector = selector, .base = 0, .limit = 0xffffffff,
		.type = 0xb, .present = 1, .dpl = 0, .db = !long_mode, .s = 1,
		.l = long_mode, .g = 1,
	};
}

static struct kvm_segment data_dpl0(uint16_t selector)
{
	return (struct kvm_segment){
		.selector = selector, .base = 0, .limit = 0xffffffff,
		.type = 0x3, .present = 1, .dpl = 0, .db = 1, .s = 1,
		.l = 0, .g = 1,
	};
}

static unsigned int code_bits(const struct kvm_sregs2 *s)
{
	if ((s->efer & X86_EFER_LMA) && s->cs.l)
		return 64;
	return s->cs.db ? 32 : 16;
}

static void fallback(struct vcpu *v, enum reflect_fallback why)
{
	v->counters.fallback_by_reason[why]++;
	/* Say why once per vCPU; the counts tell how often. */
	if (v->counters.fallbacks++ == 0)
		vmm_warn("vCPU %u: PM timer read not reflected: %s", v->index,
			 fallback_name(why));
}

static bool host_is_svm(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx))
		return false;
	return (ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163) ||
	       (ebx == 0x6f677948 && edx == 0x6e65476e && ecx == 0x656e6975);
}

/*
 * KVM_GET_SREGS on SVM reports TR busy (type 11) whatever the VMCB holds
 * (svm_get_segment sets the bit), and we write that back.  Hardware does
 * not care, but QEMU's TCG -- the lab's outermost layer -- keeps TR
 * "available" (type 9) internally and checks that type: a legacy-mode
 * (32-bit) guest that got a busy TR aborts the whole machine ("invalid
 * tss type") at its next privilege change, and in long mode every I/O
 * permission check fails (a user process's ioperm() OUT raised #GP in an
 * amd64 guest after its first private-path reflection).  SVM never checks
 * the type, so on SVM we hand TR back as available.  VMX wants it busy:
 * untouched.
 */
static void svm_tr_available(struct kvm_sregs2 *s)
{
	static int svm = -1;

	if (svm < 0)
		svm = host_is_svm();
	if (svm && s->tr.type == 0xb)
		s->tr.type = 0x9;
}

static bool set_regs(struct vcpu *v, struct kvm_regs *r)
{
	if (ioctl(v->fd, KVM_SET_REGS, r) == 0)
		return true;
	vmm_warn("vCPU %u: KVM_SET_REGS: %s", v->index, strerror(errno));
	vm_request_stop(v->vm, EXIT_RUNTIME_ERROR);
	return false;
}

/*
 * KVM_SET_SREGS2, not KVM_SET_SREGS: in PAE mode it takes the PDPTRs from
 * us instead of reading them from the PDPT in memory, which the guest may
 * have changed since its CR3 load (the CPU keeps what it loaded then), and
 * in which the lab's TCG sets Accessed bits that make KVM refuse to load
 * them at all (it then keeps the previous ones: the private PDPT's after
 * a reflection).  Outside PAE paging the flag must be clear.
 */
static bool set_sregs(struct vcpu *v, struct kvm_sregs2 *s)
{
	bool pae = (s->cr0 & X86_CR0_PG) && (s->cr4 & X86_CR4_PAE) &&
		   !(s->efer & X86_EFER_LMA);

	if (!pae)
		s->flags &= ~KVM_SREGS2_FLAGS_PDPTRS_VALID;
	svm_tr_available(s);
	if (ioctl(v->fd, KVM_SET_SREGS2, s) == 0)
		return true;
	vmm_warn("vCPU %u: KVM_SET_SREGS2: %s", v->index, strerror(errno));
	vm_request_stop(v->vm, EXIT_RUNTIME_ERROR);
	return false;
}

/* Holds NMIs (the handler runs on its own IDT) or lets them through. */
static bool set_nmi_masked(struct vcpu *v, bool masked)
{
	struct kvm_vcpu_events ev;

	if (ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) == 0) {
		ev.nmi.masked = masked;
		/* Leave what is pending as it is. */
		ev.flags &= KVM_VCPUEVENT_VALID_NMI_PENDING |
			    KVM_VCPUEVENT_VALID_SIPI_VECTOR |
			    KVM_VCPUEVENT_VALID_SHADOW | KVM_VCPUEVENT_VALID_SMM;
		if (ioctl(v->fd, KVM_SET_VCPU_EVENTS, &ev) == 0)
			return true;
	}
	vmm_warn("vCPU %u: KVM_*_VCPU_EVENTS: %s", v->index, strerror(errno));
	vm_request_stop(v->vm, EXIT_RUNTIME_ERROR);
	return false;
}

static bool complete_pending_io(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	if (run->io.direction == KVM_EXIT_IO_IN)	/* a harmless value */
		memset((uint8_t *)run + run->io.data_offset, 0,
		       (size_t)run->io.size * run->io.count);
	run->immediate_exit = 1;
	int r = ioctl(v->fd, KVM_RUN, 0);
	int err = errno;
	run->immediate_exit = 0;
	if (r < 0 && err == EINTR)
		return true;
	vmm_warn("vCPU %u: completing the I/O exit failed: %s", v->index,
		 r < 0 ? strerror(err) : "KVM_RUN entered the guest");
	vm_request_stop(v->vm, EXIT_RUNTIME_ERROR);
	return false;
}

/* The guest's own paging, as the software walk needs it. */
static struct pvsmm_walk_config guest_paging(const struct kvm_sregs2 *s)
{
	struct pvsmm_walk_config cfg = { .levels = 2 };

	if (s->efer & X86_EFER_LMA) {
		cfg.levels = (s->cr4 & X86_CR4_LA57) ? 5 : 4;
	} else if (s->cr4 & X86_CR4_PAE) {
		cfg.levels = 3;
		if (s->flags & KVM_SREGS2_FLAGS_PDPTRS_VALID)
			cfg.pdptrs = (const uint64_t *)s->pdptrs;
	}
	cfg.pse = !!(s->cr4 & X86_CR4_PSE);
	return cfg;
}

/*
 * Reads up to X86_MAX_INSN_LEN bytes at CS:RIP through a software walk of
 * the guest's tables, with the PAE PDPTRs the CPU holds (KVM_TRANSLATE
 * would reload them from memory, see set_sregs); returns how many.
 */
static size_t read_insn_bytes(struct vcpu *v, const struct kvm_sregs2 *s,
			      uint64_t rip, uint8_t *bytes)
{
	struct pvsmm_guest_mem mem = { .ram = v->vm->ram,
				       .size = v->vm->ram_size };
	struct pvsmm_walk_config cfg = guest_paging(s);
	uint64_t linear = code_bits(s) == 64 ? rip : (s->cs.base + rip) &
						    0xffffffffull;
	size_t got = 0;

	while (got < X86_MAX_INSN_LEN) {
		struct pvsmm_walk w;
		size_t in_page = PVSMM_PAGE_SIZE -
				 ((linear + got) & (PVSMM_PAGE_SIZE - 1));
		size_t chunk = X86_MAX_INSN_LEN - got;

		if (chunk > in_page)
			chunk = in_page;
		if (pvsmm_walk(&mem, &cfg, s->cr3, linear + got, &w) !=
		    PVSMM_WALK_OK ||
		    !guest_read_phys(v->vm, w.gpa, bytes + got, chunk))
			break;
		got += chunk;
	}
	return got;
}

/* One MSR of this vCPU; false if KVM refuses to read it. */
static bool get_msr(struct vcpu *v, uint32_t index, uint64_t *value)
{
	struct {
		__u32 nmsrs, pad;
		struct kvm_msr_entry entry;
	} msrs = { .nmsrs = 1, .entry.index = index };

	if (ioctl(v->fd, KVM_GET_MSRS, &msrs) != 1)
		return false;
	*value = msrs.entry.data;
	return true;
}

/*
 * A consistent copy of the kvmclock area this vCPU registered with
 * MSR_KVM_SYSTEM_TIME_NEW; false if it has none, or if KVM does not mark
 * it stable (no masterclock: then time is not monotonic across vCPUs).
 */
static bool read_kvmclock(struct vcpu *v, struct pvsmm_pvclock *out)
{
	uint64_t system_time;

	if (!get_msr(v, MSR_KVM_SYSTEM_TIME_NEW, &system_time) ||
	    !(system_time & 1))
		return false;

	const struct pvsmm_pvclock *area =
		guest_ram_ptr(v->vm, system_time & ~1ull, sizeof(*area));
	if (!area)
		return false;

	/* KVM updates it seqlock-style: odd version = update in progress. */
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t before = __atomic_load_n(&area->version,
						  __ATOMIC_ACQUIRE);
		if (before & 1)
			continue;
		memcpy(out, area, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&area->version, __ATOMIC_RELAXED) == before) {
			/* The host owns the copy's padding: always zero. */
			out->version = before;
			out->pad0 = 0;
			memset(out->pad, 0, sizeof(out->pad));
			return out->flags & PVCLOCK_TSC_STABLE;
		}
	}
	return false;
}

/*
 * The reasons abi.h gives for serving a read in userspace, in its order,
 * from the interrupted state alone; on success *mode and *root say which
 * entry (and which top-level table) to enter.  FALLBACK_NR: reflect.
 */
static enum reflect_fallback classify(const struct vcpu *v,
				      const struct pvsmm_descriptor *d,
				      const struct kvm_regs *r,
				      const struct kvm_sregs2 *s,
				      const struct kvm_vcpu_events *ev,
				      unsigned int *mode, uint64_t *root)
{
	bool lma = s->efer & X86_EFER_LMA;

	if (!(s->cr0 & X86_CR0_PE))
		return FALLBACK_REAL_MODE;
	if (r->rflags & X86_RFLAGS_VM)
		return FALLBACK_VM86;
	if (s->ss.dpl != 0)		/* KVM reports the CPL there */
		return FALLBACK_CPL;
	if (!(s->cr0 & X86_CR0_PG))
		return FALLBACK_PAGING_OFF;
	if (!lma && !s->cs.db)
		return FALLBACK_16BIT;
	if (lma && !s->cs.l)
		return FALLBACK_COMPAT;

	if (lma) {
		*mode = PVSMM_MODE_LONG;
		*root = (s->cr4 & X86_CR4_LA57) ? d->cr3_la57 :
						  d->entry[PVSMM_MODE_LONG].cr3;
		if (d->entry[PVSMM_MODE_LONG].cr3 == 0)
			*root = 0;
	} else {
		*mode = (s->cr4 & X86_CR4_PAE) ? PVSMM_MODE_PAE : PVSMM_MODE_32;
		*root = d->entry[*mode].cr3;
	}
	if (*root == 0)
		return FALLBACK_NO_ENTRY;
	if (lma && !(s->efer & X86_EFER_NXE))
		return FALLBACK_NO_NXE;
	if ((ev->flags & KVM_VCPUEVENT_VALID_SMM) && ev->smi.smm)
		return FALLBACK_SMM;
	if (ev->nmi.masked || ev->nmi.injected)
		return FALLBACK_NMI_BLOCKED;
	if (ev->exception.injected || ev->exception.pending ||
	    ev->interrupt.injected)
		return FALLBACK_EVENT_PENDING;
	if (v->refl.active)
		return FALLBACK_IN_FLIGHT;
	if (r->rflags & X86_RFLAGS_TF)
		return FALLBACK_SINGLE_STEP;
	if (v->index >= d->nr_vcpus)
		return FALLBACK_NO_AREA;
	return FALLBACK_NR;
}

/*
 * The window path may serve this read: 64-bit mode, 4-level paging, no
 * CET, and PML4 slot PVSMM_WINDOW_SLOT of the interrupted CR3 empty (we
 * fill it, atomically, and record it for the registration) or ours.
 */
static bool claim_window(struct vcpu *v, const struct pvsmm_descriptor *d,
			 uint64_t generation, const struct kvm_sregs2 *s)
{
	if (!v->vm->opts->window || !d->window_pdpt ||
	    !(s->efer & X86_EFER_LMA) || (s->cr4 & (X86_CR4_LA57 | X86_CR4_CET)))
		return false;

	uint64_t entry_gpa = (s->cr3 & CR3_PML4_MASK) +
			     PVSMM_WINDOW_SLOT * sizeof(uint64_t);
	uint64_t *entry = guest_ram_ptr(v->vm, entry_gpa, sizeof(*entry));
	if (!entry)
		return false;

	uint64_t want = d->window_pdpt | PVSMM_WINDOW_PTE_FLAGS;
	uint64_t seen = 0;

	/* Atomic: the guest (or another vCPU) may write the table now. */
	if (__atomic_compare_exchange_n(entry, &seen, want, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (registration_claim_window(v->vm, generation, entry_gpa))
			return true;
		/* Not recorded (the registration ended, or too many address
		 * spaces): take it back, the private path serves this one. */
		seen = want;
		__atomic_compare_exchange_n(entry, &seen, 0, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		return false;
	}
	return (seen & ~PVSMM_PTE_ACCESSED) == want &&
	       registration_claim_window(v->vm, generation, entry_gpa);
}

/* Writes the host-owned fields; never done or the handler's fields. */
static void write_save_area(uint8_t *area, const struct pvsmm_save_area *sa)
{
	memcpy(area, sa, offsetof(struct pvsmm_save_area, done));
}

static bool enter_window(struct vcpu *v, const struct pvsmm_entry *e,
			 uint8_t *area, struct kvm_regs *regs, uint64_t next_rip)
{
	uint64_t area_va = e->percpu_va + (uint64_t)v->index * PVSMM_PERCPU_SIZE;
	/* CS and SS stay zero: the handler runs on them and fills them in. */
	struct pvsmm_iret_frame frame = {
		.rip = next_rip,
		.rflags = regs->rflags,
		.rsp = regs->rsp,
	};

	memcpy(area + PVSMM_PERCPU_SIZE - sizeof(frame), &frame, sizeof(frame));
	regs->rip = e->handler_va;
	regs->rsp = area_va + PVSMM_PERCPU_SIZE - sizeof(frame);
	regs->rdi = area_va;
	regs->rflags = RFLAGS_HANDLER;
	return set_regs(v, regs);
}

static bool enter_private(struct vcpu *v, const struct registration_snapshot *rs,
			  unsigned int mode, uint64_t root,
			  struct kvm_regs *regs, struct kvm_sregs2 *sregs,
			  bool single_step)
{
	const struct pvsmm_entry *e = &rs->desc.entry[mode];
	uint64_t area_va = e->percpu_va + (uint64_t)v->index * PVSMM_PERCPU_SIZE;
	bool long_mode = mode == PVSMM_MODE_LONG;

	/* Only CR3, GDTR, IDTR, CS, SS, RSP, RIP, RFLAGS change (and, with
	 * CR3 in PAE mode, the PDPTRs: those validated at registration). */
	sregs->cr3 = root;
	if (mode == PVSMM_MODE_PAE) {
		memcpy(sregs->pdptrs, rs->pae_pdptes, sizeof(sregs->pdptrs));
		sregs->flags |= KVM_SREGS2_FLAGS_PDPTRS_VALID;
	}
	sregs->gdt.base = e->gdt_va;
	sregs->gdt.limit = e->gdt_limit;
	sregs->idt.base = e->idt_va;
	sregs->idt.limit = e->idt_limit;
	sregs->cs = code_dpl0(long_mode ? PVSMM_PRIVATE_CS64 : PVSMM_PRIVATE_CS32,
			      long_mode);
	sregs->ss = data_dpl0(PVSMM_PRIVATE_DS);
	if (!set_sregs(v, sregs))
		return false;

	regs->rip = e->handler_va;
	regs->rsp = area_va + PVSMM_PERCPU_SIZE;
	regs->rdi = area_va;
	regs->rflags = RFLAGS_HANDLER | (single_step ? X86_RFLAGS_TF : 0);
	return set_regs(v, regs) && set_nmi_masked(v, true);
}

/*
 * Is the last window reflection of this vCPU still running?  Its handler
 * writes done = sequence just before IRETQ; a read that arrives before
 * that (from an NMI or #MC handler of the guest that interrupted it) must
 * not reflect again: that would overwrite the iretq frame.
 */
static bool window_in_flight(struct vcpu *v)
{
	struct reflection_state *r = &v->refl;
	uint64_t done;

	if (!r->window_area_gpa)
		return false;
	if (guest_read_phys(v->vm, r->window_area_gpa +
			    offsetof(struct pvsmm_save_area, done),
			    &done, sizeof(done)) && done != r->window_sequence) {
		v->counters.window_unfinished++;
		return true;
	}
	r->window_area_gpa = 0;
	return false;
}

bool reflect_user_enter(struct vcpu *v)
{
	struct vm *vm = v->vm;
	struct kvm_run *run = v->run;
	uint16_t port = run->io.port;
	uint8_t size = run->io.size;
	struct registration_snapshot rs;
	const struct pvsmm_descriptor *d = &rs.desc;
	struct kvm_regs regs;
	struct kvm_sregs2 sregs;
	struct kvm_vcpu_events ev;
	unsigned int mode = PVSMM_MODE_LONG;
	uint64_t root = 0;

	if (size != 1 && size != 2 && size != 4)
		return false;
	if (!registration_get(vm, &rs))
		return false;		/* nothing registered: plain device */
	if (window_in_flight(v)) {
		fallback(v, FALLBACK_IN_FLIGHT);
		return false;
	}
	if (ioctl(v->fd, KVM_GET_REGS, &regs) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS2, &sregs) < 0 ||
	    ioctl(v->fd, KVM_GET_VCPU_EVENTS, &ev) < 0) {
		fallback(v, FALLBACK_VCPU_STATE);
		return false;
	}
	enum reflect_fallback why = classify(v, d, &regs, &sregs, &ev, &mode,
					     &root);
	if (why != FALLBACK_NR) {
		fallback(v, why);
		return false;
	}

	uint8_t bytes[X86_MAX_INSN_LEN];
	size_t got = read_insn_bytes(v, &sregs, regs.rip, bytes);
	struct in_insn insn;
	unsigned int bits = code_bits(&sregs);

	if (!x86_decode_in(bytes, got, bits, &insn) || insn.size != size ||
	    (insn.has_imm && insn.imm_port != port)) {
		fallback(v, FALLBACK_DECODE);
		return false;
	}

	struct pvsmm_save_area sa;
	memset(&sa, 0, sizeof(sa));
	if (!read_kvmclock(v, &sa.pvclock)) {
		fallback(v, FALLBACK_KVMCLOCK);
		return false;
	}

	uint64_t area_gpa = d->percpu_gpa + (uint64_t)v->index * PVSMM_PERCPU_SIZE;
	uint8_t *area = guest_ram_ptr(vm, area_gpa, PVSMM_PERCPU_SIZE);
	uint64_t next_rip = regs.rip + insn.length;

	if (bits != 64)
		next_rip &= 0xffffffffull;
	if (!area) {	/* cannot happen: validated at registration */
		fallback(v, FALLBACK_MEMORY);
		return false;
	}

	bool window = mode == PVSMM_MODE_LONG &&
		      claim_window(v, d, rs.generation, &sregs);
	struct reflection_state *r = &v->refl;

	/* The restore uses only this copy, never guest memory. */
	r->regs = regs;
	r->sregs = sregs;
	r->next_rip = next_rip;
	r->size = size;
	r->mode = (uint8_t)mode;
	if (!complete_pending_io(v))
		return true;	/* the VM is stopping */

	v->reflection_seq++;
	sa.port = port;
	sa.size = size;
	sa.direction = PVSMM_DIR_IN;
	sa.return_method = window ? PVSMM_RETURN_IRET : PVSMM_RETURN_EXIT;
	sa.mode = (uint8_t)mode;
	sa.return_port = PVSMM_DEFAULT_RETURN_PORT;
	sa.vcpu_index = v->index;
	sa.first_port = vm->opts->pm_port;
	sa.sequence = v->reflection_seq;
	sa.rax = regs.rax;
	sa.rdi = regs.rdi;
	write_save_area(area, &sa);

	if (window) {
		if (!enter_window(v, &d->entry[mode], area, &regs, next_rip))
			return true;	/* the VM is stopping */
		r->window_area_gpa = area_gpa;
		r->window_sequence = sa.sequence;
		v->counters.iret_returns++;
	} else {
		/* --fault-test: the handler's first instruction traps (#DB)
		 * into its stub, exercising the private IDT, the stubs and
		 * the failure report. */
		bool trap = v->index == 0 && v->reflection_seq == vm->opts->fault_test;

		r->active = true;
		r->generation = rs.generation;
		if (!enter_private(v, &rs, mode, root, &regs, &sregs, trap))
			return true;	/* the VM is stopping */
	}
	v->counters.reflections++;
	return true;
}

bool reflect_user_in_flight(const struct vcpu *v)
{
	return v->refl.active;
}

void reflect_user_return(struct vcpu *v)
{
	struct reflection_state *r = &v->refl;
	struct kvm_run *run = v->run;
	uint32_t result = 0;

	/* The value comes with the OUT itself: nothing from guest memory. */
	memcpy(&result, (uint8_t *)run + run->io.data_offset,
	       run->io.size <= 4 ? run->io.size : 4);
	bool failed = run->io.size != 4;

	struct kvm_regs regs = r->regs;
	struct kvm_sregs2 sregs = r->sregs;

	if (failed) {
		/*
		 * A fault report: AX = PVSMM_FAULT_REPORT | vector.  Back to
		 * the IN itself (RIP unchanged), whose read the userspace
		 * device then serves, and no more reflection.
		 */
		v->counters.handler_failures++;
		vmm_warn("vCPU %u: the handler failed (report %#x: %s, vector %u); reflection disabled",
			 v->index, result & 0xffff,
			 (result & 0xff00) == PVSMM_FAULT_REPORT ?
			 "exception" : "unknown report", result & 0xff);
		registration_disable(v->vm, r->generation);
	} else {
		regs.rip = r->next_rip;
		switch (r->size) {
		case 4:		/* a 32-bit destination is zero-extended */
			regs.rax = result;
			break;
		case 2:
			regs.rax = (regs.rax & ~0xffffull) | (result & 0xffff);
			break;
		default:
			regs.rax = (regs.rax & ~0xffull) | (result & 0xff);
			break;
		}
	}
	r->active = false;
	if (complete_pending_io(v) && set_sregs(v, &sregs) &&
	    set_regs(v, &regs) && set_nmi_masked(v, false) && !failed)
		v->counters.exit_returns++;
}
