/* SPDX-License-Identifier: MIT */
/*
 * The time math's test vectors, for every test of it (test_time.c, and
 * time32/ for the 32-bit variant): the edge cases (both sides of 2^24
 * wraps, ns * HZ around 2^64, every shift from -32 to 32, huge deltas,
 * what KVM computes for a 2.5 GHz TSC) and deterministic random ones.
 * The including file provides the two checks.
 */
#ifndef PVSMM_TIME_VECTORS_H
#define PVSMM_TIME_VECTORS_H

#include <stdint.h>
#include <string.h>
#include "pvsmm/abi.h"

static void check_ns(uint64_t ns);
static void check_pvclock(const struct pvsmm_pvclock *pv, uint64_t tsc);

static uint64_t vec_rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t vec_rng(void)
{
	vec_rng_state ^= vec_rng_state >> 12;
	vec_rng_state ^= vec_rng_state << 25;
	vec_rng_state ^= vec_rng_state >> 27;
	return vec_rng_state * 0x2545f4914f6cdd1dull;
}

static void run_vectors(void)
{
	static const uint64_t fixed[] = {
		0, 1, 279, 280, 999999999, 1000000000, 1000000001,
		5153960755ull,		/* ns * HZ just below 2^64 ... */
		5153960756ull,		/* ... and just above it */
		UINT64_MAX / PVSMM_PM_TIMER_HZ,
		UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX,
		0xffffffffull, 0x100000000ull,
	};
	struct pvsmm_pvclock pv;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_ns(fixed[i]);
	/* Both sides of many wraps of the 24-bit counter (first ns of tick
	 * wrap << 24, rounded up, computed without a wide product). */
	for (uint64_t wrap = 1; wrap < 1000000; wrap = wrap * 3 + 1) {
		uint64_t tick = wrap << 24;
		uint64_t q = tick / PVSMM_PM_TIMER_HZ, r = tick % PVSMM_PM_TIMER_HZ;
		uint64_t ns = q * PVSMM_NSEC_PER_SEC +
			      (r * PVSMM_NSEC_PER_SEC + PVSMM_PM_TIMER_HZ - 1) /
			      PVSMM_PM_TIMER_HZ;

		check_ns(ns - 1);
		check_ns(ns);
	}
	for (int i = 0; i < 200000; i++)
		check_ns(vec_rng() >> (vec_rng() & 63));

	memset(&pv, 0, sizeof(pv));
	for (int shift = -32; shift <= 32; shift++) {
		pv.tsc_shift = (int8_t)shift;
		pv.tsc_to_system_mul = 0xffffffffu;
		pv.tsc_timestamp = 123456789;
		pv.system_time = 1000;
		check_pvclock(&pv, pv.tsc_timestamp);
		check_pvclock(&pv, pv.tsc_timestamp + 1);
		check_pvclock(&pv, pv.tsc_timestamp + 0xffffffffull);
		check_pvclock(&pv, pv.tsc_timestamp + 0x100000000ull);
		check_pvclock(&pv, pv.tsc_timestamp + (1ull << 40));
		check_pvclock(&pv, pv.tsc_timestamp - 1);	/* huge delta */
	}
	pv.tsc_shift = -1;		/* a 2.5 GHz TSC, as KVM scales it */
	pv.tsc_to_system_mul = 0xcccccccc;
	pv.system_time = 3600ull * PVSMM_NSEC_PER_SEC;
	pv.tsc_timestamp = 9000000000000ull;
	for (uint64_t d = 0; d < 100000000000ull; d = d * 2 + 7)
		check_pvclock(&pv, pv.tsc_timestamp + d);
	for (int i = 0; i < 200000; i++) {
		pv.tsc_shift = (int8_t)((int)(vec_rng() % 65) - 32);
		pv.tsc_to_system_mul = (uint32_t)vec_rng();
		pv.tsc_timestamp = vec_rng();
		pv.system_time = vec_rng() >> (vec_rng() & 63);
		check_pvclock(&pv, pv.tsc_timestamp +
				   (vec_rng() >> (vec_rng() & 63)));
	}
}

#endif
