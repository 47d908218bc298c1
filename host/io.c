// SPDX-License-Identifier: MIT
/* Port I/O dispatch: the VMM's small port map. */
#include <string.h>

#include "io.h"
#include "cmos.h"
#include "debug_exit.h"
#include "platform_io.h"
#include "marker.h"
#include "pm_timer.h"
#include "reflect_user.h"
#include "serial.h"
#include "stats.h"

static uint32_t io_value(const uint8_t *data, uint8_t size)
{
	uint32_t v = 0;

	memcpy(&v, data, size);	/* x86 is little-endian */
	return v;
}

static void port_access(struct vcpu *v, uint16_t port, uint8_t size,
			bool in, uint8_t *data)
{
	const struct vmm_options *o = v->vm->opts;

	if (port >= PVSMM_SERIAL_PORT && port < PVSMM_SERIAL_PORT + 8) {
		serial_access(port - PVSMM_SERIAL_PORT, in, data, size);
		return;
	}
	if (port == o->pm_port) {
		if (in) {
			pm_timer_read(v->vm, data, size);
			v->counters.pm_user_reads++;
		}
		return;		/* the counter register is read-only */
	}
	if (port == PVSMM_DEBUG_EXIT_PORT && !in) {
		debug_exit_write(v, io_value(data, size));
		return;
	}
	if (port == PVSMM_MARKER_PORT && !in) {
		marker_write(v, io_value(data, size), size);
		return;
	}
	if (port == PVSMM_DEFAULT_RETURN_PORT && !in)
		return;		/* a return with no reflection pending */
	if (pm1_owns_port(port)) {
		pm1_access(&v->vm->pm1, port, in, data, size);
		return;
	}
	if (port == CMOS_INDEX_PORT || port == CMOS_DATA_PORT) {
		cmos_access(port, in, data, size);
		return;
	}
	if (platform_io_access(v, port, in, data, size))
		return;

	/* Nothing there: reads float high, writes vanish. */
	v->counters.unknown_io++;
	if (in)
		memset(data, 0xff, size);
}

void io_handle_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	bool in = run->io.direction == KVM_EXIT_IO_IN;
	uint16_t port = run->io.port;
	uint8_t size = run->io.size;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;

	stats_count_port(v, port);

	if (v->vm->opts->mode == PMTIMER_REFLECT_USER) {
		if (in && port == v->vm->opts->pm_port && run->io.count == 1 &&
		    reflect_user_enter(v))
			return;
		if (!in && port == PVSMM_DEFAULT_RETURN_PORT &&
		    run->io.count == 1 && reflect_user_in_flight(v)) {
			reflect_user_return(v);
			return;
		}
	}

	/* String I/O (INS/OUTS) comes as count elements of size bytes. */
	for (uint32_t i = 0; i < run->io.count; i++)
		port_access(v, port, size, in, data + (size_t)i * size);
}
