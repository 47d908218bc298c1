// SPDX-License-Identifier: MIT
/*
 * Exit counters and the report.  Each vCPU counts into its own struct
 * without locks; snapshots at the bench markers and at thread start/end
 * are subtracted and summed over vCPUs when the VM has stopped.
 */
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "json.h"
#include "fallback.h"
#include "serial.h"

#define MAX_AGG_PORTS	(MAX_TRACKED_PORTS * 2)

struct aggregate {
	unsigned int vcpus;		/* vCPUs that contributed */
	uint64_t ns;			/* sum of the vCPUs' spans */
	uint64_t ns_max;		/* longest single span */
	uint64_t reads;
	struct exit_counters c;		/* by_reason, scalars (ports below) */
	struct port_count ports[MAX_AGG_PORTS];
	unsigned int nr_ports;
	uint64_t other_ports;
	bool have_kvm_stats;
	uint64_t kvm_exits, kvm_io_exits;
	unsigned int nr_kstats;
	char kstat_names[KVM_STATS_MAX][KVM_STATS_NAME_MAX];
	uint64_t kstats[KVM_STATS_MAX];
};

static const char *const reason_names[EXIT_REASON_SLOTS] = {
	[KVM_EXIT_UNKNOWN] = "UNKNOWN",
	[KVM_EXIT_EXCEPTION] = "EXCEPTION",
	[KVM_EXIT_IO] = "IO",
	[KVM_EXIT_HYPERCALL] = "HYPERCALL",
	[KVM_EXIT_DEBUG] = "DEBUG",
	[KVM_EXIT_HLT] = "HLT",
	[KVM_EXIT_MMIO] = "MMIO",
	[KVM_EXIT_IRQ_WINDOW_OPEN] = "IRQ_WINDOW_OPEN",
	[KVM_EXIT_SHUTDOWN] = "SHUTDOWN",
	[KVM_EXIT_FAIL_ENTRY] = "FAIL_ENTRY",
	[KVM_EXIT_INTR] = "INTR",
	[KVM_EXIT_INTERNAL_ERROR] = "INTERNAL_ERROR",
	[KVM_EXIT_SYSTEM_EVENT] = "SYSTEM_EVENT",
	[KVM_EXIT_X86_RDMSR] = "X86_RDMSR",
	[KVM_EXIT_X86_WRMSR] = "X86_WRMSR",
};

static struct port_count *port_slot(struct port_count *ports,
				    unsigned int *nr, unsigned int max,
				    uint16_t port)
{
	for (unsigned int i = 0; i < *nr; i++)
		if (ports[i].port == port)
			return &ports[i];
	if (*nr == max)
		return NULL;
	ports[*nr].port = port;
	ports[*nr].count = 0;
	return &ports[(*nr)++];
}

void stats_count_exit(struct vcpu *v, uint32_t reason)
{
	v->counters.userspace_exits++;
	if (reason < EXIT_REASON_SLOTS)
		v->counters.by_reason[reason]++;
}

void stats_count_port(struct vcpu *v, uint16_t port)
{
	struct port_count *p = port_slot(v->counters.ports,
					 &v->counters.nr_ports,
					 MAX_TRACKED_PORTS, port);
	if (p)
		p->count++;
	else
		v->counters.other_ports++;
}

void stats_snapshot(struct vcpu *v, struct vcpu_snapshot *s)
{
	s->ns = monotonic_ns();
	s->counters = v->counters;
	memset(s->kvm_stats, 0, sizeof(s->kvm_stats));
	if (v->stats.fd >= 0)
		kvm_stats_read(&v->stats, s->kvm_stats);
	s->taken = true;
}

void stats_snapshot_exclude_current_io(struct vcpu *v,
				       struct vcpu_snapshot *s,
				       const struct vcpu_snapshot *since)
{
	struct exit_counters *c = &s->counters;

	c->userspace_exits--;
	c->by_reason[KVM_EXIT_IO]--;
	struct port_count *p = port_slot(c->ports, &c->nr_ports,
					 MAX_TRACKED_PORTS, v->run->io.port);
	if (p)
		p->count--;
	else
		c->other_ports--;
	/*
	 * KVM counted this exit too, if it counts such exits at all (some
	 * versions do not count userspace I/O in io_exits): never go below
	 * the starting value.
	 */
	int slots[2] = { v->stats.exits_slot, v->stats.io_exits_slot };
	for (int i = 0; i < 2; i++)
		if (slots[i] >= 0 &&
		    s->kvm_stats[slots[i]] > since->kvm_stats[slots[i]])
			s->kvm_stats[slots[i]]--;
}

