/* SPDX-License-Identifier: MIT */
/*
 * The libc functions the shim wraps, as libc has them (RTLD_NEXT).  The
 * shim's own calls to KVM go through here, never through its wrappers;
 * the unit tests link a fake KVM in place of this file.
 */
#ifndef PVSMM_SHIM_REAL_LIBC_H
#define PVSMM_SHIM_REAL_LIBC_H

#include <time.h>

int shim_real_ioctl(int fd, unsigned long req, void *arg);
int shim_real_clock_gettime(clockid_t clk, struct timespec *ts);

#endif
