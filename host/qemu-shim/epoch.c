// SPDX-License-Identifier: MIT
/*
 * One definition of time for a stock QEMU.
 *
 * The handler computes the PM timer from kvmclock; QEMU's own PM timer
 * (hw/acpi/core.c) computes floor(QEMU_CLOCK_VIRTUAL * 3579545 / 10^9)
 * mod 2^24, and under KVM QEMU_CLOCK_VIRTUAL is CLOCK_MONOTONIC minus the
 * instant QEMU first started the VM (T1, QEMU-internal).  kvmclock starts
 * from 0 at a slightly later instant (QEMU's KVM_SET_CLOCK at VM start),
 * so the two differ by microseconds -- and every read that is not
 * reflected (before the BIOS registers, NMI context, string INs) comes
 * from QEMU: a guest would see time step back and forth.
 *
 * The shim measures T1 exactly instead of guessing: QEMU serves a PM
 * timer read in the vCPU thread between two KVM_RUNs, reading
 * CLOCK_MONOTONIC once through clock_gettime(), which the shim wraps.  One
 * read (value v, monotonic time m) bounds T1 to one tick:
 *	v <= (m - T1) * f / 10^9 < v + 1
 * and a few reads with different phases narrow it further.  The BIOS
 * reads the PM timer many times before any option ROM runs, so after
 * EPOCH_SAMPLES reads the shim sets kvmclock to CLOCK_MONOTONIC - T1
 * (KVM_SET_CLOCK, pinned to CLOCK_REALTIME so that the ioctl's own latency
 * does not count) -- before the ROM registers and long before the OS
 * starts kvmclock.
 *
 * Done once per QEMU process, and not at all in one that received a
 * running guest (incoming migration, loadvm: epoch_incoming), whose
 * kvmclock came with it and has been read by it.  kvmclock then runs at
 * the host's raw clock rate and QEMU's clock at the NTP-disciplined one,
 * so they drift apart at the host's NTP frequency correction (parts per
 * million); a stop/cont restores kvmclock from QEMU's saved value.  Both
 * matter only to QEMU's own PM timer device, which with pvsmm enabled
 * serves no counter read after the alignment: pm_serve.c serves them
 * from kvmclock.
 * PVSMM_EPOCH=0 turns this off.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <pvsmm/abi.h>

#include "config.h"
#include "epoch.h"
#include "log.h"
#include "real_libc.h"

#define EPOCH_SAMPLES	16
#define TICK_PERIOD	(1ull << 24)

/* Per vCPU thread: the clock reads QEMU makes while serving one exit. */
static __thread struct {
	bool recording;
	int n;
	int64_t mono;
} tl;

static pthread_mutex_t elock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool armed;		/* QEMU set kvmclock; T1 estimate valid */
	bool done;		/* applied, or given up */
	int64_t t1_est;		/* monotonic ns, from QEMU's KVM_SET_CLOCK */
	int64_t lo, hi;		/* T1 in [lo, hi] */
	int samples, ambiguous;
} ep;

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t now(clockid_t clk)
{
	struct timespec ts;

	shim_real_clock_gettime(clk, &ts);
	return ts_ns(&ts);
}

__attribute__((visibility("default")))
int clock_gettime(clockid_t clk, struct timespec *ts)
{
	int r = shim_real_clock_gettime(clk, ts);

	if (tl.recording && r == 0 && clk == CLOCK_MONOTONIC) {
		tl.mono = ts_ns(ts);
		tl.n++;
	}
	return r;
}

static int64_t kvmclock_now(struct shim_vm *vm)
{
	struct kvm_clock_data d;

	memset(&d, 0, sizeof(d));
	if (shim_real_ioctl(vm->fd, KVM_GET_CLOCK, &d))
		return -1;
	return (int64_t)d.clock;
}

/* QEMU just set kvmclock (VM start): kvmclock ~ QEMU's clock, so T1 is
 * about CLOCK_MONOTONIC - kvmclock, which resolves the 2^24 wrap. */