static uint64_t port_count_of(const struct exit_counters *c, uint16_t port)
{
	for (unsigned int i = 0; i < c->nr_ports; i++)
		if (c->ports[i].port == port)
			return c->ports[i].count;
	return 0;
}

/* Adds (end - begin) of one vCPU to the aggregate. */
static void aggregate_add(struct aggregate *a, const struct vcpu *v,
			  const struct vcpu_snapshot *begin,
			  const struct vcpu_snapshot *end)
{
	const struct exit_counters *b = &begin->counters, *e = &end->counters;
	uint64_t span = end->ns - begin->ns;

	a->vcpus++;
	a->ns += span;
	if (span > a->ns_max)
		a->ns_max = span;

	a->c.userspace_exits += e->userspace_exits - b->userspace_exits;
	for (unsigned int i = 0; i < EXIT_REASON_SLOTS; i++)
		a->c.by_reason[i] += e->by_reason[i] - b->by_reason[i];
	a->c.reflections += e->reflections - b->reflections;
	a->c.iret_returns += e->iret_returns - b->iret_returns;
	a->c.exit_returns += e->exit_returns - b->exit_returns;
	a->c.fallbacks += e->fallbacks - b->fallbacks;
	for (unsigned int i = 0; i < FALLBACK_NR; i++)
		a->c.fallback_by_reason[i] += e->fallback_by_reason[i] -
					      b->fallback_by_reason[i];
	a->c.handler_failures += e->handler_failures - b->handler_failures;
	a->c.window_unfinished += e->window_unfinished - b->window_unfinished;
	a->c.pm_user_reads += e->pm_user_reads - b->pm_user_reads;
	a->c.unknown_io += e->unknown_io - b->unknown_io;
	a->c.unknown_mmio += e->unknown_mmio - b->unknown_mmio;

	for (unsigned int i = 0; i < e->nr_ports; i++) {
		uint64_t n = e->ports[i].count -
			     port_count_of(b, e->ports[i].port);
		if (!n)
			continue;
		struct port_count *p = port_slot(a->ports, &a->nr_ports,
						 MAX_AGG_PORTS,
						 e->ports[i].port);
		if (p)
			p->count += n;
		else
			a->other_ports += n;
	}
	a->other_ports += e->other_ports - b->other_ports;

	const struct kvm_stats_reader *r = &v->stats;
	if (r->fd < 0)
		return;
	a->have_kvm_stats = true;
	for (unsigned int i = 0; i < r->count; i++) {
		uint64_t n = end->kvm_stats[i] - begin->kvm_stats[i];

		if ((int)i == r->exits_slot) {
			a->kvm_exits += n;
		} else if ((int)i == r->io_exits_slot) {
			a->kvm_io_exits += n;
		} else {
			unsigned int j;

			for (j = 0; j < a->nr_kstats; j++)
				if (!strcmp(a->kstat_names[j], r->names[i]))
					break;
			if (j == a->nr_kstats) {
				if (j == KVM_STATS_MAX)
					continue;
				memcpy(a->kstat_names[j], r->names[i],
				       KVM_STATS_NAME_MAX);
				a->kstats[j] = 0;
				a->nr_kstats++;
			}
			a->kstats[j] += n;
		}
	}
}

static void aggregate_bench(struct vm *vm, struct aggregate *a)
{
	memset(a, 0, sizeof(*a));
	for (unsigned int i = 0; i < vm->nr_vcpus; i++) {
		const struct vcpu *v = &vm->vcpus[i];

		if (!v->bench_begin.taken || !v->bench_end.taken)
			continue;
		aggregate_add(a, v, &v->bench_begin, &v->bench_end);
		a->reads += vm->opts->reads_per_vcpu;
	}
}

static void aggregate_total(struct vm *vm, struct aggregate *a)
{
	memset(a, 0, sizeof(*a));
	for (unsigned int i = 0; i < vm->nr_vcpus; i++) {
		const struct vcpu *v = &vm->vcpus[i];

		if (!v->start.taken || !v->finish.taken)
			continue;
		aggregate_add(a, v, &v->start, &v->finish);
	}
	/* The run's span is the VM's wall time, not the sum over threads. */
	a->ns = vm->end_ns - vm->start_ns;
}

