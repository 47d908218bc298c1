/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SHIM_EPOCH_H
#define PVSMM_SHIM_EPOCH_H

#include <stdbool.h>

#include "registry.h"

/* QEMU set kvmclock (KVM_SET_CLOCK on the VM). */
void epoch_vm_clock_set(struct shim_vm *vm);
/* Around each KVM_RUN of a vCPU thread: QEMU's PM timer reads. */
void epoch_before_run(struct shim_vcpu *v);
void epoch_after_run(struct shim_vcpu *v);
/*
 * kvmclock and QEMU's PM timer are lined up, or never will be (disabled,
 * given up): QEMU's own PM timer reads are no longer needed for it.
 */
bool epoch_settled(void);
/*
 * QEMU loaded a running guest (incoming migration, loadvm): kvmclock is
 * the guest's own, restored with it, and the guest has been reading it;
 * stepping it now to QEMU's clock would step the guest's time.  Settles
 * the epoch as it is.
 */
void epoch_incoming(void);

#endif
