// SPDX-License-Identifier: MIT
/*
 * The QEMU shim's pieces (host/qemu-shim), and its ioctl() wrapper as QEMU
 * calls it, against a fake KVM (fake_kvm.c):
 *  - bad pointers: KVM_SET_MSRS / KVM_SET_CPUID2 with NULL or unmapped
 *    arguments fail with EFAULT, as without the shim, and QEMU lives;
 *  - the registration is cleared at a system reset, and kept across CPU
 *    hotplug and an incoming migration (vcpu_load.h), which also keeps
 *    kvmclock as the guest had it;
 *  - PM timer reads that exit are completed from kvmclock with the one
 *    formula (pm_ticks.c), KVM_RUN re-entered without QEMU seeing them;
 *  - the marker's rate limit.
 *  - marks read KVM's stats without the vCPU's lock.
 * Run with PVSMM_PORTS=0x608 PVSMM_EPOCH=0 PVSMM_MARKER_PORT=0xef8 in the
 * environment (run.sh).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <pvsmm/abi.h>

#include "config.h"
#include "epoch.h"
#include "fake_kvm.h"
#include "pm_serve.h"
#include "pm_ticks.h"
#include "rate_limit.h"
#include "test.h"
#include "user_copy.h"
#include "vcpu_load.h"

#define BAD_POINTER	((void *)16)	/* never mapped: page 0 */
#define PM_PORT		0x608
#define MARKER_PORT	0xef8

unsigned long test_passed, test_failed;

static void test_rate_limit(void)
{
	struct rate_limit rl = RATE_LIMIT_INIT(1000, 3);
	uint64_t missed = 99;
	int allowed = 0;

	for (int i = 0; i < 10; i++)
		allowed += rate_limit_allow(&rl, 100 + (uint64_t)i, NULL);
	CHECK(allowed == 3, "%d of 10 in one interval, want the burst 3", allowed);
	CHECK(rate_limit_allow(&rl, 1100, &missed) && missed == 7,
	      "next interval: allowed, missed %llu (want 7)",
	      (unsigned long long)missed);
	CHECK(rate_limit_allow(&rl, 1101, &missed) && missed == 0,
	      "missed is reset once reported");
	for (int i = 0; i < 1000; i++)
		rate_limit_allow(&rl, 1102, NULL);	/* 1 more allowed, 999 not */
	CHECK(!rate_limit_allow(&rl, 2099, NULL), "a flood stays limited");
	CHECK(rate_limit_allow(&rl, 2100, &missed) && missed == 1000,
	      "flood counted: %llu", (unsigned long long)missed);
}

static void test_user_copy(void)
{
	uint64_t src = 0x1122334455667788ull, dst = 0;

	errno = 0;
	CHECK(!user_copy(&dst, NULL, sizeof(dst)) && errno == EFAULT, "NULL");
	errno = 0;
	CHECK(!user_copy(&dst, BAD_POINTER, sizeof(dst)) && errno == EFAULT,
	      "unmapped");
	CHECK(user_copy(&dst, &src, sizeof(dst)) && dst == src, "copied");
}

static void test_reset_decision(void)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e[2];
	} m = { .hdr.nmsrs = 2, .e = { { .index = 0x174 }, { .index = 0x175 } } };
	struct kvm_regs regs = { .rip = 0xfff0 };
	struct kvm_sregs sregs = { .cs = { .selector = 0xf000, .base = 0xffff0000 } };

	CHECK(!msrs_load_whole_vcpu(&m.hdr), "a partial MSR list");
	m.e[1].index = MSR_IA32_TSC;
	CHECK(msrs_load_whole_vcpu(&m.hdr), "a list with MSR_IA32_TSC");
	CHECK(vcpu_load_kind(0, &regs, &sregs) == VCPU_LOAD_RESET,
	      "system reset: BSP at reset");
	CHECK(vcpu_load_kind(2, &regs, &sregs) == VCPU_LOAD_NEW_AP,
	      "hotplug: a new AP");
	regs.rip = 0xffffffff81000000ull;
	sregs.cs = (struct kvm_segment){ .selector = 0x10 };
	CHECK(vcpu_load_kind(0, &regs, &sregs) == VCPU_LOAD_INCOMING,
	      "migration: BSP running");
}

