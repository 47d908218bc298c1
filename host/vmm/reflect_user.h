/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_REFLECT_USER_H
#define PVSMM_REFLECT_USER_H

#include "vmm.h"

/*
 * For a PM timer IN exit: reflects it into the registered handler and
 * returns true, or returns false when the read must be served by the
 * userspace PM timer (no registration, or a fallback, which is counted).
 */
bool reflect_user_enter(struct vcpu *v);
/* The handler's OUT to the return port ends a generic reflection. */
void reflect_user_return(struct vcpu *v);

#endif
