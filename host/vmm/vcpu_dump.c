// SPDX-License-Identifier: MIT
/* A vCPU's registers on stderr, for fatal exits and guest failures. */
#include <errno.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "guest_mem.h"
#include "vcpu_dump.h"
#include "util.h"
#include "x86.h"

/*
 * Words from the top of the stack: with the guest kernel's System.map
 * they name the callers of whatever a hung vCPU spins or sleeps in.
 */
#define DUMP_STACK_WORDS	32

struct dump_buf {
	char text[4096];
	size_t len;
};

static void __attribute__((format(printf, 2, 3)))
dump_add(struct dump_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->text))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->text + b->len, sizeof(b->text) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
	if (b->len > sizeof(b->text) - 1)
		b->len = sizeof(b->text) - 1;
}

/*
 * len bytes at a linear address, translated by KVM (KVM_TRANSLATE walks
 * the guest's tables in its current mode, or none with paging off) page
 * by page, and read from our copy of guest memory.  linear_mask is the
 * mode's linear address space: outside long mode, a word that crosses
 * 4 GiB goes on at 0, as on the CPU.
 */
static bool read_linear(struct vcpu *v, uint64_t linear, uint64_t linear_mask,
			void *buf, unsigned int len)
{
	uint8_t *out = buf;

	while (len) {
		unsigned int chunk = PVSMM_PAGE_SIZE -
				     (linear & (PVSMM_PAGE_SIZE - 1));
		struct kvm_translation t = { .linear_address = linear };

		if (chunk > len)
			chunk = len;
		if (ioctl(v->fd, KVM_TRANSLATE, &t) < 0 || !t.valid ||
		    !guest_read_phys(v->vm, t.physical_address, out, chunk))
			return false;
		linear = (linear + chunk) & linear_mask;
		out += chunk;
		len -= chunk;
	}
	return true;
}

/*
 * Stack words from SS:RSP on, as wide as the stack's: 8 bytes in 64-bit
 * mode, else 4 or 2 by SS's B bit, the offset wrapping as the CPU's does.
 * Stops at the first word that does not translate, lies outside RAM or,
 * in 64-bit mode, is not canonical.  A line holds up to four words at
 * consecutive addresses: where the offset wraps, a new line starts.
 */
static void dump_stack(struct dump_buf *b, struct vcpu *v,
		       const struct kvm_regs *r, const struct kvm_sregs *s)
{
	bool long_mode = (s->efer & X86_EFER_LMA) && s->cs.l;
	unsigned int size = long_mode ? 8 : s->ss.db ? 4 : 2;
	uint64_t offset_mask = long_mode ? ~0ull : s->ss.db ? 0xffffffffull : 0xffffull;
	uint64_t linear_mask = long_mode ? ~0ull : 0xffffffffull;
	bool la57 = s->cr4 & X86_CR4_LA57;
	uint64_t next = 0;
	unsigned int shown = 0, in_line = 0;

	for (unsigned int i = 0; i < DUMP_STACK_WORDS; i++) {
		uint64_t offset = (r->rsp + (uint64_t)i * size) & offset_mask;
		uint64_t linear = long_mode ? offset :
				  (uint32_t)(s->ss.base + offset);
		uint64_t word = 0;

		/* KVM_TRANSLATE walks a non-canonical address by its low
		 * bits: it would show what the CPU could never read there. */
		if (long_mode && (!x86_canonical(linear, la57) ||
				  !x86_canonical(linear + size - 1, la57)))
			break;
		if (!read_linear(v, linear, linear_mask, &word, size))
			break;
		if (in_line == 4 || (shown && linear != next)) {
			dump_add(b, "\n");
			in_line = 0;
		}
		if (in_line == 0)
			dump_add(b, "  stack %016llx:", (unsigned long long)linear);
		dump_add(b, " %0*llx", (int)size * 2, (unsigned long long)word);
		next = (linear + size) & linear_mask;
		in_line++;
		shown++;
	}
	if (shown)
		dump_add(b, "\n");
}

void vcpu_dump_state(struct vcpu *v)
{
	struct kvm_regs r;
	struct kvm_sregs s;
	struct kvm_mp_state mp = { .mp_state = ~0u };
	struct dump_buf b = { .len = 0 };

	ioctl(v->fd, KVM_GET_MP_STATE, &mp);	/* best effort */
	if (ioctl(v->fd, KVM_GET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &s) < 0) {
		vmm_warn("vCPU %u: cannot read registers: %s", v->index,
			 strerror(errno));
		return;
	}
	dump_add(&b,
		 "  vCPU %u: mp_state %u rip %016llx rsp %016llx rflags %016llx\n"
		 "  rax %016llx rbx %016llx rcx %016llx rdx %016llx\n"
		 "  rsi %016llx rdi %016llx rbp %016llx\n"
		 "  r8  %016llx r9  %016llx r10 %016llx r11 %016llx\n"
		 "  r12 %016llx r13 %016llx r14 %016llx r15 %016llx\n"
		 "  cs %04x base %llx l%u db%u dpl%u  ss %04x dpl%u\n"
		 "  cr0 %llx cr2 %llx cr3 %llx cr4 %llx efer %llx idt %llx/%x gdt %llx/%x\n",
		 v->index, mp.mp_state, r.rip, r.rsp, r.rflags, r.rax, r.rbx,
		 r.rcx, r.rdx, r.rsi, r.rdi, r.rbp, r.r8, r.r9, r.r10, r.r11,
		 r.r12, r.r13, r.r14, r.r15, s.cs.selector, s.cs.base, s.cs.l,
		 s.cs.db, s.cs.dpl, s.ss.selector, s.ss.dpl, s.cr0, s.cr2, s.cr3,
		 s.cr4, s.efer, s.idt.base, s.idt.limit, s.gdt.base, s.gdt.limit);
	dump_stack(&b, v, &r, &s);
	/* One write, so that vCPUs dumping at once do not interleave. */
	fputs(b.text, stderr);
}
