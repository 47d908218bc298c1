/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_IRQ_H
#define PVSMM_IRQ_H

#include "vmm.h"

/*
 * PC interrupt routing for the in-kernel irqchip, as the MADT describes
 * it: ISA IRQ n on 8259 input n and IOAPIC pin n, except IRQ 0 (the PIT),
 * which is IOAPIC pin 2 (the usual IRQ0 -> GSI2 override).
 */
void irq_setup_routing(struct vm *vm);

/* Drives ISA IRQ/GSI line gsi to level (KVM_IRQ_LINE); any thread. */
void irq_set_line(struct vm *vm, unsigned int gsi, bool level);

#endif
