// SPDX-License-Identifier: MIT
/*
 * Reflection done by the VMM, exactly as abi.h says KVM will do it: on a
 * PM timer IN, fill the vCPU's save area, switch the vCPU to the handler
 * and re-enter; the handler returns with iretq (fast path) or with an OUT
 * to the return port (generic path, state restored from our own copy).
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
#include "insn.h"
#include "registration.h"
#include "guest_mem.h"
#include "vm_stop.h"

#define X86_CR0_PG		(1ull << 31)
#define X86_CR4_LA57		(1ull << 12)
#define X86_EFER_LMA		(1ull << 10)
#define PTE_PRESENT_RW		0x3ull
#define PTE_ACCESSED		0x20ull
#define CR3_PML4_MASK		0x000ffffffffff000ull
#define RFLAGS_HANDLER		0x2ull	/* IF=0, TF=0, DF=0 */
#define MSR_STAR		0xc0000081ull	/* SYSCALL CS in bits 47:32 */

/* Handler state on the generic path (private tables, 64-bit mode). */
#define GENERIC_CR0		0x80010033ull	/* PG WP NE ET MP PE */
#define GENERIC_CR4		0x20ull		/* PAE */
#define GENERIC_EFER		0x500ull	/* LMA LME */
#define GENERIC_CS		0x08
#define GENERIC_DS		0x10
#define GENERIC_TR		0x18

