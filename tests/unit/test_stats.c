// SPDX-License-Identifier: MIT
/*
 * The PVSMM-STATS line (host/vmm/stats.c, docs in host/vmm/STATS.md) for
 * a synthetic VM, byte for byte: the schema its readers parse, and the
 * JSON writer under it (host/vmm/json.c), escapes included.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "stats.h"
#include "suites.h"
#include "test.h"

static char *capture_json(void (*write)(struct json *, const void *),
			  const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f);
	write(&j, arg);
	fclose(f);
	return buf;
}

static void write_escapes(struct json *j, const void *arg)
{
	(void)arg;
	json_object_begin(j, NULL);
	json_string(j, "plain", "pvsmm_reflections");
	json_string(j, "quote\"back\\slash", "a\"b\\c");
	json_string(j, "ctl", "\n\t\r\b\f\x01\x1f");
	json_string(j, "high", "\x7f\xc3\xa9");
	json_object_begin(j, "empty");
	json_object_end(j);
	json_object_begin(j, "nested");
	json_u64(j, "max", UINT64_MAX);
	json_int(j, "neg", -3);
	json_bool(j, "t", true);
	json_bool(j, "f", false);
	json_null(j, "n");
	json_object_end(j);
	json_object_end(j);
}

static void test_json_writer(void)
{
	char *s = capture_json(write_escapes, NULL);
	const char *want =
		"{\"plain\":\"pvsmm_reflections\","
		"\"quote\\\"back\\\\slash\":\"a\\\"b\\\\c\","
		"\"ctl\":\"\\n\\t\\r\\b\\f\\u0001\\u001f\","
		"\"high\":\"\\u007f\\u00c3\\u00a9\","
		"\"empty\":{},"
		"\"nested\":{\"max\":18446744073709551615,\"neg\":-3,"
		"\"t\":true,\"f\":false,\"n\":null}}";

	CHECK(s && !strcmp(s, want), "got  %s\n  want %s", s, want);
	free(s);
}

/* A 2-vCPU reflect-user run with marker snapshots and KVM stats. */
static void synthetic_vm(struct vm *vm, struct vmm_options *o)
{
	*o = (struct vmm_options){
		.nr_vcpus = 2, .mem_mib = 64, .mode = PMTIMER_REFLECT_USER,
		.pm_port = 0x608, .reads_per_vcpu = 1000, .check_reads = 10,
		.window = true,
	};
	memset(vm, 0, sizeof(*vm));
	vm->opts = o;
	vm->nr_vcpus = 2;
	vm->start_ns = 1000;
	vm->end_ns = 901000;
	vm->reg.writes = 2;
	vm->reg.rejected = 1;
	vm->reg.valid = true;
	for (unsigned int i = 0; i < 2; i++) {
		struct vcpu *v = &vm->vcpus[i];
		struct kvm_stats_reader *r = &v->stats;

		v->index = i;
		r->fd = i == 0 ? 3 : -1;	/* only vCPU 0 has KVM stats */
		r->count = 3;
		strcpy(r->names[0], "exits");
		strcpy(r->names[1], "io_exits");
		strcpy(r->names[2], "pvsmm_odd");
		r->exits_slot = 0;
		r->io_exits_slot = 1;

		struct vcpu_snapshot *s[4] = { &v->start, &v->bench_begin,
					       &v->bench_end, &v->finish };
		for (unsigned int k = 0; k < 4; k++) {
			struct exit_counters *c = &s[k]->counters;

			s[k]->taken = true;
			s[k]->ns = 1000 + 100000 * k + 7 * i;
			c->userspace_exits = 10 * k + i;
			c->by_reason[KVM_EXIT_IO] = 8 * k;
			c->by_reason[KVM_EXIT_HLT] = k;
			c->by_reason[40] = k / 2;	/* no name: EXIT_40 */
			c->nr_ports = 2;
			c->ports[0] = (struct port_count){ 0x608, 5 * k };
			c->ports[1] = (struct port_count){ 0x3f8, 3 * k * i };
			c->other_ports = k;
			c->reflections = 4 * k;
			c->iret_returns = 3 * k;
			c->exit_returns = k;
			c->fallbacks = k / 3;
			c->pm_user_reads = k + i;
			c->unknown_io = k / 2;
			c->unknown_mmio = 0;
			s[k]->kvm_stats[0] = 100 * k;
			s[k]->kvm_stats[1] = 50 * k;
			s[k]->kvm_stats[2] = 4 * k;
		}
	}
}

