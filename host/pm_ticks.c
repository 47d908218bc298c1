// SPDX-License-Identifier: MIT
/* Kept free of KVM dependencies so the unit tests can link it alone. */
#include "pm_ticks.h"
#include "pvsmm/abi.h"

uint32_t pm_timer_ticks_from_ns(uint64_t ns)
{
	/* ns * 3579545 overflows 64 bits after ~5153 s of guest time. */
	unsigned __int128 ticks = (unsigned __int128)ns * PVSMM_PM_TIMER_HZ /
				  PVSMM_NSEC_PER_SEC;

	return (uint32_t)ticks & PVSMM_PM_TIMER_MASK;
}
