/* SPDX-License-Identifier: MIT */
/*
 * The VMM's port map, after kvmtool's kvm__register_pio: each device
 * registers the ports it owns as {first, count, handler, ctx}, and an I/O
 * exit is dispatched to the one range that holds its port.  Ranges never
 * overlap (pio_register refuses), so the order of registration does not
 * matter and a port has exactly one owner.
 *
 * No KVM, no struct vm: it is unit-tested on its own.
 */
#ifndef PVSMM_PIO_TABLE_H
#define PVSMM_PIO_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct vcpu;

/*
 * One element of a port access (a string INS/OUTS comes as several):
 * size bytes at data, read into (in) or written from.  Returns false
 * when nothing answers this access on this port (e.g. an IN from a
 * write-only port); the exit handler then counts it as unknown and, for
 * an IN, lets the bus float high.
 */
typedef bool pio_handler_fn(struct vcpu *v, uint16_t port, bool in,
			    uint8_t *data, uint8_t size, void *ctx);

/* The value of a 1, 2 or 4-byte OUT (x86 is little-endian). */
static inline uint32_t pio_out_value(const uint8_t *data, uint8_t size)
{
	uint32_t v = 0;

	memcpy(&v, data, size < 4 ? size : 4);
	return v;
}

struct pio_range {
	uint16_t first;
	uint16_t count;
	pio_handler_fn *handler;
	void *ctx;
	const char *name;	/* for the overlap message */
};

#define PIO_MAX_RANGES	32

struct pio_table {
	struct pio_range ranges[PIO_MAX_RANGES];
	unsigned int nr;
};

/*
 * Adds [first, first + count) with its handler.  Fails (false) when the
 * range is empty, runs past port 0xffff, overlaps a registered one (then
 * *clash names it) or the table is full.
 */
bool pio_register(struct pio_table *t, uint16_t first, uint16_t count,
		  pio_handler_fn *handler, void *ctx, const char *name,
		  const struct pio_range **clash);

/* pio_register, or a setup error (EXIT_SETUP_ERROR) that says why. */
void pio_claim(struct pio_table *t, uint16_t first, uint16_t count,
	       pio_handler_fn *handler, void *ctx, const char *name);

/* The range that holds port, or NULL. */
const struct pio_range *pio_find(const struct pio_table *t, uint16_t port);

#endif
