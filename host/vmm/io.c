// SPDX-License-Identifier: MIT
/* Port I/O exits: accounting, then dispatch through the VM's port map. */
#include <string.h>

#include "io.h"
#include "stats.h"

void io_handle_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	bool in = run->io.direction == KVM_EXIT_IO_IN;
	uint16_t port = run->io.port;
	uint8_t size = run->io.size;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	/*
	 * Read before any handler runs: a reflection re-enters KVM_RUN to
	 * complete the exit, and the run page is KVM's again after that.
	 */
	uint32_t count = run->io.count;
	const struct pio_range *r = pio_find(&v->vm->pio, port);

	stats_count_port(v, port);

	/* String I/O (INS/OUTS) comes as count elements of size bytes. */
	for (uint32_t i = 0; i < count; i++) {
		uint8_t *element = data + (size_t)i * size;

		if (r && r->handler(v, port, in, element, size, r->ctx))
			continue;
		v->counters.unknown_io++;
		if (in)
			memset(element, 0xff, size);
	}
}
