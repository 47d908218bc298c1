/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PM_TIMER_H
#define PVSMM_PM_TIMER_H

#include "vmm.h"
#include "pm_ticks.h"

/* kvmclock now (KVM_GET_CLOCK), in ns; stops the VM and returns 0 on error. */
uint64_t pm_timer_clock_ns(struct vm *vm);
/* The counter now, from KVM_GET_CLOCK (the guest's kvmclock). */
uint32_t pm_timer_now(struct vm *vm);
/* A 1, 2 or 4-byte read of the counter register into data. */
void pm_timer_read(struct vm *vm, uint8_t *data, uint8_t size);
/*
 * The counter port's handler (ctx: the struct vm): a read is served and
 * counted as pm_user_reads; the register is read-only, writes vanish.
 * pm_port.c decides which handler owns the port in which mode.
 */
pio_handler_fn pm_timer_pio;

#endif
