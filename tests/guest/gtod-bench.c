// SPDX-License-Identifier: MIT
/*
 * gtod-bench: the in-guest half of the real-Linux comparison (the 2010
 * RFC's benchmark, a gettimeofday() loop, on a guest whose clocksource is
 * the ACPI PM timer), plus the checks that such a guest is healthy:
 *
 *  1. which clocksource the kernel uses and offers (sysfs);
 *  2. N gettimeofday() calls on CPU 0, timed with CLOCK_MONOTONIC (which
 *     is acpi_pm itself here) and with rdtsc;
 *  3. cross-vCPU monotonicity of CLOCK_MONOTONIC (mono.c);
 *  4. the kernel log's verdict on acpi_pm, and the clocksource again.
 *
 * Output for the host side, one line each on the console:
 *	GUEST-MARK idle | begin | end
 *	GUEST-RESULT {json}
 * After each GUEST-MARK the program sleeps --settle-ms: in the lab, L1
 * reads KVM's VM-wide exit counters when it sees the line, and the sleep
 * gives it time to do so before the program goes on (l1-runs.sh).  So
 * begin..end holds one sleep, the loop and the "end" line, and idle..begin
 * the same without the loop: the difference is the loop's own count.
 * With --marker-port the loop is also bracketed by pvsmm-vmm's bench
 * marker OUTs (exact, per vCPU, taken synchronously by the VMM).
 *
 * Static, C11, built for x86_64 and (with -m32) for i386.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "klog.h"
#include "mono.h"

#define CS_DIR "/sys/devices/system/clocksource/clocksource0/"
/* Mirrors include/pvsmm/layout.h: OUT (PVSMM_MARK_* << 16 | vCPU). */
#define MARK_BENCH_BEGIN 1
#define MARK_BENCH_END 2

struct options {
	uint64_t calls;
	uint64_t mono_iters;
	unsigned int marker_port;	/* 0: none */
	unsigned int settle_ms;
	uint64_t inject_back_ns;	/* tests the detector (mono.h) */
	const char *expect;		/* the clocksource we asked for */
};

static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	/* available_clocksource ends with a blank before the newline. */
	size_t n = strlen(buf);
	while (n && buf[n - 1] == ' ')
		buf[--n] = '\0';
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void settle(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/*
 * Every mark line has the same length: the lab subtracts the idle..begin
 * window (which holds the "begin" line) from the begin..end window (which
 * holds the "end" line), so their console exits must cancel.
 */
static void mark(const char *what, const struct options *o)
{
	printf("GUEST-MARK %-5s\n", what);
	fflush(stdout);
	settle(o->settle_ms);
}

static void marker_out(const struct options *o, unsigned int kind, int cpu)
{
	uint32_t value = (uint32_t)kind << 16 | (uint32_t)(cpu & 0xffff);

	if (!o->marker_port)
		return;
	__asm__ volatile("outl %0, %w1" : : "a"(value), "Nd"((uint16_t)o->marker_port));
}

/* Pins to CPU 0; *saved gets the CPUs we could run on before. */
static bool pin_to_cpu0(cpu_set_t *saved)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(*saved), saved) != 0)
		return false;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gtod-bench [--calls N] [--mono-iters N] [--marker-port PORT]\n"
		"                  [--settle-ms MS] [--expect CLOCKSOURCE]\n"
		"                  [--inject-back-ns NS]\n");
	exit(2);
}

static uint64_t number(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *s == '\0' || *end != '\0')
		usage();
	return v;
}

static void parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .calls = 20000, .mono_iters = 2000,
			       .settle_ms = 500, .expect = "acpi_pm" };
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--calls"))
			o->calls = number(argv[++i]);
		else if (!strcmp(argv[i], "--mono-iters"))
			o->mono_iters = number(argv[++i]);
		else if (!strcmp(argv[i], "--marker-port"))
			o->marker_port = (unsigned int)number(argv[++i]) & 0xffff;
		else if (!strcmp(argv[i], "--settle-ms"))
			o->settle_ms = (unsigned int)number(argv[++i]);
		else if (!strcmp(argv[i], "--inject-back-ns"))
			o->inject_back_ns = number(argv[++i]);
		else if (!strcmp(argv[i], "--expect"))
			o->expect = argv[++i];
		else
			usage();
	}
	if (!o->calls)
		usage();
}

