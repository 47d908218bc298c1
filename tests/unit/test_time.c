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
#include "ref128.h"
#include "suites.h"
#include "time_vectors.h"

uint32_t pvsmm_pm_ticks(const struct pvsmm_pvclock *pv, uint64_t tsc);
uint64_t pvsmm_pvclock_ns(const struct pvsmm_pvclock *pv, uint64_t tsc);
uint32_t pvsmm_pm_ticks_from_ns(uint64_t ns);

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

/* The reference itself: both sides of many wraps of the 24-bit counter. */
static void test_reference_wraps(void)
{
	for (uint64_t wrap = 1; wrap < 1000000; wrap = wrap * 3 + 1) {
		uint64_t ns = ref_first_ns_of_tick(wrap << 24);

		CHECK(ref_ticks_from_ns(ns) == 0 &&
		      ref_ticks_from_ns(ns - 1) == PVSMM_PM_TIMER_MASK,
		      "reference wrap at %llu", (unsigned long long)ns);
	}
}

void test_time(void)
{
	test_reference_wraps();
	run_vectors();		/* time_vectors.h: check_ns, check_pvclock */
}
