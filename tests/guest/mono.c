// SPDX-License-Identifier: MIT
/*
 * Cross-vCPU monotonicity.  Every thread repeats:
 *
 *	seen = load(shared)         (acquire)
 *	now  = clock_gettime(CLOCK_MONOTONIC)
 *	now < seen  ->  a backwards step
 *	shared = max(shared, now)   (CAS loop, release)
 *
 * The shared value is loaded *before* the clock is read, so a value that
 * another CPU published is known to come from a read that finished before
 * ours started: time that never goes back must give now >= seen.  (Reading
 * the clock first and the shared value second would flag correct clocks
 * whenever another CPU published in between.)
 *
 * With acpi_pm as the clocksource every read here is a PM timer read on
 * whatever vCPU the thread runs on: the VMM's device, KVM's in-kernel
 * device or the reflected handler, on every vCPU, must agree on one time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mono.h"

#define MAX_THREADS 64

static _Atomic uint64_t shared_max;
static atomic_int ready;
static atomic_bool go;

struct worker {
	pthread_t thread;
	int cpu;
	uint64_t iters;
	uint64_t inject;
	int pinned;
	uint64_t backwards;
	uint64_t max_back;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	/* pid 0: the calling thread, not the whole process. */
	w->pinned = sched_setaffinity(0, sizeof(set), &set) == 0;

	/* Start together, so that the threads' reads overlap in time. */
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&go))
		sched_yield();

	for (uint64_t i = 0; i < w->iters; i++) {
		uint64_t seen = atomic_load_explicit(&shared_max,
						     memory_order_acquire);
		uint64_t now = now_ns();

		if (w->inject && i % 100 == 99)
			now -= w->inject;

		if (now < seen) {
			w->backwards++;
			if (seen - now > w->max_back)
				w->max_back = seen - now;
			continue;
		}
		while (now > seen &&
		       !atomic_compare_exchange_weak_explicit(
			       &shared_max, &seen, now, memory_order_release,
			       memory_order_acquire))
			;
	}
	return NULL;
}

int mono_run(uint64_t iters, uint64_t inject_back_ns, struct mono_result *out)
{
	static struct worker workers[MAX_THREADS];
	cpu_set_t online;
	int n = 0;

	memset(out, 0, sizeof(*out));
	/* The CPUs we may run on: every online CPU in this initramfs. */
	if (sched_getaffinity(0, sizeof(online), &online) != 0)
		return -1;
	atomic_store(&shared_max, 0);
	atomic_store(&ready, 0);
	atomic_store(&go, false);
	for (int cpu = 0; cpu < CPU_SETSIZE && n < MAX_THREADS; cpu++) {
		if (!CPU_ISSET(cpu, &online))
			continue;
		struct worker *w = &workers[n];

		memset(w, 0, sizeof(*w));
		w->cpu = cpu;
		w->iters = iters;
		w->inject = inject_back_ns;
		int err = pthread_create(&w->thread, NULL, worker_main, w);
		if (err) {
			fprintf(stderr, "gtod-bench: pthread_create: %s\n",
				strerror(err));
			break;
		}
		n++;
	}
	while (atomic_load(&ready) < n)
		sched_yield();
	atomic_store(&go, true);
	for (int i = 0; i < n; i++) {
		pthread_join(workers[i].thread, NULL);
		out->pinned += workers[i].pinned;
		out->backwards += workers[i].backwards;
		if (workers[i].max_back > out->max_step_back_ns)
			out->max_step_back_ns = workers[i].max_back;
		out->reads += workers[i].iters;
	}
	out->cpus = n;
	return n > 0 ? 0 : -1;
}