int main(int argc, char **argv)
{
	struct options o;
	char cs[64], cs_end[64], avail[256];
	struct utsname un;
	struct timeval tv;
	struct mono_result mono;
	struct klog_result klog;

	parse(argc, argv, &o);
	uname(&un);
	read_line(CS_DIR "current_clocksource", cs, sizeof(cs));
	read_line(CS_DIR "available_clocksource", avail, sizeof(avail));

	/* CPU 0 is the boot vCPU, vCPU 0 for the VMM's bench marker too. */
	cpu_set_t all_cpus;
	bool pinned = pin_to_cpu0(&all_cpus);
	int cpu = sched_getcpu();
	if (o.marker_port && ioperm(o.marker_port, 4, 1) != 0) {
		fprintf(stderr, "gtod-bench: ioperm(0x%x): %s\n", o.marker_port,
			strerror(errno));
		o.marker_port = 0;
	}

	mark("idle", &o);
	mark("begin", &o);
	marker_out(&o, MARK_BENCH_BEGIN, cpu);
	uint64_t t0 = mono_ns();
	uint64_t c0 = __rdtsc();
	for (uint64_t i = 0; i < o.calls; i++)
		gettimeofday(&tv, NULL);
	uint64_t c1 = __rdtsc();
	uint64_t t1 = mono_ns();
	marker_out(&o, MARK_BENCH_END, cpu);
	mark("end", &o);

	/* The threads below pin themselves, one to each of these CPUs. */
	if (pinned)
		sched_setaffinity(0, sizeof(all_cpus), &all_cpus);

	if (mono_run(o.mono_iters, o.inject_back_ns, &mono) != 0)
		fprintf(stderr, "gtod-bench: the monotonicity threads did not run\n");
	klog_scan(o.expect, &klog);
	read_line(CS_DIR "current_clocksource", cs_end, sizeof(cs_end));

	/* Stable: asked for it, got it, kept it, and the kernel never
	 * complained about it nor switched to anything else. */
	bool stable = !strcmp(cs, o.expect) && !strcmp(cs_end, o.expect) &&
		      klog.read_ok && !klog.marked_unstable &&
		      !klog.override_refused &&
		      !strcmp(klog.last_switch, o.expect);
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	printf("GUEST-RESULT {\"arch\":\"%s\",\"kernel\":\"%s\","
	       "\"clocksource\":\"%s\",\"clocksource_end\":\"%s\","
	       "\"available_clocksource\":\"%s\",\"clocksource_stable\":%s,"
	       "\"klog_read\":%s,\"marked_unstable\":%s,"
	       "\"override_refused\":%s,\"last_switch\":\"%s\","
	       "\"pm_timer_note\":\"%s\","
	       "\"calls\":%" PRIu64 ",\"ns_total\":%" PRIu64 ","
	       "\"ns_per_gettimeofday\":%.1f,\"cycles_per_call\":%.1f,"
	       "\"bench_cpu\":%d,\"bench_pinned\":%s,\"marker_port\":%u,"
	       "\"cpus\":%ld,\"mono_threads\":%d,\"mono_pinned\":%d,"
	       "\"mono_reads\":%" PRIu64 ",\"backwards_steps\":%" PRIu64 ","
	       "\"max_step_back_ns\":%" PRIu64 "}\n",
	       un.machine, un.release, cs, cs_end, avail,
	       stable ? "true" : "false", klog.read_ok ? "true" : "false",
	       klog.marked_unstable ? "true" : "false",
	       klog.override_refused ? "true" : "false", klog.last_switch,
	       klog.pm_note,
	       o.calls, t1 - t0, (double)(t1 - t0) / (double)o.calls,
	       (double)(c1 - c0) / (double)o.calls, cpu,
	       pinned ? "true" : "false", o.marker_port, online, mono.cpus,
	       mono.pinned, mono.reads, mono.backwards, mono.max_step_back_ns);
	fflush(stdout);
	return 0;
}
