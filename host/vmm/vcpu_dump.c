// SPDX-License-Identifier: MIT
/* A vCPU's registers on stderr, for fatal exits and guest failures. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vcpu_dump.h"
#include "util.h"

void vcpu_dump_state(struct vcpu *v)
{
	struct kvm_regs r;
	struct kvm_sregs s;
	struct kvm_mp_state mp = { .mp_state = ~0u };

	ioctl(v->fd, KVM_GET_MP_STATE, &mp);	/* best effort */
	if (ioctl(v->fd, KVM_GET_REGS, &r) < 0 ||
	    ioctl(v->fd, KVM_GET_SREGS, &s) < 0) {
		vmm_warn("vCPU %u: cannot read registers: %s", v->index,
			 strerror(errno));
		return;
	}
	fprintf(stderr,
		"  vCPU %u: mp_state %u rip %016llx rsp %016llx rflags %016llx\n"
		"  rax %016llx rbx %016llx rcx %016llx rdx %016llx\n"
		"  rsi %016llx rdi %016llx rbp %016llx\n"
		"  cs %04x base %llx l%u db%u dpl%u  ss %04x dpl%u\n"
		"  cr0 %llx cr3 %llx cr4 %llx efer %llx idt %llx/%x gdt %llx/%x\n",
		v->index, mp.mp_state, r.rip, r.rsp, r.rflags, r.rax, r.rbx, r.rcx, r.rdx,
		r.rsi, r.rdi, r.rbp, s.cs.selector, s.cs.base, s.cs.l, s.cs.db,
		s.cs.dpl, s.ss.selector, s.ss.dpl, s.cr0, s.cr3, s.cr4, s.efer,
		s.idt.base, s.idt.limit, s.gdt.base, s.gdt.limit);
}
