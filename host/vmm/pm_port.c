// SPDX-License-Identifier: MIT
#include "pm_port.h"
#include "pm_timer.h"
#include "reflect_user.h"

static bool reflect_or_serve(struct vcpu *v, uint16_t port, bool in,
			     uint8_t *data, uint8_t size, void *ctx)
{
	if (in && v->run->io.count == 1 && reflect_user_enter(v))
		return true;
	return pm_timer_pio(v, port, in, data, size, ctx);
}

static bool return_port_pio(struct vcpu *v, uint16_t port, bool in,
			    uint8_t *data, uint8_t size, void *ctx)
{
	(void)port;
	(void)data;
	(void)ctx;
	(void)size;
	if (in)
		return false;	/* nothing to read there */
	/* A 32-bit OUT returns a value, any other size reports a fault:
	 * reflect_user_return tells them apart. */
	if (v->run->io.count == 1 && reflect_user_in_flight(v))
		reflect_user_return(v);
	return true;
}

void pm_port_register(struct vm *vm)
{
	const struct vmm_options *o = vm->opts;

	pio_claim(&vm->pio, o->pm_port, 1,
		  o->mode == PMTIMER_REFLECT_USER ? reflect_or_serve :
						    pm_timer_pio,
		  vm, "PM timer");
	pio_claim(&vm->pio, PVSMM_DEFAULT_RETURN_PORT, 1, return_port_pio,
		  NULL, "pvsmm return port");
}
