// SPDX-License-Identifier: MIT
/*
 * PM1 status/enable/control and the PM timer carry interrupt, all in
 * userspace and never handed to the kernel: pvsmm reflects only the
 * counter *read* (abi.h), so these registers work the same, with no
 * fallback, whichever mode serves the counter.
 *
 * TMR_STS is set whenever bit 23 of the counter toggles.  We compute it
 * lazily from kvmclock -- the counter's own definition -- so a status read
 * is exact without a thread.  The thread exists only for the interrupt:
 * while TMR_EN is set it sleeps until the next toggle (from the same
 * formula) and then drives the SCI (GSI 9, level-triggered):
 *	SCI = (PM1_STS & PM1_EN) != 0
 * which here reduces to TMR_STS && TMR_EN.  A toggle that happened while
 * the thread slept late is still latched: TMR_STS compares epochs, it does
 * not count wake-ups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pm1.h"
#include "acpi.h"
#include "irq.h"
#include "pm_timer.h"
#include "vm_stop.h"

#define PM1_TMR_STS		(1u << 0)
#define PM1_STS_W1C		0x8731u	/* TMR BM GBL PWRBTN SLPBTN RTC WAK */
#define PM1_TMR_EN		(1u << 0)
#define PM1_EN_MASK		0x0721u	/* TMR GBL PWRBTN SLPBTN RTC */
#define PM1_CNT_SCI_EN		(1u << 0)	/* reads 1: ACPI mode always */
#define PM1_CNT_KEEP		0x1c02u	/* BM_RLD, SLP_TYP */
#define PM1_CNT_SLP_TYP_SHIFT	10
#define PM1_CNT_SLP_TYP_MASK	0x7u
#define PM1_CNT_SLP_EN		(1u << 13)	/* write-only */

static uint64_t epoch_of(uint64_t ns)
{
	return pm_timer_total_ticks(ns) >> PM_TIMER_CARRY_SHIFT;
}

/* Latches TMR_STS if bit 23 toggled since we last looked.  Lock held. */
static void latch_tmr(struct pm1 *pm, uint64_t ns)
{
	uint64_t e = epoch_of(ns);

	if (e != pm->tmr_epoch) {
		pm->tmr_sts = true;
		pm->tmr_epoch = e;
	}
}

static void update_sci(struct pm1 *pm)
{
	bool level = pm->tmr_sts && (pm->en & PM1_TMR_EN);

	if (level == pm->sci)
		return;
	pm->sci = level;
	if (level)
		pm->sci_raises++;
	irq_set_line(pm->vm, ACPI_SCI_IRQ, level);
}

static pio_handler_fn pm1_pio;

struct pm1 *pm1_create(struct vm *vm)
{
	struct pm1 *pm = calloc(1, sizeof(*pm));
	pthread_condattr_t attr;

	if (!pm)
		vmm_die(EXIT_SETUP_ERROR, "out of memory");
	pm->vm = vm;
	pthread_mutex_init(&pm->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&pm->wake, &attr);
	pthread_condattr_destroy(&attr);
	pm->tmr_epoch = epoch_of(pm_timer_clock_ns(vm));
	pio_claim(&vm->pio, ACPI_PM1_EVT_PORT, ACPI_PM1_EVT_LEN, pm1_pio, pm,
		  "PM1 event block");
	pio_claim(&vm->pio, ACPI_PM1_CNT_PORT, ACPI_PM1_CNT_LEN, pm1_pio, pm,
		  "PM1 control block");
	return pm;
}

static struct timespec monotonic_in(uint64_t ns_from_now)
{
	uint64_t t = monotonic_ns() + ns_from_now;

	return (struct timespec){ .tv_sec = (time_t)(t / 1000000000ull),
				  .tv_nsec = (long)(t % 1000000000ull) };
}

static void *carry_thread(void *arg)
{
	struct pm1 *pm = arg;

	pthread_mutex_lock(&pm->lock);
	while (!pm->stop) {
		if (!(pm->en & PM1_TMR_EN)) {
			pthread_cond_wait(&pm->wake, &pm->lock);
			continue;
		}
		uint64_t ns = pm_timer_clock_ns(pm->vm);

		latch_tmr(pm, ns);
		update_sci(pm);
		/*
		 * kvmclock and CLOCK_MONOTONIC run at the same rate to well
		 * within a tick over one period (2.34 s); waking a little
		 * early only loops once more.
		 */
		uint64_t next = pm_timer_ns_at_ticks((epoch_of(ns) + 1) <<
						     PM_TIMER_CARRY_SHIFT);
		struct timespec until = monotonic_in(next - ns);

		pthread_cond_timedwait(&pm->wake, &pm->lock, &until);
	}
	pthread_mutex_unlock(&pm->lock);
	return NULL;
}

