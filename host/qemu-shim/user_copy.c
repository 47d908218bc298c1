// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "user_copy.h"

bool user_copy(void *dst, const void *src, size_t n)
{
	struct iovec local = { .iov_base = dst, .iov_len = n };
	struct iovec remote = { .iov_base = (void *)src, .iov_len = n };
	ssize_t got;

	if (!n)
		return true;
	if (!src) {
		errno = EFAULT;
		return false;
	}
	/* The kernel checks src for us: no fault reaches this process. */
	got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (got == (ssize_t)n)
		return true;
	if (got < 0 && errno != EFAULT) {
		/* Forbidden here (a seccomp filter): trust the pointer. */
		memcpy(dst, src, n);
		return true;
	}
	errno = EFAULT;
	return false;
}
