// SPDX-License-Identifier: MIT
/*
 * The kernel's own verdict on the clocksource, from its log (klogctl, the
 * syscall behind dmesg; the whole ring buffer of a fresh boot fits).
 *
 * What Linux 6.1 prints (kernel/time/clocksource.c):
 *  - the watchdog: "timekeeping watchdog on CPU%d: Marking clocksource
 *    '%s' as unstable because the skew is too large", or "... read-back
 *    delay of %lldns, attempt %d, marking unstable";
 *  - clocksource_select(): "Switched to clocksource %s" at every change,
 *    and "Override clocksource %s is unstable and not HRT compatible" /
 *    "... is not currently HRT compatible - deferring" when the
 *    clocksource= choice cannot be used.
 * acpi_pm is not itself watched in 6.1 (it lacks CLOCK_SOURCE_MUST_VERIFY),
 * so the last switch message is what tells whether it stayed in charge.
 * Before registering acpi_pm at all, drivers/clocksource/acpi_pm.c checks
 * that the counter advances at the right rate and never goes back; when
 * it refuses, its "PM-Timer ... - aborting" line says why.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "klog.h"

#define SYSLOG_ACTION_READ_ALL	3
#define SYSLOG_ACTION_SIZE_BUFFER 10

static void scan_line(const char *line, const char *name,
		      struct klog_result *out)
{
	char marking[96];
	const char *p;

	snprintf(marking, sizeof(marking),
		 "Marking clocksource '%s' as unstable", name);
	if (strstr(line, marking) ||
	    (strstr(line, "timekeeping watchdog") && strstr(line, name) &&
	     strstr(line, "marking unstable")))
		out->marked_unstable = true;
	if (strstr(line, "Override clocksource") && strstr(line, name))
		out->override_refused = true;
	p = strstr(line, "PM-Timer");
	if (p) {
		/* Kept JSON-safe: the caller prints it inside quotes. */
		size_t n = 0;

		for (; p[n] && n + 1 < sizeof(out->pm_note); n++)
			out->pm_note[n] = (p[n] == '"' || p[n] == '\\' ||
					   (unsigned char)p[n] < 0x20) ? '\'' : p[n];
		out->pm_note[n] = '\0';
	}
	p = strstr(line, "Switched to clocksource ");
	if (p) {
		p += strlen("Switched to clocksource ");
		size_t n = strcspn(p, " \n");

		if (n >= sizeof(out->last_switch))
			n = sizeof(out->last_switch) - 1;
		memcpy(out->last_switch, p, n);
		out->last_switch[n] = '\0';
	}
}

void klog_scan(const char *name, struct klog_result *out)
{
	memset(out, 0, sizeof(*out));
	int size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);

	if (size <= 0)
		return;
	char *buf = malloc((size_t)size + 1);
	if (!buf)
		return;
	int n = klogctl(SYSLOG_ACTION_READ_ALL, buf, size);
	if (n < 0) {
		free(buf);
		return;
	}
	buf[n] = '\0';
	out->read_ok = true;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		scan_line(line, name, out);
	free(buf);
}
