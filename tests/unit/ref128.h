/* SPDX-License-Identifier: MIT */
/*
 * The PM timer's definition of time in 128-bit C (abi.h): the reference
 * every implementation is held to (test_time.c: the firmware's 64-bit
 * instructions and the VMM's device; time32/ref-check.c: the 64-bit-only
 * reference behind the firmware's 32-bit instructions).
 */
#ifndef PVSMM_REF128_H
#define PVSMM_REF128_H

#include <stdint.h>
#include "pvsmm/abi.h"

/* Linux's pvclock_scale_delta, with a 128-bit product. */
static inline uint64_t ref_pvclock_ns(const struct pvsmm_pvclock *pv,
				      uint64_t tsc)
{
	uint64_t delta = tsc - pv->tsc_timestamp;

	if (pv->tsc_shift < 0)
		delta >>= -pv->tsc_shift;
	else
		delta <<= pv->tsc_shift;
	return pv->system_time +
	       (uint64_t)(((unsigned __int128)delta * pv->tsc_to_system_mul) >> 32);
}

/* floor(ns * 3579545 / 10^9) mod 2^24. */
static inline uint32_t ref_ticks_from_ns(uint64_t ns)
{
	unsigned __int128 product = (unsigned __int128)ns * PVSMM_PM_TIMER_HZ;

	return (uint32_t)(product / PVSMM_NSEC_PER_SEC) & PVSMM_PM_TIMER_MASK;
}

/* The exact ns at which the counter reaches `tick` (mod 2^24) first. */
static inline uint64_t ref_first_ns_of_tick(uint64_t tick)
{
	unsigned __int128 num = (unsigned __int128)tick * PVSMM_NSEC_PER_SEC;

	return (uint64_t)((num + PVSMM_PM_TIMER_HZ - 1) / PVSMM_PM_TIMER_HZ);
}

#endif
