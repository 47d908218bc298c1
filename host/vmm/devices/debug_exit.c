// SPDX-License-Identifier: MIT
#include "debug_exit.h"
#include "vcpu_dump.h"
#include "vm_stop.h"

static void debug_exit_write(struct vcpu *v, uint32_t value)
{
	if (value != 0) {
		vmm_warn("vCPU %u: guest reported failure code %u (0x%x)",
			 v->index, value, value);
		vcpu_dump_state(v);
	}
	vm_request_stop(v->vm, value == 0 ? EXIT_GUEST_PASS : EXIT_GUEST_FAIL);
}

static bool debug_exit_pio(struct vcpu *v, uint16_t port, bool in,
			   uint8_t *data, uint8_t size, void *ctx)
{
	(void)port;
	(void)ctx;
	if (in)
		return false;	/* write-only */
	debug_exit_write(v, pio_out_value(data, size));
	return true;
}

void debug_exit_register(struct pio_table *t)
{
	pio_claim(t, PVSMM_DEBUG_EXIT_PORT, 1, debug_exit_pio, NULL,
		  "debug exit");
}