/* ---- JSON ------------------------------------------------------------ */

static const char *guest_mode_name(unsigned int m)
{
	switch (m) {
	case PVSMM_MODE_LONG: return "long";
	case PVSMM_MODE_PAE: return "pae";
	case PVSMM_MODE_32: return "32";
	}
	return "?";
}

static const char *mode_name(enum pmtimer_mode m)
{
	switch (m) {
	case PMTIMER_USER: return "user";
	case PMTIMER_REFLECT_USER: return "reflect-user";
	case PMTIMER_KERNEL_EMU: return "kernel-emu";
	case PMTIMER_REFLECT: return "reflect";
	}
	return "?";
}

static void json_aggregate(struct json *j, const char *key,
			   const struct aggregate *a, bool bench)
{
	char name[16];

	json_object_begin(j, key);
	json_u64(j, "ns", a->ns);
	json_u64(j, "ns_max", bench ? a->ns_max : a->ns);
	json_u64(j, "vcpus_measured", a->vcpus);
	if (bench)
		json_u64(j, "reads", a->reads);
	if (a->have_kvm_stats) {
		json_u64(j, "kvm_exits", a->kvm_exits);
		json_u64(j, "kvm_io_exits", a->kvm_io_exits);
	} else {
		json_null(j, "kvm_exits");
		json_null(j, "kvm_io_exits");
	}
	json_u64(j, "userspace_exits", a->c.userspace_exits);

	json_object_begin(j, "userspace_exits_by_reason");
	for (unsigned int i = 0; i < EXIT_REASON_SLOTS; i++) {
		if (!a->c.by_reason[i])
			continue;
		if (!reason_names[i])
			snprintf(name, sizeof(name), "EXIT_%u", i);
		json_u64(j, reason_names[i] ? reason_names[i] : name,
			 a->c.by_reason[i]);
	}
	json_object_end(j);

	json_object_begin(j, "userspace_exits_by_port");
	for (unsigned int i = 0; i < a->nr_ports; i++) {
		snprintf(name, sizeof(name), "0x%x", a->ports[i].port);
		json_u64(j, name, a->ports[i].count);
	}
	if (a->other_ports)
		json_u64(j, "other", a->other_ports);
	json_object_end(j);

	json_u64(j, "reflections", a->c.reflections);
	json_u64(j, "iret_returns", a->c.iret_returns);
	json_u64(j, "exit_returns", a->c.exit_returns);
	json_u64(j, "fallbacks", a->c.fallbacks);
	json_object_begin(j, "fallback_reasons");
	for (unsigned int i = 0; i < FALLBACK_NR; i++)
		if (a->c.fallback_by_reason[i])
			json_u64(j, fallback_name(i),
				 a->c.fallback_by_reason[i]);
	json_object_end(j);
	json_u64(j, "handler_failures", a->c.handler_failures);
	json_u64(j, "window_unfinished", a->c.window_unfinished);
	json_u64(j, "pm_user_reads", a->c.pm_user_reads);
	json_u64(j, "unknown_io", a->c.unknown_io);
	json_u64(j, "unknown_mmio", a->c.unknown_mmio);

	/* Names come from KVM: the writer escapes them. */
	json_object_begin(j, "kvm_stats");
	for (unsigned int i = 0; i < a->nr_kstats; i++)
		json_u64(j, a->kstat_names[i], a->kstats[i]);
	json_object_end(j);
	json_object_end(j);
}