void epoch_vm_clock_set(struct shim_vm *vm)
{
	int64_t kc;

	if (!shim_cfg.epoch)
		return;
	pthread_mutex_lock(&elock);
	if (!ep.done && !ep.armed) {
		kc = kvmclock_now(vm);
		if (kc >= 0) {
			ep.t1_est = now(CLOCK_MONOTONIC) - kc;
			ep.lo = INT64_MIN;
			ep.hi = INT64_MAX;
			ep.armed = true;
		}
	}
	pthread_mutex_unlock(&elock);
}

/* ceil(ticks * 10^9 / f) */
static int64_t ticks_to_ns_ceil(unsigned __int128 ticks)
{
	return (int64_t)((ticks * PVSMM_NSEC_PER_SEC + PVSMM_PM_TIMER_HZ - 1) /
			 PVSMM_PM_TIMER_HZ);
}

/* Has the guest registered a handler?  (Read on the calling vCPU.) */
static bool registered(struct shim_vcpu *v)
{
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry entry;
	} m = { .hdr.nmsrs = 1, .entry.index = PVSMM_MSR_REGISTER };

	if (!v->vm->reflecting)
		return false;
	return shim_real_ioctl(v->fd, KVM_GET_MSRS, &m) == 1 &&
	       (m.entry.data & PVSMM_MSR_ENABLE);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, from a sandwiched pair of reads. */
static int64_t realtime_offset(void)
{
	int64_t r1 = now(CLOCK_REALTIME), m = now(CLOCK_MONOTONIC);
	int64_t r2 = now(CLOCK_REALTIME);

	return r1 + (r2 - r1) / 2 - m;
}

/*
 * kvmclock - QEMU's clock, in ns.  KVM_GET_CLOCK returns kvmclock and
 * CLOCK_REALTIME at one instant (TSC-based hosts), so the only error left
 * is that of realtime_offset().
 */
static bool residual(struct shim_vm *vm, int64_t t1, int64_t *out)
{
	struct kvm_clock_data d;
	int64_t m1, m2;

	memset(&d, 0, sizeof(d));
	m1 = now(CLOCK_MONOTONIC);
	if (shim_real_ioctl(vm->fd, KVM_GET_CLOCK, &d))
		return false;
	m2 = now(CLOCK_MONOTONIC);
	if (d.flags & KVM_CLOCK_REALTIME)
		*out = (int64_t)d.clock - ((int64_t)d.realtime - realtime_offset() - t1);
	else
		*out = (int64_t)d.clock - (m1 + (m2 - m1) / 2 - t1);
	return true;
}

/*
 * kvmclock := CLOCK_MONOTONIC - T1.  KVM_SET_CLOCK with KVM_CLOCK_REALTIME
 * takes the value for a given CLOCK_REALTIME instant, so the ioctl's
 * latency does not count; KVM still samples its base a little before it
 * reads CLOCK_REALTIME, which leaves kvmclock a constant bit ahead.  That
 * bias is measured and subtracted, until it is under 100 ns: each
 * measurement is noisy when the host is busy (one in the nested lab needed
 * more than four rounds), so up to eight.
 */
static void apply(struct shim_vm *vm)
{
	int64_t t1 = ep.lo + (ep.hi - ep.lo) / 2;
	int64_t before = 0, err = 0, bias = 0;
	struct kvm_clock_data d;
	int round;

	residual(vm, t1, &before);
	for (round = 0; round < 8; round++) {
		int64_t m, off = realtime_offset();

		memset(&d, 0, sizeof(d));
		m = now(CLOCK_MONOTONIC);
		d.clock = (uint64_t)(m - t1 - bias);
		d.realtime = (uint64_t)(m + off);
		d.flags = KVM_CLOCK_REALTIME;
		if (shim_real_ioctl(vm->fd, KVM_SET_CLOCK, &d)) {
			/* No TSC-based host clock: plain set, off by the ioctl. */
			memset(&d, 0, sizeof(d));
			d.clock = (uint64_t)(now(CLOCK_MONOTONIC) - t1);
			if (shim_real_ioctl(vm->fd, KVM_SET_CLOCK, &d)) {
				shim_log("KVM_SET_CLOCK failed: kvmclock stays %lld ns off QEMU's PM timer",
					 (long long)before);
				return;
			}
		}
		if (!residual(vm, t1, &err))
			break;
		if (err > -100 && err < 100)
			break;
		bias += err;
	}
	shim_log("kvmclock aligned to QEMU's PM timer after %d reads: it was %lld ns off, "
		 "now %lld ns (T1 known to %lld ns, %d round%s)", ep.samples,
		 (long long)before, (long long)err, (long long)(ep.hi - ep.lo),
		 round + 1, round ? "s" : "");
}

