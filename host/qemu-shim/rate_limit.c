// SPDX-License-Identifier: MIT
#include <stddef.h>

#include "rate_limit.h"

bool rate_limit_allow(struct rate_limit *rl, uint64_t now_ns, uint64_t *missed)
{
	if (!rl->started || now_ns - rl->begin_ns >= rl->interval_ns) {
		rl->started = true;
		rl->begin_ns = now_ns;
		rl->allowed = 0;
	}
	if (rl->allowed >= rl->burst) {
		rl->missed++;
		return false;
	}
	rl->allowed++;
	if (missed)
		*missed = rl->missed;
	rl->missed = 0;
	return true;
}
