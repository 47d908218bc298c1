// SPDX-License-Identifier: MIT
/* Kept free of KVM dependencies so the unit tests can link it alone. */
#include "pm_ticks.h"
#include "pvsmm/abi.h"

uint64_t pm_timer_total_ticks(uint64_t ns)
{
	/* ns * 3579545 overflows 64 bits after ~5153 s of guest time. */
	return (uint64_t)((unsigned __int128)ns * PVSMM_PM_TIMER_HZ /
			  PVSMM_NSEC_PER_SEC);
}

uint32_t pm_timer_ticks_from_ns(uint64_t ns)
{
	return (uint32_t)pm_timer_total_ticks(ns) & PVSMM_PM_TIMER_MASK;
}

uint64_t pm_timer_ns_at_ticks(uint64_t ticks)
{
	/* total(ns) >= ticks  <=>  ns >= ticks * 10^9 / HZ: round up. */
	unsigned __int128 p = (unsigned __int128)ticks * PVSMM_NSEC_PER_SEC;

	return (uint64_t)((p + PVSMM_PM_TIMER_HZ - 1) / PVSMM_PM_TIMER_HZ);
}
