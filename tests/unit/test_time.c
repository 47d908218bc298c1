// SPDX-License-Identifier: MIT
/*
 * The PM timer's one definition of time, checked three ways against a
 * plain 128-bit C reference: the firmware handler's own instructions
 * (build/firmware/pm_math.o, assembled from the macros handler.asm uses),
 * the VMM's userspace device (host/vmm/pm_ticks.c), and the two steps apart
 * (pvclock scaling, ns -> ticks).  Edge cases: the 2^24 wrap, negative and
 * large positive tsc_shift, 32-bit multipliers, ns past 2^64/3579545 where
 * a 64-bit product would overflow, and the last representable ns.
 */
#include <stdint.h>
#include <string.h>

#include "pvsmm/abi.h"
#include "test.h"
#include "pm_ticks.h"
#include "suites.h"

uint32_t pvsmm_pm_ticks(const struct pvsmm_pvclock *pv, uint64_t tsc);
uint64_t pvsmm_pvclock_ns(const struct pvsmm_pvclock *pv, uint64_t tsc);
uint32_t pvsmm_pm_ticks_from_ns(uint64_t ns);

static uint64_t ref_pvclock_ns(const struct pvsmm_pvclock *pv, uint64_t tsc)
{
	uint64_t delta = tsc - pv->tsc_timestamp;

	if (pv->tsc_shift < 0)
		delta >>= -pv->tsc_shift;
	else
		delta <<= pv->tsc_shift;
	return pv->system_time +
	       (uint64_t)(((unsigned __int128)delta * pv->tsc_to_system_mul) >> 32);
}

static uint32_t ref_ticks_from_ns(uint64_t ns)
{
	unsigned __int128 product = (unsigned __int128)ns * PVSMM_PM_TIMER_HZ;

	return (uint32_t)(product / PVSMM_NSEC_PER_SEC) & PVSMM_PM_TIMER_MASK;
}

/* Deterministic pseudo-random numbers (xorshift64*). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void check_ns(uint64_t ns)
{
	uint32_t want = ref_ticks_from_ns(ns);
	uint32_t fw = pvsmm_pm_ticks_from_ns(ns);
	uint32_t vmm = pm_timer_ticks_from_ns(ns);

	CHECK(fw == want, "firmware ticks(%llu) = %#x, want %#x",
	      (unsigned long long)ns, fw, want);
	CHECK(vmm == want, "VMM ticks(%llu) = %#x, want %#x",
	      (unsigned long long)ns, vmm, want);
}

static void check_pvclock(const struct pvsmm_pvclock *pv, uint64_t tsc)
{
	uint64_t want_ns = ref_pvclock_ns(pv, tsc);
	uint64_t ns = pvsmm_pvclock_ns(pv, tsc);
	uint32_t ticks = pvsmm_pm_ticks(pv, tsc);

	CHECK(ns == want_ns, "pvclock_ns(shift %d mul %#x delta %llu) = %llu, want %llu",
	      pv->tsc_shift, pv->tsc_to_system_mul,
	      (unsigned long long)(tsc - pv->tsc_timestamp),
	      (unsigned long long)ns, (unsigned long long)want_ns);
	CHECK(ticks == ref_ticks_from_ns(want_ns), "pm_ticks = %#x, want %#x",
	      ticks, ref_ticks_from_ns(want_ns));
}

/* The exact ns at which the counter reaches `tick` (mod 2^24) first. */
static uint64_t first_ns_of_tick(uint64_t tick)
{
	unsigned __int128 num = (unsigned __int128)tick * PVSMM_NSEC_PER_SEC;

	return (uint64_t)((num + PVSMM_PM_TIMER_HZ - 1) / PVSMM_PM_TIMER_HZ);
}

static void test_ns_to_ticks(void)
{
	static const uint64_t fixed[] = {
		0, 1, 279, 280, 999999999, 1000000000, 1000000001,
		5153960755ull,		/* ns * HZ just below 2^64 ... */
		5153960756ull,		/* ... and just above it */
		UINT64_MAX / PVSMM_PM_TIMER_HZ,
		UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX,
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		check_ns(fixed[i]);

	/* Both sides of every wrap of the 24-bit counter, for many wraps. */
	for (uint64_t wrap = 1; wrap < 1000000; wrap = wrap * 3 + 1) {
		uint64_t ns = first_ns_of_tick(wrap << 24);

		check_ns(ns - 1);
		check_ns(ns);
		CHECK(ref_ticks_from_ns(ns) == 0 &&
		      ref_ticks_from_ns(ns - 1) == PVSMM_PM_TIMER_MASK,
		      "reference wrap at %llu", (unsigned long long)ns);
	}
	for (int i = 0; i < 200000; i++)
		check_ns(rng() >> (rng() & 63));
}

static void test_pvclock_scaling(void)
{
	struct pvsmm_pvclock pv;

	memset(&pv, 0, sizeof(pv));
	for (int shift = -32; shift <= 32; shift++) {
		pv.tsc_shift = (int8_t)shift;
		pv.tsc_to_system_mul = 0xffffffffu;
		pv.tsc_timestamp = 123456789;
		pv.system_time = 1000;
		check_pvclock(&pv, pv.tsc_timestamp);
		check_pvclock(&pv, pv.tsc_timestamp + 1);
		check_pvclock(&pv, pv.tsc_timestamp + 0xffffffffull);
		check_pvclock(&pv, pv.tsc_timestamp + (1ull << 40));
		check_pvclock(&pv, pv.tsc_timestamp - 1);	/* huge delta */
	}
	/* What KVM computes for a 2.5 GHz TSC: shift -1, mul ~0xcccccccc. */
	pv.tsc_shift = -1;
	pv.tsc_to_system_mul = 0xcccccccc;
	pv.system_time = 3600ull * PVSMM_NSEC_PER_SEC;
	pv.tsc_timestamp = 9000000000000ull;
	for (uint64_t d = 0; d < 100000000000ull; d = d * 2 + 7)
		check_pvclock(&pv, pv.tsc_timestamp + d);
	for (int i = 0; i < 200000; i++) {
		pv.tsc_shift = (int8_t)((int)(rng() % 65) - 32);
		pv.tsc_to_system_mul = (uint32_t)rng();
		pv.tsc_timestamp = rng();
		pv.system_time = rng() >> (rng() & 63);
		check_pvclock(&pv, pv.tsc_timestamp + (rng() >> (rng() & 63)));
	}
}

void test_time(void)
{
	test_ns_to_ticks();
	test_pvclock_scaling();
}
