// SPDX-License-Identifier: MIT
#include <dlfcn.h>

#include "real_libc.h"

int shim_real_ioctl(int fd, unsigned long req, void *arg)
{
	static int (*real)(int, unsigned long, ...);

	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}

int shim_real_clock_gettime(clockid_t clk, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if (!real)
		real = (int (*)(clockid_t, struct timespec *))
			dlsym(RTLD_NEXT, "clock_gettime");
	return real(clk, ts);
}
