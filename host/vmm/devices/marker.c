// SPDX-License-Identifier: MIT
/*
 * Bench markers.  The firmware brackets its timed loop with BEGIN/END
 * OUTs; at each we take a snapshot of the clock and every counter of the
 * vCPU, and the report subtracts them.  The marker exits themselves are
 * left out: BEGIN is counted before its snapshot, and END's own exit is
 * taken back out of its snapshot (stats_snapshot_exclude_current_io).
 */
#include "marker.h"
#include "stats.h"

static void marker_write(struct vcpu *v, uint32_t value, uint8_t size)
{
	unsigned int kind = value >> 16;
	unsigned int who = value & 0xffff;

	if (size != 4) {
		vmm_warn("vCPU %u: %u-byte write to the marker port ignored",
			 v->index, size);
		return;
	}
	if (who != v->index)
		vmm_warn("vCPU %u: marker 0x%x names vCPU %u; using %u",
			 v->index, value, who, v->index);

	switch (kind) {
	case PVSMM_MARK_BENCH_BEGIN:
		stats_snapshot(v, &v->bench_begin);
		v->bench_end.taken = false;
		break;
	case PVSMM_MARK_BENCH_END:
		if (!v->bench_begin.taken) {
			vmm_warn("vCPU %u: bench END without BEGIN", v->index);
			break;
		}
		stats_snapshot(v, &v->bench_end);
		stats_snapshot_exclude_current_io(v, &v->bench_end,
						  &v->bench_begin);
		break;
	default:
		vmm_warn("vCPU %u: unknown marker 0x%x", v->index, value);
		break;
	}
}

static bool marker_pio(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
		       uint8_t size, void *ctx)
{
	(void)port;
	(void)ctx;
	if (in)
		return false;	/* write-only */
	marker_write(v, pio_out_value(data, size), size);
	return true;
}

void marker_register(struct pio_table *t)
{
	pio_claim(t, PVSMM_MARKER_PORT, 1, marker_pio, NULL, "bench marker");
}