static void add_sample(struct shim_vcpu *vcpu, int64_t mono, uint32_t v24)
{
	struct shim_vm *vm = vcpu->vm;
	__int128 est, k;
	unsigned __int128 v;
	int64_t lo, hi;

	pthread_mutex_lock(&elock);
	if (!ep.armed || ep.done)
		goto out;
	/* Unwrap: the full tick count nearest to the estimate. */
	est = (__int128)(mono - ep.t1_est) * PVSMM_PM_TIMER_HZ / PVSMM_NSEC_PER_SEC;
	k = (est - v24 + TICK_PERIOD / 2) / TICK_PERIOD;
	if (est - v24 + TICK_PERIOD / 2 < 0)
		k = 0;
	v = (unsigned __int128)(v24 + k * TICK_PERIOD);
	/* QEMU's clock was in [ceil(v/f), ceil((v+1)/f) - 1] ns. */
	lo = mono - (ticks_to_ns_ceil(v + 1) - 1);
	hi = mono - ticks_to_ns_ceil(v);
	if (lo > ep.lo)
		ep.lo = lo;
	if (hi < ep.hi)
		ep.hi = hi;
	ep.samples++;
	if (ep.lo > ep.hi) {
		shim_log("QEMU's PM timer reads disagree with one another: kvmclock left alone");
		ep.done = true;
	} else if (ep.samples >= EPOCH_SAMPLES) {
		/* Once the handler serves the guest, stepping kvmclock would
		 * step the guest's PM timer: better a constant offset. */
		if (registered(vcpu))
			shim_log("the guest registered before QEMU's PM timer was read "
				 "%d times: kvmclock left alone", EPOCH_SAMPLES);
		else
			apply(vm);
		ep.done = true;
	}
out:
	pthread_mutex_unlock(&elock);
}

void epoch_after_run(struct shim_vcpu *v)
{
	const struct kvm_run *run = v->run;

	if (!shim_cfg.epoch || ep.done || run->exit_reason != KVM_EXIT_IO ||
	    run->io.direction != KVM_EXIT_IO_IN || run->io.size != 4 ||
	    run->io.count != 1 || !port_is_reflected(run->io.port))
		return;
	tl.recording = true;
	tl.n = 0;
}

void epoch_before_run(struct shim_vcpu *v)
{
	const struct kvm_run *run = v->run;
	uint32_t value;

	if (!tl.recording)
		return;
	tl.recording = false;
	/* One clock read, or we cannot tell which one QEMU used. */
	if (tl.n != 1) {
		if (shim_cfg.verbose && ep.ambiguous++ < 4)
			shim_log("PM timer exit with %d clock reads: not used", tl.n);
		return;
	}
	memcpy(&value, (const char *)run + run->io.data_offset, sizeof(value));
	add_sample(v, tl.mono, value & PVSMM_PM_TIMER_MASK);
}

void epoch_incoming(void)
{
	pthread_mutex_lock(&elock);
	if (shim_cfg.epoch && !ep.done) {
		ep.done = true;
		shim_log("incoming guest state: kvmclock is the guest's, "
			 "not lined up with QEMU's PM timer again");
	}
	pthread_mutex_unlock(&elock);
}

bool epoch_settled(void)
{
	bool settled;

	if (!shim_cfg.epoch)
		return true;
	pthread_mutex_lock(&elock);
	settled = ep.done;
	pthread_mutex_unlock(&elock);
	return settled;
}
