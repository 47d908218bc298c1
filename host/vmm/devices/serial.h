/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SERIAL_H
#define PVSMM_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pio_table.h"

#define SERIAL_IRQ	4	/* COM1's ISA IRQ */

/*
 * Connects the UART's interrupt output; set_irq(ctx, level) is called
 * (with the UART's lock held) whenever the line changes.  Without it the
 * UART works polled only, as the firmware uses it.
 */
void serial_connect_irq(void (*set_irq)(void *ctx, bool level), void *ctx);
/* COM1 register access, offset 0..7 from PVSMM_SERIAL_PORT. */
void serial_access(uint16_t offset, bool in, uint8_t *data, uint8_t size);
/* Claims PVSMM_SERIAL_PORT..+7 in the port map. */
void serial_register(struct pio_table *t);
/* Writes out a pending partial line, ending it with a newline. */
void serial_flush(void);

#endif
