/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PM_TICKS_H
#define PVSMM_PM_TICKS_H

#include <stdint.h>

/*
 * The one definition of the ACPI PM timer counter shared by every mode:
 * floor(kvmclock_ns * 3579545 / 10^9) mod 2^24.
 */
uint32_t pm_timer_ticks_from_ns(uint64_t ns);

/* The same count before the mod 2^24: ticks since kvmclock's zero. */
uint64_t pm_timer_total_ticks(uint64_t ns);

/* The first ns at which pm_timer_total_ticks() reaches ticks. */
uint64_t pm_timer_ns_at_ticks(uint64_t ticks);

/* Bit 23 of the counter toggles when total_ticks >> 23 changes. */
#define PM_TIMER_CARRY_SHIFT	23

#endif
