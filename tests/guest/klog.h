/* SPDX-License-Identifier: MIT */
#ifndef GTOD_KLOG_H
#define GTOD_KLOG_H

#include <stdbool.h>

struct klog_result {
	bool read_ok;		/* the kernel log could be read at all */
	bool marked_unstable;	/* the watchdog marked `name` unstable */
	bool override_refused;	/* clocksource= override refused/deferred */
	char last_switch[32];	/* last "Switched to clocksource X", or "" */
	char pm_note[160];	/* last "PM-Timer ..." complaint, or "" */
};

/* Scans the kernel log for what happened to clocksource `name`. */
void klog_scan(const char *name, struct klog_result *out);

#endif
