/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PLATFORM_IO_H
#define PVSMM_PLATFORM_IO_H

#include "vmm.h"

/*
 * The small legacy ports a PC kernel pokes: the POST/delay port 0x80,
 * system control port A (0x92), an 8042 with nothing attached (0x60,
 * 0x64), PCI configuration 0xcf8-0xcff with no PCI behind it, and the
 * reset control register 0xcf9.  Claims them all in the port map.
 */
void platform_io_register(struct pio_table *t);

#endif
