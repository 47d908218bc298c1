// SPDX-License-Identifier: MIT
/*
 * Legacy PC ports without a device of their own.  Reads of absent
 * hardware float high (0xff), the way a kernel expects an empty bus to
 * look; the few registers that must say something specific do:
 *  - 0x92 reads "A20 on", and bit 0 written = fast reset;
 *  - 0x64 (8042 status) reads 0: no data waiting, input buffer empty, so
 *    a kernel that waits for the controller never spins; 0xfe written =
 *    pulse the reset line (a reboot method Linux tries);
 *  - 0xcf9 (byte writes only) with RST_CPU = reset, the FADT's
 *    RESET_REG; 0xcf8/0xcfc read all-ones: "no PCI configuration
 *    mechanism here", so the kernel gives up on PCI at once.
 * A guest reset ends the VM with EXIT_GUEST_RESET: the VMM does not
 * reboot, and a kernel that panics (panic=N) reboots -- that must not
 * look like a clean poweroff.
 */
#include <string.h>

#include "platform_io.h"
#include "vm_stop.h"

#define POST_PORT		0x80
#define SYSCTL_A_PORT		0x92
#define SYSCTL_A_RESET		0x01
#define SYSCTL_A_A20		0x02
#define I8042_DATA_PORT		0x60
#define I8042_CMD_PORT		0x64
#define I8042_CMD_RESET		0xfe
#define PCI_CONF_FIRST		0xcf8
#define PCI_CONF_LAST		0xcff
#define RESET_CONTROL_PORT	0xcf9
#define RESET_CONTROL_RST_CPU	0x04

static void guest_reset(struct vcpu *v, const char *how)
{
	vmm_warn("vCPU %u: guest reset (%s); stopping the VM", v->index, how);
	vm_request_stop(v->vm, EXIT_GUEST_RESET);
}

static bool platform_io_pio(struct vcpu *v, uint16_t port, bool in,
			    uint8_t *data, uint8_t size, void *ctx)
{
	(void)ctx;
	switch (port) {
	case POST_PORT:
		if (in)
			memset(data, 0xff, size);
		return true;	/* I/O delay writes: nothing to do */
	case SYSCTL_A_PORT:
		if (in) {
			memset(data, 0xff, size);
			data[0] = SYSCTL_A_A20;
		} else if (data[0] & SYSCTL_A_RESET) {
			guest_reset(v, "port 0x92");
		}
		return true;
	case I8042_DATA_PORT:
	case I8042_CMD_PORT:
		if (in)
			memset(data, port == I8042_CMD_PORT ? 0 : 0xff, size);
		else if (port == I8042_CMD_PORT && data[0] == I8042_CMD_RESET)
			guest_reset(v, "8042 reset line");
		return true;
	}
	if (port == RESET_CONTROL_PORT && size == 1 && !in) {
		if (data[0] & RESET_CONTROL_RST_CPU)
			guest_reset(v, "reset control register 0xcf9");
		return true;
	}
	if (in)
		memset(data, 0xff, size);
	return true;
}

void platform_io_register(struct pio_table *t)
{
	pio_claim(t, POST_PORT, 1, platform_io_pio, NULL, "POST");
	pio_claim(t, SYSCTL_A_PORT, 1, platform_io_pio, NULL,
		  "system control A");
	pio_claim(t, I8042_DATA_PORT, 1, platform_io_pio, NULL, "8042 data");
	pio_claim(t, I8042_CMD_PORT, 1, platform_io_pio, NULL, "8042 command");
	pio_claim(t, PCI_CONF_FIRST, PCI_CONF_LAST - PCI_CONF_FIRST + 1,
		  platform_io_pio, NULL, "PCI configuration, reset control");
}