static struct kvm_segment code64_dpl0(uint16_t selector)
{
	return (struct kvm_segment){
		.selector = selector, .base = 0, .limit = 0xffffffff,
		.type = 0xb, .present = 1, .dpl = 0, .db = 0, .s = 1,
		.l = 1, .g = 1,
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

/* VMX insists on a busy 64-bit TSS in long mode; SVM does not care. */
static struct kvm_segment tss64_busy(void)
{
	return (struct kvm_segment){
		.selector = GENERIC_TR, .base = 0, .limit = 0x67,
		.type = 0xb, .present = 1, .s = 0,
	};
}

static unsigned int code_bits(const struct kvm_sregs *s)
{
	if ((s->efer & X86_EFER_LMA) && s->cs.l)
		return 64;
	return s->cs.db ? 32 : 16;
}

static void fallback(struct vcpu *v, const char *why)
{
	/* Say why once per vCPU; the count tells how often. */
	if (v->counters.fallbacks++ == 0)
		vmm_warn("vCPU %u: PM timer read not reflected: %s", v->index,
			 why);
}

static bool set_regs(struct vcpu *v, struct kvm_regs *r)
{
	if (ioctl(v->fd, KVM_SET_REGS, r) == 0)
		return true;
	vmm_warn("vCPU %u: KVM_SET_REGS: %s", v->index, strerror(errno));
	vm_request_stop(v->vm, EXIT_RUNTIME_ERROR);
	return false;
}

static bool set_sregs(struct vcpu *v, struct kvm_sregs *s)
{
	/* A set bit here would make KVM inject that interrupt again. */
	memset(s->interrupt_bitmap, 0, sizeof(s->interrupt_bitmap));
	if (ioctl(v->fd, KVM_SET_SREGS, s) == 0)
		return true;
	vmm_warn("vCPU %u: KVM_SET_SREGS: %s", v->index, strerror(errno));
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

/* Reads up to X86_MAX_INSN_LEN bytes at CS:RIP; returns how many. */
static size_t read_insn_bytes(struct vcpu *v, const struct kvm_sregs *s,
			      uint64_t rip, uint8_t *bytes)
{
	uint64_t linear = code_bits(s) == 64 ? rip : (s->cs.base + rip) &
						    0xffffffffull;
	size_t got = 0;

	while (got < X86_MAX_INSN_LEN) {
		struct kvm_translation tr = { .linear_address = linear + got };
		size_t in_page = PVSMM_PAGE_SIZE -
				 ((linear + got) & (PVSMM_PAGE_SIZE - 1));
		size_t chunk = X86_MAX_INSN_LEN - got;

		if (chunk > in_page)
			chunk = in_page;
		if (ioctl(v->fd, KVM_TRANSLATE, &tr) < 0 || !tr.valid)
			break;
		if (!guest_read_phys(v->vm, tr.physical_address, bytes + got,
				     chunk))
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
 * MSR_KVM_SYSTEM_TIME_NEW; false if it has none.
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
			return true;
		}
	}
	return false;
}

/*
 * The fast path needs 64-bit mode with 4-level paging and PML4 slot
 * PVSMM_WINDOW_SLOT of the interrupted CR3 either empty (we install the
 * window) or already holding it.
 */
static int choose_return(struct vcpu *v, const struct pvsmm_descriptor *d,
			 const struct kvm_sregs *s)
{
	if (v->vm->opts->return_policy == RETURN_EXIT)
		return PVSMM_RETURN_EXIT;
	if (!(s->efer & X86_EFER_LMA) || !s->cs.l || !(s->cr0 & X86_CR0_PG) ||
	    (s->cr4 & X86_CR4_LA57))
		return PVSMM_RETURN_EXIT;

	uint64_t entry_gpa = (s->cr3 & CR3_PML4_MASK) +
			     PVSMM_WINDOW_SLOT * sizeof(uint64_t);
	uint64_t *entry = guest_ram_ptr(v->vm, entry_gpa, sizeof(*entry));
	if (!entry)
		return PVSMM_RETURN_EXIT;

	/* Supervisor, present, writable: only the handler may use it. */
	uint64_t want = d->window_pdpt | PTE_PRESENT_RW;
	uint64_t seen = 0;

	/* Atomic: the guest (or another vCPU) may write the table now. */
	if (__atomic_compare_exchange_n(entry, &seen, want, false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return PVSMM_RETURN_IRET;
	if ((seen & ~PTE_ACCESSED) == want)
		return PVSMM_RETURN_IRET;
	return PVSMM_RETURN_EXIT;
}

/* Writes the host-owned fields; never result or the handler's fields. */
static void write_save_area(uint8_t *area, const struct pvsmm_save_area *sa)
{
	const size_t result_at = offsetof(struct pvsmm_save_area, result);
	const size_t rip_at = offsetof(struct pvsmm_save_area, rip);
	const size_t handler_at = offsetof(struct pvsmm_save_area, handler_runs);

	memcpy(area, sa, result_at);
	memcpy(area + rip_at, (const uint8_t *)sa + rip_at,
	       handler_at - rip_at);
}

static bool enter_fast(struct vcpu *v, const struct pvsmm_descriptor *d,
		       uint8_t *area, struct kvm_regs *regs,
		       struct kvm_sregs *sregs, uint64_t next_rip)
{
	uint64_t area_va = d->percpu_va + (uint64_t)v->index * PVSMM_PERCPU_SIZE;
	struct pvsmm_iret_frame frame = {
		.rip = next_rip,
		.cs = sregs->cs.selector,
		.rflags = regs->rflags,
		.rsp = regs->rsp,
		.ss = sregs->ss.selector,
	};

	memcpy(area + PVSMM_PERCPU_SIZE - sizeof(frame), &frame, sizeof(frame));

	/*
	 * The handler runs at CPL 0; the iretq goes back to the old CPL.  The
	 * CS selector must name the guest's own 64-bit kernel code segment:
	 * an NMI taken in the handler returns through the guest's GDT.  Like
	 * KVM, take it from MSR_STAR[47:32], what SYSCALL loads.
	 */
	if (sregs->cs.dpl != 0 || sregs->ss.dpl != 0) {
		uint64_t star;

		if (!get_msr(v, (uint32_t)MSR_STAR, &star))
			return false;
		sregs->cs = code64_dpl0((uint16_t)(star >> 32) & ~3);
		sregs->ss = data_dpl0(0);
		if (!set_sregs(v, sregs))
			return false;
	}

	regs->rip = d->handler_va;
	regs->rsp = area_va + PVSMM_PERCPU_SIZE - sizeof(frame);
	regs->rdi = area_va;
	regs->rflags = RFLAGS_HANDLER;
	return set_regs(v, regs);
}

static bool enter_generic(struct vcpu *v, const struct pvsmm_descriptor *d,
			  uint64_t area_gpa, struct kvm_regs *regs,
			  struct kvm_sregs *sregs, uint64_t next_rip,
			  uint8_t size)
{
	struct generic_reflection *g = &v->generic;
	uint64_t area_va = d->percpu_va + (uint64_t)v->index * PVSMM_PERCPU_SIZE;

	/* The restore uses only this copy, never guest memory. */
	g->regs = *regs;
	g->sregs = *sregs;
	g->next_rip = next_rip;
	g->size = size;
	g->save_area_gpa = area_gpa;

	sregs->cr0 = GENERIC_CR0;
	sregs->cr3 = d->private_cr3;
	sregs->cr4 = GENERIC_CR4;
	sregs->efer = GENERIC_EFER;
	sregs->cs = code64_dpl0(GENERIC_CS);
	sregs->ss = data_dpl0(GENERIC_DS);
	sregs->ds = data_dpl0(GENERIC_DS);
	sregs->es = data_dpl0(GENERIC_DS);
	sregs->tr = tss64_busy();
	sregs->ldt = (struct kvm_segment){ .unusable = 1 };
	/* No IDT: a fault in the handler shuts the VM down instead of
	 * running guest code in the handler's address space. */
	sregs->idt.base = 0;
	sregs->idt.limit = 0;
	if (!set_sregs(v, sregs))
		return false;

	regs->rip = d->handler_va;
	regs->rsp = area_va + PVSMM_PERCPU_SIZE;
	regs->rdi = area_va;
	regs->rflags = RFLAGS_HANDLER;
	if (!set_regs(v, regs))
		return false;
	g->active = true;
	return true;
}

bool reflect_user_enter(struct vcpu *v)
{
	struct vm *vm = v->vm;
	struct kvm_run *run = v->run;
	uint16_t port = run->io.port;
	uint8_t size = run->io.size;
	struct pvsmm_descriptor d;
	struct kvm_regs regs;
	struct kvm_sregs sregs;

	if (size != 1 && size != 2 && size != 4)
		return false;
	if (!registration_get(vm, &d))
		return false;		/* nothing registered: plain device */
	if (v->index >= d.nr_vcpus) {
		fallback(v, "no per-vCPU area for this vCPU");
		return false;
	}
	if (v->generic.active) {
		fallback(v, "PM timer read inside the handler");
		return false;
	}
	if (ioctl(v->fd, KVM_GET_REGS, &regs) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0) {
		fallback(v, "cannot read registers");
		return false;
	}

	uint8_t bytes[X86_MAX_INSN_LEN];
	size_t got = read_insn_bytes(v, &sregs, regs.rip, bytes);
	struct in_insn insn;
	unsigned int bits = code_bits(&sregs);

	if (!x86_decode_in(bytes, got, bits, &insn) || insn.size != size ||
	    (insn.has_imm && insn.imm_port != port)) {
		fallback(v, "cannot decode the IN instruction at RIP");
		return false;
	}

	struct pvsmm_save_area sa;
	memset(&sa, 0, sizeof(sa));
	if (!read_kvmclock(v, &sa.pvclock)) {
		fallback(v, "kvmclock is not enabled on this vCPU");
		return false;
	}

	uint64_t area_gpa = d.percpu_gpa + (uint64_t)v->index * PVSMM_PERCPU_SIZE;
	uint8_t *area = guest_ram_ptr(vm, area_gpa, PVSMM_PERCPU_SIZE);
	uint64_t next_rip = regs.rip + insn.length;

	if (bits != 64)
		next_rip &= 0xffffffffull;
	if (!area) {	/* cannot happen: validated at registration */
		fallback(v, "per-vCPU area outside RAM");
		return false;
	}

	if (!complete_pending_io(v))
		return true;	/* the VM is stopping */

	int method = choose_return(v, &d, &sregs);

	v->reflection_seq++;
	sa.port = port;
	sa.size = size;
	sa.direction = PVSMM_DIR_IN;
	sa.return_method = (uint8_t)method;
	sa.return_port = PVSMM_DEFAULT_RETURN_PORT;
	sa.vcpu_index = v->index;
	sa.rip = next_rip;
	sa.cs = sregs.cs.selector;
	sa.rflags = regs.rflags;
	sa.rsp = regs.rsp;
	sa.ss = sregs.ss.selector;
	sa.cr3 = sregs.cr3;
	sa.rax = regs.rax;
	sa.rdi = regs.rdi;
	sa.sequence = v->reflection_seq;
	write_save_area(area, &sa);

	bool entered = method == PVSMM_RETURN_IRET ?
		enter_fast(v, &d, area, &regs, &sregs, next_rip) :
		enter_generic(v, &d, area_gpa, &regs, &sregs, next_rip, size);
	if (!entered)
		return true;	/* the VM is stopping; nothing to complete */

	v->counters.reflections++;
	if (method == PVSMM_RETURN_IRET)
		v->counters.iret_returns++;
	return true;
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
 * "available" (type 9) internally and aborts the whole machine ("invalid
 * tss type") at the next privilege change of a legacy-mode (32-bit)
 * guest that got a busy TR.  SVM never checks the type, so outside long
 * mode on SVM we hand TR back as available.  VMX wants it busy: untouched.
 */
static void svm_tr_available(struct kvm_sregs *s)
{
	static int svm = -1;

	if (svm < 0)
		svm = host_is_svm();
	if (svm && !(s->efer & X86_EFER_LMA) && s->tr.type == 0xb)
		s->tr.type = 0x9;
}

void reflect_user_return(struct vcpu *v)
{
	struct generic_reflection *g = &v->generic;
	uint32_t result = 0;

	/* The one value taken from guest memory: the handler's answer. */
	if (!guest_read_phys(v->vm, g->save_area_gpa +
			     offsetof(struct pvsmm_save_area, result),
			     &result, sizeof(result)))
		vmm_warn("vCPU %u: save area vanished", v->index);

	struct kvm_regs regs = g->regs;
	struct kvm_sregs sregs = g->sregs;

	regs.rip = g->next_rip;
	switch (g->size) {
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
	g->active = false;
	svm_tr_available(&sregs);
	if (complete_pending_io(v) && set_sregs(v, &sregs) &&
	    set_regs(v, &regs))
		v->counters.exit_returns++;
}
