// SPDX-License-Identifier: MIT
#include <stddef.h>

#include "pio_table.h"
#include "util.h"

static bool overlaps(const struct pio_range *r, uint32_t first, uint32_t end)
{
	return first < (uint32_t)r->first + r->count && r->first < end;
}

bool pio_register(struct pio_table *t, uint16_t first, uint16_t count,
		  pio_handler_fn *handler, void *ctx, const char *name,
		  const struct pio_range **clash)
{
	uint32_t end = (uint32_t)first + count;

	if (clash)
		*clash = NULL;
	if (!count || end > 0x10000 || !handler || t->nr == PIO_MAX_RANGES)
		return false;
	for (unsigned int i = 0; i < t->nr; i++) {
		if (overlaps(&t->ranges[i], first, end)) {
			if (clash)
				*clash = &t->ranges[i];
			return false;
		}
	}
	t->ranges[t->nr++] = (struct pio_range){
		.first = first, .count = count, .handler = handler,
		.ctx = ctx, .name = name,
	};
	return true;
}

void pio_claim(struct pio_table *t, uint16_t first, uint16_t count,
	       pio_handler_fn *handler, void *ctx, const char *name)
{
	const struct pio_range *clash;

	if (pio_register(t, first, count, handler, ctx, name, &clash))
		return;
	if (clash)
		vmm_die(EXIT_SETUP_ERROR,
			"ports 0x%x+%u (%s) overlap 0x%x+%u (%s)", first,
			count, name, clash->first, clash->count, clash->name);
	vmm_die(EXIT_SETUP_ERROR, "cannot register ports 0x%x+%u (%s)",
		first, count, name);
}

/*
 * A linear search: a PC has a dozen ranges here, fewer than an rb-tree
 * would save, and the hottest (the PM timer) is registered first.
 */
const struct pio_range *pio_find(const struct pio_table *t, uint16_t port)
{
	for (unsigned int i = 0; i < t->nr; i++) {
		const struct pio_range *r = &t->ranges[i];

		if ((uint16_t)(port - r->first) < r->count)
			return r;
	}
	return NULL;
}
