/* SPDX-License-Identifier: MIT */
#ifndef GTOD_MONO_H
#define GTOD_MONO_H

#include <stdint.h>

struct mono_result {
	int cpus;		/* threads run, one pinned to each online CPU */
	int pinned;		/* threads whose sched_setaffinity succeeded */
	uint64_t reads;		/* clock reads over all threads */
	uint64_t backwards;	/* reads below a value already published */
	uint64_t max_step_back_ns; /* the largest such step */
};

/*
 * Cross-vCPU monotonicity of CLOCK_MONOTONIC: one thread per online CPU,
 * each doing `iters` reads against one shared, published maximum.
 * inject_back_ns != 0 tests the detector itself: every 100th read of
 * each thread is made that much earlier than the clock said.
 * Returns 0, or -1 when threads could not be started.
 */
int mono_run(uint64_t iters, uint64_t inject_back_ns, struct mono_result *out);

#endif
