// SPDX-License-Identifier: MIT
/*
 * ref64.h against the 128-bit definition (../ref128.h), on every vector
 * the 32-bit test uses (../time_vectors.h): the first link of the chain 32-bit instructions ->
 * ref64.h -> 128-bit arithmetic.  Built for the host (x86-64).
 */
#include <stdio.h>

#include "ref64.h"
#include "../ref128.h"
#include "../test.h"
#include "../time_vectors.h"

unsigned long test_passed, test_failed;

static void check_ns(uint64_t ns)
{
	CHECK(ref64_ticks_from_ns(ns) == ref_ticks_from_ns(ns),
	      "ref64 ticks(%llu)", (unsigned long long)ns);
}

static void check_pvclock(const struct pvsmm_pvclock *pv, uint64_t tsc)
{
	uint64_t ns = ref_pvclock_ns(pv, tsc);

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
