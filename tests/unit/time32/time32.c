// SPDX-License-Identifier: MIT
/*
 * The handler's 32-bit time math (build/firmware/pm_math32.o, assembled
 * from the macros of firmware/pm_math.asm that the PAE/2-level entry and
 * the self-test's 32-bit modes expand) against ref64.h, which ref-check.c
 * holds to the 128-bit definition.  Built with -m32.
 */
#include <stdio.h>

#include "ref64.h"
#include "../test.h"
#include "../time_vectors.h"

unsigned long test_passed, test_failed;

uint32_t pvsmm_pm_ticks32(const struct pvsmm_pvclock *pv, uint64_t tsc);
uint64_t pvsmm_pvclock_ns32(const struct pvsmm_pvclock *pv, uint64_t tsc);
uint32_t pvsmm_pm_ticks_from_ns32(uint64_t ns);

static void check_ns(uint64_t ns)
{
	uint32_t got = pvsmm_pm_ticks_from_ns32(ns), want = ref64_ticks_from_ns(ns);

	CHECK(got == want, "32-bit ticks(%llu) = %#x, want %#x",
	      (unsigned long long)ns, got, want);
}

static void check_pvclock(const struct pvsmm_pvclock *pv, uint64_t tsc)
{
	uint64_t want = ref64_pvclock_ns(pv, tsc);
	uint64_t got = pvsmm_pvclock_ns32(pv, tsc);

	CHECK(got == want, "32-bit pvclock_ns(shift %d mul %#x delta %llu) = %llu, want %llu",
	      pv->tsc_shift, pv->tsc_to_system_mul,
	      (unsigned long long)(tsc - pv->tsc_timestamp),
	      (unsigned long long)got, (unsigned long long)want);
	CHECK(pvsmm_pm_ticks32(pv, tsc) == ref64_ticks_from_ns(want),
	      "32-bit pm_ticks, shift %d", pv->tsc_shift);
	check_ns(want);
}

int main(void)
{
	_Static_assert(sizeof(void *) == 4, "build time32.c with -m32");
	run_vectors();
	printf("time32: %lu passed, %lu failed\n", test_passed,
	       test_failed);
	return test_failed ? 1 : 0;
}
