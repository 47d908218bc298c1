/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SERIAL_H
#define PVSMM_SERIAL_H

#include <stdbool.h>
#include <stdint.h>

/* COM1 register access, offset 0..7 from PVSMM_SERIAL_PORT. */
void serial_access(uint16_t offset, bool in, uint8_t *data, uint8_t size);
/* Writes out a pending partial line, ending it with a newline. */
void serial_flush(void);

#endif
