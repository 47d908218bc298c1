// SPDX-License-Identifier: MIT
/*
 * A minimal MC146818 CMOS/RTC: enough for a kernel's RTC driver and
 * hwclock to read a valid date.  The time registers read the host's UTC
 * time (BCD unless the guest sets the binary bit in register B); writes
 * to them are ignored.  Status: A = 32.768 kHz divider, no update in
 * progress; B = 24-hour mode; C = no interrupt flags; D = valid RAM.  The
 * remaining bytes are plain RAM.  No interrupts (IRQ 8 never fires).
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "cmos.h"

#define REG_SEC		0x00
#define REG_MIN		0x02
#define REG_HOUR	0x04
#define REG_WDAY	0x06
#define REG_MDAY	0x07
#define REG_MON		0x08
#define REG_YEAR	0x09
#define REG_A		0x0a
#define REG_B		0x0b
#define REG_C		0x0c
#define REG_D		0x0d
#define REG_CENTURY	0x32	/* FADT.CENTURY (acpi.c) */

#define A_DIVIDER	0x26	/* 32.768 kHz, 1024 Hz rate; UIP clear */
#define B_24H		0x02
#define B_BINARY	0x04
#define D_VRT		0x80	/* valid RAM and time */

static struct {
	pthread_mutex_t lock;
	uint8_t index;
	uint8_t ram[128];
} cmos = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ram = { [REG_A] = A_DIVIDER, [REG_B] = B_24H, [REG_D] = D_VRT },
};

static uint8_t encode(unsigned int v)
{
	if (cmos.ram[REG_B] & B_BINARY)
		return (uint8_t)v;
	return (uint8_t)(((v / 10) << 4) | (v % 10));
}

static uint8_t read_reg(uint8_t reg)
{
	time_t now = time(NULL);
	struct tm tm;

	if (reg > REG_YEAR && reg != REG_CENTURY)
		return reg == REG_C ? 0 : cmos.ram[reg];
	gmtime_r(&now, &tm);
	switch (reg) {
	case REG_SEC:
		return encode((unsigned int)tm.tm_sec);
	case REG_MIN:
		return encode((unsigned int)tm.tm_min);
	case REG_HOUR:
		return encode((unsigned int)tm.tm_hour);
	case REG_WDAY:
		return encode((unsigned int)tm.tm_wday + 1);
	case REG_MDAY:
		return encode((unsigned int)tm.tm_mday);
	case REG_MON:
		return encode((unsigned int)tm.tm_mon + 1);
	case REG_YEAR:
		return encode((unsigned int)tm.tm_year % 100);
	case REG_CENTURY:
		return encode((unsigned int)(tm.tm_year + 1900) / 100);
	default:		/* alarm registers */
		return cmos.ram[reg];
	}
}

static void write_reg(uint8_t reg, uint8_t value)
{
	switch (reg) {
	case REG_A:		/* keep UIP (bit 7) clear: it is read-only */
		cmos.ram[reg] = value & 0x7f;
		break;
	case REG_B:
		cmos.ram[reg] = value;
		break;
	case REG_C:
	case REG_D:		/* read-only */
		break;
	default:
		if (reg > REG_YEAR && reg != REG_CENTURY)
			cmos.ram[reg] = value;
		break;		/* the clock itself is the host's */
	}
}

void cmos_access(uint16_t port, bool in, uint8_t *data, uint8_t size)
{
	pthread_mutex_lock(&cmos.lock);
	if (port == CMOS_INDEX_PORT) {
		if (in)
			data[0] = 0xff;	/* the index port is write-only */
		else
			cmos.index = data[0] & 0x7f;
	} else if (in) {
		data[0] = read_reg(cmos.index);
	} else {
		write_reg(cmos.index, data[0]);
	}
	if (in && size > 1)
		memset(data + 1, 0xff, size - 1u);
	pthread_mutex_unlock(&cmos.lock);
}

static bool cmos_pio(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
		     uint8_t size, void *ctx)
{
	(void)v;
	(void)ctx;
	cmos_access(port, in, data, size);
	return true;
}

void cmos_register(struct pio_table *t)
{
	pio_claim(t, CMOS_INDEX_PORT, 2, cmos_pio, NULL, "CMOS");
}
