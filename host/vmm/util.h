/* SPDX-License-Identifier: MIT */
/*
 * The VMM's utilities: messages, fatal errors, the monotonic clock.  They
 * depend on nothing else of the VMM, so that every file may use them
 * without reaching up into the VM (tools/check-layers.py checks that).
 */
#ifndef PVSMM_UTIL_H
#define PVSMM_UTIL_H

#include <stdint.h>

#define VMM_NAME		"pvsmm-vmm"

/* Process exit statuses. */
#define EXIT_GUEST_PASS		0	/* debug exit with 0 */
#define EXIT_GUEST_FAIL		1	/* debug exit with non-zero */
#define EXIT_SETUP_ERROR	2	/* arguments, firmware, KVM setup */
#define EXIT_RUNTIME_ERROR	3	/* unexpected exit, triple fault, ... */
#define EXIT_GUEST_RESET	4	/* the guest reset (rebooted) the machine */

/* CLOCK_MONOTONIC in ns. */
uint64_t monotonic_ns(void);
/* "pvsmm-vmm: <message>" on stderr, then exit(status). */
void vmm_die(int status, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));
/* "pvsmm-vmm: <message>" on stderr. */
void vmm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