void pm1_start(struct pm1 *pm)
{
	int err = pthread_create(&pm->thread, NULL, carry_thread, pm);

	if (err)
		vmm_die(EXIT_SETUP_ERROR, "pthread_create: %s", strerror(err));
	pm->thread_started = true;
}

void pm1_stop(struct pm1 *pm)
{
	if (!pm->thread_started)
		return;
	pthread_mutex_lock(&pm->lock);
	pm->stop = true;
	pthread_cond_broadcast(&pm->wake);
	pthread_mutex_unlock(&pm->lock);
	pthread_join(pm->thread, NULL);
	pm->thread_started = false;
}

/* One byte of the 6-byte block PM1_STS, PM1_EN, PM1_CNT.  Lock held. */
static uint8_t read_byte(struct pm1 *pm, unsigned int off)
{
	uint16_t reg;

	switch (off / 2) {
	case 0:
		reg = pm->tmr_sts ? PM1_TMR_STS : 0;
		break;
	case 1:
		reg = pm->en;
		break;
	default:
		reg = pm->cnt | PM1_CNT_SCI_EN;
		break;
	}
	return (uint8_t)(reg >> (8 * (off % 2)));
}

static void sleep_request(struct pm1 *pm, uint16_t value)
{
	unsigned int typ = (value >> PM1_CNT_SLP_TYP_SHIFT) &
			   PM1_CNT_SLP_TYP_MASK;

	if (typ == ACPI_S5_SLP_TYP) {
		vmm_warn("guest powered off (ACPI S5)");
		vm_request_stop(pm->vm, EXIT_GUEST_PASS);
		return;
	}
	/* The DSDT offers only \_S5. */
	vmm_warn("guest asked for sleep type %u, which is not offered: ignored",
		 typ);
}

void pm1_access(struct pm1 *pm, uint16_t port, bool in, uint8_t *data,
		uint8_t size)
{
	/* Offsets in one 6-byte space: 0-1 STS, 2-3 EN, 4-5 CNT. */
	unsigned int base = port >= ACPI_PM1_CNT_PORT ?
		port - ACPI_PM1_CNT_PORT + 4 : port - ACPI_PM1_EVT_PORT;
	uint64_t ns = pm_timer_clock_ns(pm->vm);
	bool cnt_written = false, en_written = false;

	pthread_mutex_lock(&pm->lock);
	latch_tmr(pm, ns);
	for (unsigned int i = 0; i < size; i++) {
		unsigned int off = base + i;

		if (off >= 6) {		/* past the block: nothing there */
			if (in)
				data[i] = 0xff;
			continue;
		}
		if (in) {
			data[i] = read_byte(pm, off);
			continue;
		}
		uint16_t v = (uint16_t)(data[i] << (8 * (off % 2)));
		uint16_t keep = (uint16_t)(0xff00u >> (8 * (off % 2)));

		switch (off / 2) {
		case 0:		/* write 1 to clear */
			if (v & PM1_STS_W1C & PM1_TMR_STS)
				pm->tmr_sts = false;
			break;
		case 1:
			pm->en = (uint16_t)((pm->en & keep) | (v & PM1_EN_MASK));
			en_written = true;
			break;
		default:
			pm->cnt = (uint16_t)((pm->cnt & keep) |
					     (v & PM1_CNT_KEEP));
			cnt_written = true;
			break;
		}
	}
	update_sci(pm);
	if (en_written)
		pthread_cond_broadcast(&pm->wake);
	pthread_mutex_unlock(&pm->lock);

	/* SLP_EN is write-only: act on the value of this very write. */
	if (cnt_written && base + size > 5) {
		uint16_t v = 0;

		for (unsigned int i = 0; i < size; i++)
			if (base + i == 4 || base + i == 5)
				v |= (uint16_t)(data[i] << (8 * (base + i - 4)));
		if (v & PM1_CNT_SLP_EN)
			sleep_request(pm, (uint16_t)((pm->cnt & 0xff) | v));
	}
}

static bool pm1_pio(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
		    uint8_t size, void *ctx)
{
	(void)v;
	pm1_access(ctx, port, in, data, size);
	return true;
}