static void test_fill(void)
{
	uint8_t d[8];

	memset(d, 0xee, sizeof(d));
	pm_serve_fill(d, 4, 1, 0x00abcdef);
	CHECK(!memcmp(d, "\xef\xcd\xab\x00\xee", 5), "dword");
	memset(d, 0xee, sizeof(d));
	pm_serve_fill(d, 2, 3, 0x00abcdef);
	CHECK(!memcmp(d, "\xef\xcd\xef\xcd\xef\xcd\xee", 7), "INSW x3");
	pm_serve_fill(d, 1, 1, 0x00abcdef);
	CHECK(d[0] == 0xef && d[1] == 0xcd, "byte");
}

/* QEMU's KVM_SET_MSRS of a whole vCPU (it has MSR_IA32_TSC). */
static int load_whole_vcpu(struct fake_vcpu *f)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry e[2];
	} m = { .hdr.nmsrs = 2, .e = { { .index = MSR_IA32_TSC, .data = 1 },
				       { .index = 0x174 } } };

	return ioctl(f->fd, KVM_SET_MSRS, &m);
}

static void set_reset_state(struct fake_vcpu *f)
{
	f->regs = (struct kvm_regs){ .rip = 0xfff0 };
	f->sregs = (struct kvm_sregs){ .cs = { .selector = 0xf000,
					       .base = 0xffff0000 } };
}

/* A KVM_RUN of f that returns its OUT exit: the guest writes a port. */
static void guest_out(struct fake_vcpu *f, uint16_t port, uint8_t size,
		      uint32_t count, uint32_t value)
{
	f->nr_exits = f->runs = 0;
	fake_vcpu_queue_out(f, port, size, count, value);
	CHECK(ioctl(f->fd, KVM_RUN, 0) == 0 && f->runs == 1,
	      "OUT %#x to %#x", value, port);
}

/* QEMU stopping f at once after its exit, as for a suspend request. */
static void qemu_stops(struct fake_vcpu *f)
{
	int before = f->immediate_exits;

	f->run->immediate_exit = 1;
	CHECK(ioctl(f->fd, KVM_RUN, 0) == -1 && errno == EINTR &&
	      f->immediate_exits == before + 1, "immediate exit");
	f->run->immediate_exit = 0;
}

/* A KVM_RUN of f in which the guest runs and exits (HLT). */
static void guest_runs(struct fake_vcpu *f)
{
	f->nr_exits = f->runs = 0;
	CHECK(ioctl(f->fd, KVM_RUN, 0) == 0 && f->runs == 1, "guest ran");
}

/* Whether the BSP's next reset load keeps the registration. */
static bool reset_keeps(struct fake_vcpu *bsp)
{
	const uint64_t reg = 0x9000 | PVSMM_MSR_ENABLE;

	bsp->registration = reg;
	bsp->register_writes = 0;
	CHECK(load_whole_vcpu(bsp) == 2, "reset load");
	return bsp->registration == reg && !bsp->register_writes;
}

/*
 * S3 (s3_resume.h): the wakeup's reset keeps the registration, since no
 * firmware registers at a resume; every other reset clears it.  A wakeup
 * is a request for S3 (SLP_EN, SLP_TYP 1 in PM1a_CNT) that QEMU acted on
 * by stopping the vCPU at once, no guest code running after it.
 */
