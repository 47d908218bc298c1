// SPDX-License-Identifier: MIT
/*
 * Interrupt routing.  KVM's default table sends GSI n to IOAPIC pin n, so
 * the in-kernel PIT (which raises GSI 0) would land on pin 0, while every
 * PC firmware tells the OS "IRQ 0 is GSI 2" and the kernel's timer check
 * then watches pin 2.  We install the PC table instead: GSI 0 -> pin 2,
 * GSI 2 unrouted (the 8259 cascade), everything else 1:1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "irq.h"

#define ISA_IRQS	16
#define IOAPIC_PINS	24

void irq_setup_routing(struct vm *vm)
{
	const unsigned int max = ISA_IRQS + IOAPIC_PINS;
	struct kvm_irq_routing *r = calloc(1, sizeof(*r) +
					   max * sizeof(r->entries[0]));
	unsigned int n = 0;

	if (!r)
		vmm_die(EXIT_SETUP_ERROR, "out of memory");
	for (unsigned int gsi = 0; gsi < ISA_IRQS; gsi++) {
		if (gsi == 2)
			continue;	/* the slave 8259's cascade input */
		r->entries[n].gsi = gsi;
		r->entries[n].type = KVM_IRQ_ROUTING_IRQCHIP;
		r->entries[n].u.irqchip.irqchip = gsi < 8 ?
			KVM_IRQCHIP_PIC_MASTER : KVM_IRQCHIP_PIC_SLAVE;
		r->entries[n].u.irqchip.pin = gsi % 8;
		n++;
	}
	for (unsigned int gsi = 0; gsi < IOAPIC_PINS; gsi++) {
		if (gsi == 2)
			continue;
		r->entries[n].gsi = gsi;
		r->entries[n].type = KVM_IRQ_ROUTING_IRQCHIP;
		r->entries[n].u.irqchip.irqchip = KVM_IRQCHIP_IOAPIC;
		r->entries[n].u.irqchip.pin = gsi == 0 ? 2 : gsi;
		n++;
	}
	r->nr = n;
	if (ioctl(vm->vm_fd, KVM_SET_GSI_ROUTING, r) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_SET_GSI_ROUTING: %s",
			strerror(errno));
	free(r);
}

void irq_set_line(struct vm *vm, unsigned int gsi, bool level)
{
	struct kvm_irq_level l = { .irq = gsi, .level = level ? 1 : 0 };

	if (ioctl(vm->vm_fd, KVM_IRQ_LINE, &l) < 0)
		vmm_warn("KVM_IRQ_LINE %u=%d: %s", gsi, l.level,
			 strerror(errno));
}
