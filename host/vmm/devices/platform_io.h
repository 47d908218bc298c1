/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PLATFORM_IO_H
#define PVSMM_PLATFORM_IO_H

#include "vmm.h"

/*
 * The small legacy ports a PC kernel pokes: the POST/delay port 0x80,
 * system control port A (0x92), an 8042 with nothing attached (0x60,
 * 0x64), PCI configuration 0xcf8-0xcff with no PCI behind it, and the
 * reset control register 0xcf9.  True if the port is one of them.
 */
bool platform_io_access(struct vcpu *v, uint16_t port, bool in,
			uint8_t *data, uint8_t size);

#endif