/* The PVSMM-STATS object; its schema is written down in STATS.md. */
static char *build_json(struct vm *vm, int exit_code,
			const struct aggregate *bench,
			const struct aggregate *total)
{
	const struct vmm_options *o = vm->opts;
	char *buf = NULL, port[8];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	if (!f)
		return NULL;
	json_init(&j, f);
	json_object_begin(&j, NULL);
	json_string(&j, "mode", mode_name(o->mode));
	json_u64(&j, "vcpus", vm->nr_vcpus);
	json_u64(&j, "mem_mib", o->mem_mib);
	snprintf(port, sizeof(port), "0x%x", o->pm_port);
	json_string(&j, "pm_port", port);
	json_bool(&j, "window", o->window);
	json_string(&j, "guest_mode", guest_mode_name(o->guest_mode));
	json_u64(&j, "reads_per_vcpu", o->reads_per_vcpu);
	json_u64(&j, "check_reads", o->check_reads);
	json_int(&j, "exit_code", exit_code);
	if (o->mode == PMTIMER_REFLECT_USER) {
		json_object_begin(&j, "registration");
		json_u64(&j, "writes", vm->reg.writes);
		json_u64(&j, "rejected", vm->reg.rejected);
		json_u64(&j, "disabled", vm->reg.disabled);
		json_bool(&j, "valid", vm->reg.valid);
		json_u64(&j, "window_claims", vm->reg.nr_claims);
		json_u64(&j, "window_claims_cleared", vm->reg.claims_cleared);
		json_object_end(&j);
	}
	json_aggregate(&j, "bench", bench, true);
	json_aggregate(&j, "total", total, false);
	json_object_end(&j);
	fclose(f);
	return buf;
}

/* ---- Human summary ---------------------------------------------------- */

static double per(uint64_t n, uint64_t d)
{
	return d ? (double)n / (double)d : 0.0;
}

static void human_aggregate(const char *what, const struct aggregate *a,
			    uint64_t reads)
{
	fprintf(stderr, "  %s: %u vCPU(s), %llu ns", what, a->vcpus,
		(unsigned long long)a->ns);
	if (reads)
		fprintf(stderr, ", %llu reads, %.1f ns/read (longest vCPU %llu ns)",
			(unsigned long long)reads, per(a->ns, reads),
			(unsigned long long)a->ns_max);
	fputc('\n', stderr);
	if (a->have_kvm_stats)
		fprintf(stderr, "    KVM exits %llu (I/O %llu)",
			(unsigned long long)a->kvm_exits,
			(unsigned long long)a->kvm_io_exits);
	else
		fprintf(stderr, "    KVM exits n/a");
	fprintf(stderr, ", userspace exits %llu",
		(unsigned long long)a->c.userspace_exits);
	if (reads)
		fprintf(stderr, " (%.3f/read)", per(a->c.userspace_exits, reads));
	fprintf(stderr, "\n    reflections %llu (window %llu, private %llu), fallbacks %llu, handler failures %llu, userspace PM reads %llu\n",
		(unsigned long long)a->c.reflections,
		(unsigned long long)a->c.iret_returns,
		(unsigned long long)a->c.exit_returns,
		(unsigned long long)a->c.fallbacks,
		(unsigned long long)a->c.handler_failures,
		(unsigned long long)a->c.pm_user_reads);
	for (unsigned int i = 0; i < FALLBACK_NR; i++)
		if (a->c.fallback_by_reason[i])
			fprintf(stderr, "    fallback %s %llu\n",
				fallback_name(i),
				(unsigned long long)a->c.fallback_by_reason[i]);
	for (unsigned int i = 0; i < a->nr_kstats; i++)
		fprintf(stderr, "    kvm %s %llu\n", a->kstat_names[i],
			(unsigned long long)a->kstats[i]);
}

void stats_report(struct vm *vm, int exit_code, FILE *stats_file)
{
	struct aggregate *bench = calloc(1, sizeof(*bench));
	struct aggregate *total = calloc(1, sizeof(*total));

	serial_flush();
	if (!bench || !total) {
		vmm_warn("out of memory for the report");
		return;
	}
	aggregate_bench(vm, bench);
	aggregate_total(vm, total);

	fprintf(stderr, VMM_NAME ": mode %s, %u vCPU(s), exit code %d\n",
		mode_name(vm->opts->mode), vm->nr_vcpus, exit_code);
	if (bench->vcpus)
		human_aggregate("bench", bench, bench->reads);
	else
		fprintf(stderr, "  bench: no complete BEGIN/END marker pair\n");
	human_aggregate("total", total, 0);

	char *json = build_json(vm, exit_code, bench, total);
	if (json) {
		printf("PVSMM-STATS %s\n", json);
		fflush(stdout);
		if (stats_file) {
			fprintf(stats_file, "%s\n", json);
			if (fflush(stats_file) != 0)
				vmm_warn("cannot write the stats file");
		}
		free(json);
	}
	free(bench);
	free(total);
}
