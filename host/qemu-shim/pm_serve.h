/* SPDX-License-Identifier: MIT */
/*
 * One definition of time for the reads the handler does not serve.
 *
 * A PM timer read that still exits to userspace (before the firmware
 * registered, a fallback, a string INS) would reach QEMU's own PM timer,
 * which counts QEMU_CLOCK_VIRTUAL: CLOCK_MONOTONIC, slewed by NTP, while
 * kvmclock (and so the handler) runs at the host's raw rate.  The two
 * drift apart by the host's NTP correction, and a guest that gets its
 * reads from both sees time step back and forth.  So the shim completes
 * such reads itself, with the formula every other mode uses:
 *	ticks = floor(kvmclock_ns * 3579545 / 10^9) mod 2^24
 * (host/vmm/pm_ticks.c, KVM_GET_CLOCK on the VM), and re-enters KVM_RUN
 * without waking QEMU.  Only once epoch.c has lined kvmclock up with
 * QEMU's clock (it learns QEMU's epoch from QEMU's own reads), so the
 * switch from QEMU's values to kvmclock's makes no step either.
 */
#ifndef PVSMM_SHIM_PM_SERVE_H
#define PVSMM_SHIM_PM_SERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "registry.h"

/* count elements of size (1, 2 or 4) bytes: the counter's low bytes. */
void pm_serve_fill(uint8_t *data, uint8_t size, uint32_t count, uint32_t ticks);

/*
 * After a KVM_RUN that returned 0: if it stopped on an IN from the PM
 * timer port (the first of PVSMM_PORTS) of a VM with pvsmm enabled,
 * writes the value into the run page and returns true -- the caller
 * re-enters KVM_RUN, which completes the IN.  Counted (report.h).
 */
bool pm_serve_exit(struct shim_vcpu *v);

#endif
