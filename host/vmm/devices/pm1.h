/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PM1_H
#define PVSMM_PM1_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct vm;

/*
 * The ACPI PM1a event and control blocks (FADT PM1a_EVT_BLK, 4 bytes:
 * PM1_STS, PM1_EN; PM1a_CNT_BLK, 2 bytes), in userspace in every mode.
 * TMR_STS follows the same kvmclock-derived counter as the PM timer
 * register, so it agrees with what every mode's counter reads return.
 */
struct pm1 {
	struct vm *vm;
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* TMR_EN changed, or stop */
	pthread_t thread;
	bool thread_started;
	bool stop;

	bool tmr_sts;			/* latched TMR_STS */
	uint64_t tmr_epoch;		/* total_ticks >> 23 when last looked */
	uint16_t en;			/* PM1_EN */
	uint16_t cnt;			/* PM1_CNT, the bits that read back */
	bool sci;			/* SCI line level driven now */
	uint64_t sci_raises;		/* rising edges, for the report */
};

/* The PM1 block of vm, its ports claimed in vm's port map. */
struct pm1 *pm1_create(struct vm *vm);
/* The carry-interrupt thread; call once the vCPU threads may run. */
void pm1_start(struct pm1 *pm);
void pm1_stop(struct pm1 *pm);

/* Ports ACPI_PM1_EVT_PORT..+3 and ACPI_PM1_CNT_PORT..+1, any thread. */
void pm1_access(struct pm1 *pm, uint16_t port, bool in, uint8_t *data,
		uint8_t size);

#endif
