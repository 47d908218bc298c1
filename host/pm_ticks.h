/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PM_TICKS_H
#define PVSMM_PM_TICKS_H

#include <stdint.h>

/*
 * The one definition of the ACPI PM timer counter shared by every mode:
 * floor(kvmclock_ns * 3579545 / 10^9) mod 2^24.
 */
uint32_t pm_timer_ticks_from_ns(uint64_t ns);

#endif
