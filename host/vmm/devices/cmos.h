/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_CMOS_H
#define PVSMM_CMOS_H

#include <stdbool.h>
#include <stdint.h>

#include "pio_table.h"

#define CMOS_INDEX_PORT		0x70
#define CMOS_DATA_PORT		0x71

/* Ports 0x70 (index, bit 7 = NMI mask) and 0x71 (data). */
void cmos_access(uint16_t port, bool in, uint8_t *data, uint8_t size);
/* Claims both ports in the port map. */
void cmos_register(struct pio_table *t);

#endif
