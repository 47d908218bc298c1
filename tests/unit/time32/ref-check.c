// SPDX-License-Identifier: MIT
/*
 * ref64.h against the 128-bit definition, on every vector the 32-bit test
 * uses (vectors.h): the first link of the chain 32-bit instructions ->
 * ref64.h -> 128-bit arithmetic.  Built for the host (x86-64).
 */
#include <stdio.h>

#include "ref64.h"
#include "vectors.h"
#include "../test.h"

unsigned long test_passed, test_failed;

static uint64_t ref128_pvclock_ns(const struct pvsmm_pvclock *pv, uint64_t tsc)
{
	uint64_t delta = tsc - pv->tsc_timestamp;

	if (pv->tsc_shift < 0)
		delta >>= -pv->tsc_shift;
	else
		delta <<= pv->tsc_shift;
	return pv->system_time +
	       (uint64_t)(((unsigned __int128)delta * pv->tsc_to_system_mul) >> 32);
}

static uint32_t ref128_ticks_from_ns(uint64_t ns)
{
	unsigned __int128 product = (unsigned __int128)ns * PVSMM_PM_TIMER_HZ;

	return (uint32_t)(product / PVSMM_NSEC_PER_SEC) & PVSMM_PM_TIMER_MASK;
}

static void check_ns(uint64_t ns)
{
	CHECK(ref64_ticks_from_ns(ns) == ref128_ticks_from_ns(ns),
	      "ref64 ticks(%llu)", (unsigned long long)ns);
}

static void check_pvclock(const struct pvsmm_pvclock *pv, uint64_t tsc)
{
	uint64_t ns = ref128_pvclock_ns(pv, tsc);

	CHECK(ref64_pvclock_ns(pv, tsc) == ns, "ref64 pvclock_ns shift %d",
	      pv->tsc_shift);
	check_ns(ns);
}

int main(void)
{
	run_vectors();
	printf("time32-ref: %lu passed, %lu failed\n", test_passed,
	       test_failed);
	return test_failed ? 1 : 0;
}
