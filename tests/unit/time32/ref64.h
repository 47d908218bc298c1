/* SPDX-License-Identifier: MIT */
/*
 * The PM timer's time math in plain 64-bit C arithmetic, for the 32-bit
 * unit test (gcc -m32 has no __int128).  ref-check.c checks these two
 * functions against the 128-bit reference (../ref128.h) on every vector
 * of ../time_vectors.h, time32.c checks the firmware's 32-bit
 * instructions against them: together, the 32-bit handler math against
 * the 128-bit definition.
 */
#ifndef PVSMM_REF64_H
#define PVSMM_REF64_H

#include <stdint.h>
#include "pvsmm/abi.h"

/* Linux's pvclock_scale_delta: bits 95:32 of (shifted delta) * mul. */
static inline uint64_t ref64_pvclock_ns(const struct pvsmm_pvclock *pv,
					uint64_t tsc)
{
	uint64_t delta = tsc - pv->tsc_timestamp;

	if (pv->tsc_shift < 0)
		delta >>= -pv->tsc_shift;
	else
		delta <<= pv->tsc_shift;
	return pv->system_time + (delta >> 32) * pv->tsc_to_system_mul +
	       (((delta & 0xffffffffu) * pv->tsc_to_system_mul) >> 32);
}

/*
 * floor(ns * HZ / 10^9) without a wide product: ns = q * 10^9 + r, so the
 * quotient is q * HZ + floor(r * HZ / 10^9) exactly (q * HZ < 2^64 and
 * r * HZ < 2^52).
 */
static inline uint32_t ref64_ticks_from_ns(uint64_t ns)
{
	uint64_t q = ns / PVSMM_NSEC_PER_SEC, r = ns % PVSMM_NSEC_PER_SEC;

	return (uint32_t)(q * PVSMM_PM_TIMER_HZ +
			  r * PVSMM_PM_TIMER_HZ / PVSMM_NSEC_PER_SEC) &
	       PVSMM_PM_TIMER_MASK;
}

#endif