static char *report_json(struct vm *vm)
{
	FILE *f = tmpfile();
	char *line = NULL;
	size_t cap = 0;
	int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
	FILE *null = fopen("/dev/null", "w");

	/* The report also goes to stdout and stderr: not into the test log. */
	fflush(stdout);
	dup2(fileno(null), STDOUT_FILENO);
	dup2(fileno(null), STDERR_FILENO);
	stats_report(vm, 0, f);
	fflush(stdout);
	dup2(out, STDOUT_FILENO);
	dup2(err, STDERR_FILENO);
	close(out);
	close(err);
	fclose(null);
	rewind(f);
	if (getline(&line, &cap, f) < 0) {
		free(line);
		line = NULL;
	}
	fclose(f);
	return line;
}

static void test_stats_line(void)
{
	static struct vm vm;
	struct vmm_options o;
	char *line;
	/*
	 * Written by stats.c before json.c existed; ABI version 2 added
	 * window, guest_mode, registration.disabled and the window claims,
	 * fallback_reasons, handler_failures and window_unfinished.
	 */
	const char *want =
"{\"mode\":\"reflect-user\",\"vcpus\":2,\"mem_mib\":64,\"pm_port\":\"0x"
"608\",\"window\":true,\"guest_mode\":\"long\",\"reads_per_vcpu\":1000,"
"\"check_reads\":10,\"exit_code\":0,\"registration\":{\"writes\":2,\"re"
"jected\":1,\"disabled\":0,\"valid\":true,\"window_claims\":0,\"window_"
"claims_cleared\":0},\"bench\":{\"ns\":200000,\"ns_max\":100000,\"vcpus"
"_measured\":2,\"reads\":2000,\"kvm_exits\":100,\"kvm_io_exits\":50,\"u"
"serspace_exits\":20,\"userspace_exits_by_reason\":{\"IO\":16,\"HLT\":2"
",\"EXIT_40\":2},\"userspace_exits_by_port\":{\"0x608\":10,\"0x3f8\":3,"
"\"other\":2},\"reflections\":8,\"iret_returns\":6,\"exit_returns\":2,"
"\"fallbacks\":0,\"fallback_reasons\":{},\"handler_failures\":0,\"windo"
"w_unfinished\":0,\"pm_user_reads\":2,\"unknown_io\":2,\"unknown_mmio\""
":0,\"kvm_stats\":{\"pvsmm_odd\":4}},\"total\":{\"ns\":900000,\"ns_max"
"\":900000,\"vcpus_measured\":2,\"kvm_exits\":300,\"kvm_io_exits\":150,"
"\"userspace_exits\":60,\"userspace_exits_by_reason\":{\"IO\":48,\"HLT"
"\":6,\"EXIT_40\":2},\"userspace_exits_by_port\":{\"0x608\":30,\"0x3f8"
"\":9,\"other\":6},\"reflections\":24,\"iret_returns\":18,\"exit_return"
"s\":6,\"fallbacks\":2,\"fallback_reasons\":{},\"handler_failures\":0,"
"\"window_unfinished\":0,\"pm_user_reads\":6,\"unknown_io\":2,\"unknown"
"_mmio\":0,\"kvm_stats\":{\"pvsmm_odd\":12}}}\n";

	synthetic_vm(&vm, &o);
	line = report_json(&vm);
	CHECK(line && !strcmp(line, want), "got  %s  want %s", line, want);
	free(line);

	/* A stat name from KVM is data: escaped, never JSON syntax. */
	strcpy(vm.vcpus[0].stats.names[2], "pvsmm_\"x\"");
	line = report_json(&vm);
	CHECK(line && strstr(line, "\"kvm_stats\":{\"pvsmm_\\\"x\\\"\":12}}}"),
	      "escaped stat name: %s", line);
	free(line);
}

void test_stats(void)
{
	test_json_writer();
	test_stats_line();
}
