// SPDX-License-Identifier: GPL-2.0
/*
 * pmprobe: one definition of time, checked from inside the L2 guest.
 *
 * On load, reads the ACPI PM timer "pairs" times as: a plain IN (reflected
 * into the pvsmm handler when reflection is on), a one-element string IN
 * (INS is never reflected: always the VMM's own device), a plain IN again,
 * with interrupts off.  The VMM's value must lie between the two others;
 * the distances by which it falls outside are reported, in ticks, with
 * one line:
 *
 *   PMPROBE {"port":N,"pairs":N,"outside":N,"max_ahead":N,"max_behind":N,
 *            "kvmclock_minus_pm_ns":N}
 *
 * and the load fails on purpose (-EAGAIN): nothing stays behind.
 * kvmclock_minus_pm_ns: how far kvmclock (the guest's kvm-clock, whether
 * or not it is the clocksource) is ahead of the PM timer's count, modulo
 * the counter's period (4.69 s): 0 where the timer counts kvmclock, the
 * distance between the two clocks where the VMM counts another.
 */
#include <linux/clocksource.h>
#include <linux/io.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/module.h>

#define PM_MASK		0xffffffu
#define PM_HZ		3579545u

/* kvm-clock's clocksource (arch/x86/kernel/kvmclock.c), in ns. */
extern struct clocksource kvm_clock;

static uint port;
module_param(port, uint, 0);
MODULE_PARM_DESC(port, "PM timer port (PM_TMR_BLK)");
static uint pairs = 2000;
module_param(pairs, uint, 0);
static int slack = 1;
module_param(slack, int, 0);
MODULE_PARM_DESC(slack, "ticks the VMM's value may lie outside");

/* Distance from a to b modulo 2^24, as a signed 24-bit number. */
static long pm_diff(u32 a, u32 b)
{
	long d = (b - a) & PM_MASK;

	return d >= (1 << 23) ? d - (1 << 24) : d;
}

static int __init pmprobe_init(void)
{
	long max_ahead = 0, max_behind = 0, distance;
	unsigned long flags;
	uint i, outside = 0;
	u64 kvm_ns;
	u32 pm;

	if (!port || port > 0xfffc)
		return -EINVAL;

	for (i = 0; i < pairs; i++) {
		u32 a, q, b;

		local_irq_save(flags);
		a = inl(port) & PM_MASK;
		insl(port, &q, 1);
		q &= PM_MASK;
		b = inl(port) & PM_MASK;
		local_irq_restore(flags);

		if (pm_diff(q, a) > max_behind)
			max_behind = pm_diff(q, a);
		if (pm_diff(b, q) > max_ahead)
			max_ahead = pm_diff(b, q);
		if (pm_diff(q, a) > slack || pm_diff(b, q) > slack)
			outside++;
	}
	local_irq_save(flags);
	pm = inl(port) & PM_MASK;
	kvm_ns = kvm_clock.read(&kvm_clock);
	local_irq_restore(flags);
	distance = pm_diff(pm, (u32)mul_u64_u32_div(kvm_ns, PM_HZ, NSEC_PER_SEC));

	pr_emerg("PMPROBE {\"port\":%u,\"pairs\":%u,\"outside\":%u,\"max_ahead\":%ld,\"max_behind\":%ld,\"kvmclock_minus_pm_ns\":%lld}\n",
		 port, pairs, outside, max_ahead, max_behind,
		 div_s64((s64)distance * NSEC_PER_SEC, PM_HZ));
	return -EAGAIN;
}

module_init(pmprobe_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("pvsmm test: reflected PM timer reads against the VMM's");
