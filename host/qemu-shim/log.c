// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "log.h"

void shim_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* One write: lines from several vCPU threads do not interleave. */
	if (write(STDERR_FILENO, "pvsmm-preload: ", 15) < 0 ||
	    write(STDERR_FILENO, buf, n) < 0)
		return;
}