static void test_s3(struct fake_vcpu *bsp, struct fake_vcpu *ap)
{
	static const struct {
		uint16_t port;
		uint8_t size;
		uint32_t count;
		uint16_t value;
		const char *what;
	} requests[] = {
		{ PM_PORT - 4, 2, 1, 0x2400, "a word" },
		{ PM_PORT - 3, 1, 1, 0x24, "the high byte" },
		{ PM_PORT - 4, 2, 2, 0x2400, "the last word of OUTSW" },
	}, not_s3[] = {
		{ PM_PORT - 4, 2, 1, 0x2000, "S5 (SLP_TYP 0)" },
		{ PM_PORT - 4, 2, 1, 0x0400, "SLP_TYP 1 without SLP_EN" },
		{ PM_PORT - 4, 2, 1, 0x2800, "SLP_TYP 2" },
		{ PM_PORT - 4, 1, 1, 0x24, "the low byte" },
		{ PM_PORT - 4, 2, 2, 0x2000, "OUTSW ending in S5" },
		{ PM_PORT - 8, 2, 1, 0x2400, "PM1a_EVT" },
		{ 0x3f8, 2, 1, 0x2400, "another port" },
	};

	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		guest_out(bsp, requests[i].port, requests[i].size,
			  requests[i].count, requests[i].value);
		qemu_stops(bsp);
		CHECK(reset_keeps(bsp), "the wakeup after S3 asked by %s keeps it",
		      requests[i].what);
		CHECK(!reset_keeps(bsp), "the next reset, a reboot, clears it");
	}
	for (size_t i = 0; i < sizeof(not_s3) / sizeof(not_s3[0]); i++) {
		guest_out(bsp, not_s3[i].port, not_s3[i].size, not_s3[i].count,
			  not_s3[i].value);
		qemu_stops(bsp);
		CHECK(!reset_keeps(bsp), "a reset after %s clears it",
		      not_s3[i].what);
	}

	/* What a hostile kernel would try, to take its handler into the next
	 * boot's firmware: ask for S3 where no device listens, then reset. */
	guest_out(bsp, PM_PORT - 4, 2, 1, 0x2400);
	guest_runs(bsp);
	CHECK(!reset_keeps(bsp), "asked, not stopped (guest ran on): cleared");
	guest_out(bsp, PM_PORT - 4, 2, 1, 0x2400);
	bsp->signal_next = true;	/* it spins until a watchdog resets it */
	CHECK(ioctl(bsp->fd, KVM_RUN, 0) == -1 && errno == EINTR, "kicked");
	CHECK(!reset_keeps(bsp), "asked, ran on without an exit, reset by the "
	      "host: cleared");
	guest_out(bsp, PM_PORT - 4, 2, 1, 0x2400);
	qemu_stops(bsp);
	guest_runs(ap);
	CHECK(!reset_keeps(bsp), "stopped, but another vCPU ran: cleared");
	guest_out(bsp, PM_PORT - 4, 2, 1, 0x2400);
	qemu_stops(ap);
	guest_runs(bsp);
	CHECK(!reset_keeps(bsp), "another vCPU stopped, the asker ran: cleared");
	guest_out(bsp, PM_PORT - 4, 2, 1, 0x2400);
	qemu_stops(bsp);
	guest_out(bsp, 0xcf9, 1, 1, 0x06);
	CHECK(!reset_keeps(bsp), "a reset asked through 0xcf9 after: cleared");
	bsp->nr_exits = bsp->runs = ap->nr_exits = ap->runs = 0;
}

