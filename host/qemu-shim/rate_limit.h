/* SPDX-License-Identifier: MIT */
/*
 * At most burst events per interval, as the kernel's printk_ratelimit:
 * a guest that writes the marker port in a loop must not flood QEMU's
 * stderr (and the log behind it).  Not locked: the caller serialises.
 */
#ifndef PVSMM_SHIM_RATE_LIMIT_H
#define PVSMM_SHIM_RATE_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct rate_limit {
	uint64_t interval_ns;
	unsigned int burst;
	/* state */
	bool started;
	uint64_t begin_ns;	/* start of the current interval */
	unsigned int allowed;	/* events allowed in it */
	uint64_t missed;	/* events refused since the last allowed one */
};

#define RATE_LIMIT_INIT(interval, n) { .interval_ns = (interval), .burst = (n) }

/*
 * True if an event at now_ns may be reported; then *missed (if not
 * NULL) is how many were refused since the last one that was.
 */
bool rate_limit_allow(struct rate_limit *rl, uint64_t now_ns, uint64_t *missed);

#endif
