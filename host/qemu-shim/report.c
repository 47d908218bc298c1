// SPDX-License-Identifier: MIT
/*
 * What the shim can tell from the exits it sees: reads of reflected ports
 * that still reached QEMU (before the guest registered, or fallbacks), and,
 * on an OUT to PVSMM_MARKER_PORT, one line with those and KVM's own
 * counters summed over the VM's vCPUs (KVM_GET_STATS_FD: exits, io_exits,
 * pvsmm_*):
 *
 *   pvsmm-preload: MARK <value> pm_user_exits=N exits=N io_exits=N pvsmm_reflections=N ...
 *
 * A guest brackets a measurement with two marks (tests/qemu/).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../vmm/kvm_stats.h"
#include "shim.h"

static atomic_ulong pm_user_exits;

bool port_is_reflected(uint16_t port)
{
	return (uint16_t)(port - shim_cfg.first_port) < shim_cfg.nr_ports;
}

struct sums {
	unsigned int count;
	char names[KVM_STATS_MAX][KVM_STATS_NAME_MAX];
	uint64_t values[KVM_STATS_MAX];
};

static void add_vcpu(struct shim_vcpu *v, void *opaque)
{
	struct sums *s = opaque;
	struct kvm_stats_reader r;
	uint64_t values[KVM_STATS_MAX];

	if (!kvm_stats_open(&r, v->fd))
		return;
	if (kvm_stats_read(&r, values)) {
		for (unsigned int i = 0; i < r.count; i++) {
			unsigned int j;

			for (j = 0; j < s->count; j++)
				if (!strcmp(s->names[j], r.names[i]))
					break;
			if (j == s->count) {
				if (s->count == KVM_STATS_MAX)
					continue;
				memcpy(s->names[j], r.names[i], KVM_STATS_NAME_MAX);
				s->values[j] = 0;
				s->count++;
			}
			s->values[j] += values[i];
		}
	}
	kvm_stats_close(&r);
}

static void mark(struct shim_vcpu *v, uint32_t value)
{
	struct sums s;
	char line[1024];
	int n;

	memset(&s, 0, sizeof(s));
	shim_for_each_vcpu(v->vm, add_vcpu, &s);
	n = snprintf(line, sizeof(line), "MARK %u pm_user_exits=%lu", value,
		     atomic_load(&pm_user_exits));
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
		shim_log("exit: %lu reads of reflected ports reached QEMU",
			 atomic_load(&pm_user_exits));
}
