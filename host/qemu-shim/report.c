// SPDX-License-Identifier: MIT
/*
 * What the shim can tell from the exits it sees: reads of reflected ports
 * that still exited to userspace (before the guest registered, or
 * fallbacks; pm_user_exits), how many of those the shim served itself
 * from kvmclock (pm_shim_reads, pm_serve.h) -- the rest reached QEMU --
 * and, on an OUT to PVSMM_MARKER_PORT, one line with those and KVM's own
 * counters summed over the VM's vCPUs (KVM_GET_STATS_FD: exits, io_exits,
 * pvsmm_*):
 *
 *   pvsmm-preload: MARK <value> pm_user_exits=N pm_shim_reads=N exits=N io_exits=N pvsmm_reflections=N ...
 *
 * A guest brackets a measurement with two marks (tests/qemu/).  The
 * guest decides how often it writes the port, so the lines are
 * rate-limited (MARK_BURST a second); a line after a gap says how many
 * marks it left out.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "kvm_stats.h"
#include "log.h"
#include "rate_limit.h"
#include "real_libc.h"
#include "report.h"

#define MARK_BURST	10
#define NSEC_PER_SEC	1000000000ull

static atomic_ulong pm_user_exits;
static atomic_ulong pm_shim_reads;
static pthread_mutex_t mark_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rate_limit mark_limit = RATE_LIMIT_INIT(NSEC_PER_SEC, MARK_BURST);

void report_pm_served(uint32_t count)
{
	atomic_fetch_add(&pm_shim_reads, count);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	shim_real_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static bool mark_allowed(uint64_t *missed)
{
	bool ok;

	pthread_mutex_lock(&mark_lock);
	ok = rate_limit_allow(&mark_limit, monotonic_ns(), missed);
	pthread_mutex_unlock(&mark_lock);
	return ok;
}

struct sums {
	unsigned int count;
	char names[KVM_STATS_MAX][KVM_STATS_NAME_MAX];
	uint64_t values[KVM_STATS_MAX];
};

/* Reads the stats fd opened at vCPU creation: never KVM_GET_STATS_FD
 * here, which would wait for a sleeping vCPU (registry.h). */
static void add_vcpu(struct shim_vcpu *v, void *opaque)
{
	struct sums *s = opaque;
	const struct kvm_stats_reader *r = &v->stats;
	uint64_t values[KVM_STATS_MAX];

	if (r->fd < 0 || !kvm_stats_read(r, values))
		return;
	for (unsigned int i = 0; i < r->count; i++) {
		unsigned int j;

		for (j = 0; j < s->count; j++)
			if (!strcmp(s->names[j], r->names[i]))
				break;
		if (j == s->count) {
			if (s->count == KVM_STATS_MAX)
				continue;
			memcpy(s->names[j], r->names[i], KVM_STATS_NAME_MAX);
			s->values[j] = 0;
			s->count++;
		}
		s->values[j] += values[i];
	}
}

static void mark(struct shim_vcpu *v, uint32_t value)
{
	struct sums s;
	char line[1024];
	uint64_t missed;
	int n;

	if (!mark_allowed(&missed))
		return;
	if (missed)
		shim_log("%llu marks not shown (at most %d a second)",
			 (unsigned long long)missed, MARK_BURST);
	memset(&s, 0, sizeof(s));
	shim_for_each_vcpu(v->vm, add_vcpu, &s);
	n = snprintf(line, sizeof(line), "MARK %u pm_user_exits=%lu pm_shim_reads=%lu",
		     value, atomic_load(&pm_user_exits),
		     atomic_load(&pm_shim_reads));
	for (unsigned int i = 0; i < s.count && n > 0 && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %s=%llu", s.names[i],
			      (unsigned long long)s.values[i]);
	shim_log("%s", line);
}

void report_after_run(struct shim_vcpu *v)
{
	const struct kvm_run *run = v->run;
	uint32_t value = 0;

	if (run->exit_reason != KVM_EXIT_IO)
		return;
	if (run->io.direction == KVM_EXIT_IO_IN && port_is_reflected(run->io.port)) {
		atomic_fetch_add(&pm_user_exits, run->io.count);
	} else if (run->io.direction == KVM_EXIT_IO_OUT &&
		   (int)run->io.port == shim_cfg.marker_port) {
		memcpy(&value, (const char *)run + run->io.data_offset,
		       run->io.size < 4 ? run->io.size : 4);
		mark(v, value);
	}
}

__attribute__((destructor)) static void report_exit(void)
{
	if (shim_cfg.enabled)
		shim_log("exit: %lu reads of reflected ports reached userspace, "
			 "%lu of them served by the shim from kvmclock, the rest by QEMU",
			 atomic_load(&pm_user_exits), atomic_load(&pm_shim_reads));
}
