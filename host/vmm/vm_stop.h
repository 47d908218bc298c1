/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_VM_STOP_H
#define PVSMM_VM_STOP_H

#include <signal.h>

#include "vmm.h"

/*
 * The signal that kicks a vCPU thread out of KVM_RUN; vcpu.c installs
 * its handler (which sets immediate_exit).
 */
#define VCPU_KICK_SIGNAL	SIGUSR1

/*
 * Stops every vCPU; the first caller's status becomes the exit status.
 * Any thread may call it, devices included: it only sets flags and
 * signals the vCPU threads, so it needs nothing above this level.
 */
void vm_request_stop(struct vm *vm, int status);

#endif