static void test_wrapper(void)
{
	struct fake_vcpu *bsp, *ap;
	int vm, r;

	CHECK(shim_cfg.enabled && shim_cfg.first_port == PM_PORT && !shim_cfg.epoch,
	      "run with PVSMM_PORTS=0x608 PVSMM_EPOCH=0");
	vm = ioctl(FAKE_KVM_FD, KVM_CREATE_VM, 0);
	CHECK(vm == FAKE_VM_FD, "KVM_CREATE_VM: %d", vm);
	bsp = fake_vcpu_new(0);
	CHECK(ioctl(vm, KVM_CREATE_VCPU, 0) == bsp->fd, "vCPU 0");
	ap = fake_vcpu_new(1);
	CHECK(ioctl(vm, KVM_CREATE_VCPU, 1) == ap->fd, "vCPU 1");

	/* Pointers QEMU could get wrong: EFAULT, as KVM says, no crash. */
	errno = 0;
	r = ioctl(bsp->fd, KVM_SET_MSRS, NULL);
	CHECK(r == -1 && errno == EFAULT, "SET_MSRS NULL: %d errno %d", r, errno);
	errno = 0;
	r = ioctl(bsp->fd, KVM_SET_MSRS, BAD_POINTER);
	CHECK(r == -1 && errno == EFAULT, "SET_MSRS bad: %d errno %d", r, errno);
	errno = 0;
	r = ioctl(bsp->fd, KVM_SET_CPUID2, NULL);
	CHECK(r == -1 && errno == EFAULT, "SET_CPUID2 NULL: %d errno %d", r, errno);
	errno = 0;
	r = ioctl(bsp->fd, KVM_SET_CPUID2, BAD_POINTER);
	CHECK(r == -1 && errno == EFAULT, "SET_CPUID2 bad: %d errno %d", r, errno);

	/* The guest registered; QEMU hot-plugs vCPU 1 (its reset state). */
	bsp->registration = 0x9000 | PVSMM_MSR_ENABLE;
	bsp->regs.rip = 0xffffffff81000000ull;
	set_reset_state(ap);
	CHECK(load_whole_vcpu(ap) == 2, "hotplug load");
	CHECK(bsp->registration == (0x9000 | PVSMM_MSR_ENABLE) &&
	      !ap->register_writes, "hotplug keeps the registration");
	/* Incoming migration: vCPU 0 loaded with the guest's running state. */
	shim_cfg.epoch = true;	/* as QEMU runs the shim */
	CHECK(!epoch_settled(), "kvmclock not lined up yet");
	CHECK(load_whole_vcpu(bsp) == 2, "migration load");
	CHECK(bsp->register_writes == 0, "migration keeps the registration");
	CHECK(epoch_settled(), "and kvmclock as the guest had it");
	shim_cfg.epoch = false;
	/* System reset: vCPU 0 back at the reset vector. */
	set_reset_state(bsp);
	CHECK(load_whole_vcpu(bsp) == 2, "reset load");
	CHECK(bsp->register_writes == 1 && bsp->registration == 0,
	      "reset clears the registration (%d writes)", bsp->register_writes);
	test_s3(bsp, ap);

	/* PM timer reads that exit: served from kvmclock, QEMU sees none. */
	fake_clock_ns = 1000000000ull;	/* 3579545 ticks */
	fake_vcpu_queue_in(bsp, PM_PORT, 4, 1);
	fake_vcpu_queue_in(bsp, PM_PORT, 2, 3);
	fake_vcpu_queue_in(bsp, 0x3f8, 1, 1);	/* not ours: to QEMU */
	r = ioctl(bsp->fd, KVM_RUN, 0);
	uint32_t want = pm_timer_ticks_from_ns(fake_clock_ns), got;
	CHECK(r == 0 && bsp->runs == 3, "re-entered twice: %d runs", bsp->runs);
	uint8_t words[6];
	memcpy(&got, bsp->seen_in[0], 4);
	CHECK(got == want && want == 3579545, "IN dword: %#x, want %#x", got, want);
	for (int i = 0; i < 3; i++)
		memcpy(words + 2 * i, &want, 2);
	CHECK(!memcmp(bsp->seen_in[1], words, sizeof(words)), "INSW x3: %02x%02x",
	      bsp->seen_in[1][1], bsp->seen_in[1][0]);
	CHECK(bsp->run->io.port == 0x3f8, "QEMU gets the COM1 exit");
	r = ioctl(bsp->fd, KVM_RUN, 0);
	CHECK(r == 0 && bsp->runs == 4 && bsp->run->exit_reason == KVM_EXIT_HLT,
	      "then the next exit");
}

/*
 * A mark must not ask KVM for a vCPU's stats fd: KVM_GET_STATS_FD waits
 * for the vCPU's mutex, held by a vCPU sleeping in KVM_RUN -- forever
 * for one never started, which hung a guest at its second mark.
 */
static void test_marks_take_no_vcpu_lock(void)
{
	struct fake_vcpu *f = fake_vcpu_new(2);
	int before, vm = FAKE_VM_FD;

	CHECK(shim_cfg.marker_port == MARKER_PORT, "run with PVSMM_MARKER_PORT");
	before = fake_stats_fd_requests;
	CHECK(ioctl(vm, KVM_CREATE_VCPU, 2) == f->fd, "vCPU 2");
	CHECK(fake_stats_fd_requests == before + 1,
	      "stats fd asked for once, at creation");
	before = fake_stats_fd_requests;
	fake_vcpu_queue_out(f, MARKER_PORT, 1, 1, 1);
	fake_vcpu_queue_out(f, MARKER_PORT, 1, 1, 2);
	CHECK(ioctl(f->fd, KVM_RUN, 0) == 0 && ioctl(f->fd, KVM_RUN, 0) == 0 &&
	      f->runs == 2, "two marks");
	CHECK(fake_stats_fd_requests == before,
	      "marks asked KVM_GET_STATS_FD %d times", fake_stats_fd_requests - before);
}

int main(void)
{
	test_rate_limit();
	test_user_copy();
	test_reset_decision();
	test_fill();
	test_wrapper();
	test_marks_take_no_vcpu_lock();
	printf("shim: %lu passed, %lu failed\n", test_passed, test_failed);
	return test_failed ? 1 : 0;
}
