// SPDX-License-Identifier: MIT
/*
 * clockstep: does the guest's time step while it is migrated?
 *
 * The L2 guest of tests/qemu/ runs on acpi_pm, so CLOCK_MONOTONIC is the
 * PM timer.  This program calibrates the TSC against it for --calibrate
 * seconds, prints the line the migration source waits for, then samples
 * both clocks back to back for --seconds seconds of guest time.  A
 * migration stops every guest clock together (QEMU carries the TSC,
 * kvmclock and QEMU_CLOCK_VIRTUAL), so between two samples the clocks
 * advance alike; if the destination's PM timer counts another clock than
 * the source's, CLOCK_MONOTONIC steps by the distance between them (and a
 * step back reads, modulo the 24-bit counter, as one of seconds forward).
 *
 * The TSC is read between two CLOCK_MONOTONIC reads, and a sample whose two
 * reads lie further apart than three times the narrowest of 1,000 (the
 * guest was interrupted or preempted in between; a read of the PM timer
 * that exits costs tens of microseconds in the lab) is skipped: what
 * remains is the offset of CLOCK_MONOTONIC from the TSC since the window
 * began, which a step moves for good.
 *
 * Prints:  L2-MIGRATE-WINDOW
 *          CLOCKSTEP {"samples":N,"skipped":N,"bracket_ns":N,
 *                     "max_offset_ns":N,"backward":N}
 * max_offset_ns: the largest |CLOCK_MONOTONIC - TSC in ns| since the first
 * sample, less its value there; backward: CLOCK_MONOTONIC going back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double opt(int argc, char **argv, const char *name, double dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtod(argv[i + 1], NULL);
	return dflt;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct sample {
	int64_t ns;	/* CLOCK_MONOTONIC, the middle of the bracket */
	uint64_t tsc;
	int64_t first;	/* the bracket's first read */
};

static int64_t bracket_ns = INT64_MAX;

/* One bracketed sample; false if the bracket was too wide to use. */
static int take(struct sample *s)
{
	int64_t t1 = mono_ns();
	uint64_t c = rdtsc();
	int64_t t2 = mono_ns();

	s->ns = t1 + (t2 - t1) / 2;
	s->tsc = c;
	s->first = t1;
	return t2 >= t1 && t2 - t1 <= bracket_ns;
}

int main(int argc, char **argv)
{
	int64_t calibrate = (int64_t)(opt(argc, argv, "--calibrate", 2) * 1e9);
	int64_t seconds = (int64_t)(opt(argc, argv, "--seconds", 10) * 1e9);
	unsigned long samples = 0, skipped = 0, backward = 0;
	struct sample a, b, base;
	int64_t last, end, max_offset = 0;
	int64_t narrowest = INT64_MAX;
	double ns_per_cycle;

	for (int i = 0; i < 1000; i++) {
		take(&a);
		if (2 * (a.ns - a.first) < narrowest)
			narrowest = 2 * (a.ns - a.first);
	}
	bracket_ns = 3 * narrowest + 1000;
	while (!take(&a))
		;
	do {
		while (!take(&b))
			;
	} while (b.ns - a.ns < calibrate);
	ns_per_cycle = (double)(b.ns - a.ns) / (double)(b.tsc - a.tsc);

	printf("L2-MIGRATE-WINDOW\n");
	fflush(stdout);

	while (!take(&base))
		;
	last = base.first;
	end = base.ns + seconds;
	for (;;) {
		int ok = take(&b);
		int64_t offset;

		if (b.first < last)
			backward++;
		last = b.first;
		if (!ok) {
			skipped++;
			continue;
		}
		samples++;
		offset = (b.ns - base.ns) -
			 (int64_t)((double)(b.tsc - base.tsc) * ns_per_cycle);
		if (llabs(offset) > max_offset)
			max_offset = llabs(offset);
		if (b.ns >= end)
			break;
	}

	printf("CLOCKSTEP {\"samples\":%lu,\"skipped\":%lu,\"bracket_ns\":%lld,"
	       "\"max_offset_ns\":%lld,\"backward\":%lu}\n", samples, skipped,
	       (long long)bracket_ns, (long long)max_offset, backward);
	return 0;
}
