/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SHIM_USER_COPY_H
#define PVSMM_SHIM_USER_COPY_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Copies n bytes from src, a pointer QEMU handed to ioctl(), as the
 * kernel's copy_from_user would: false with errno EFAULT when src is not
 * readable, where a plain memcpy would crash QEMU instead of letting the
 * ioctl fail.
 */
bool user_copy(void *dst, const void *src, size_t n);

#endif
