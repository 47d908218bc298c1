/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_REFLECT_USER_H
#define PVSMM_REFLECT_USER_H

#include "vmm.h"

/*
 * For a PM timer IN exit: reflects it into the registered handler and
 * returns true, or returns false when the read must be served by the
 * userspace PM timer (no registration, or a fallback, counted by reason).
 */
bool reflect_user_enter(struct vcpu *v);
/* Is a private-path reflection running on this vCPU? */
bool reflect_user_in_flight(const struct vcpu *v);
/*
 * The handler's OUT to the return port while one runs: a 32-bit OUT ends
 * the reflection with its value, any other size is a fault report.
 */
void reflect_user_return(struct vcpu *v);

#endif
