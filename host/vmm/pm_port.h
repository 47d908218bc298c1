/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_PM_PORT_H
#define PVSMM_PM_PORT_H

#include "vmm.h"

/*
 * Claims the two ports pvsmm is about, for the VM's mode:
 *  - the PM timer counter port (--pm-port): in reflect-user mode a
 *    single IN is reflected into the guest's registered handler when it
 *    can be; every other read (any other mode, no registration, a
 *    fallback, a string INS) is served by the userspace PM timer
 *    (devices/pm_timer.c);
 *  - the handler's return port: its OUT ends a generic reflection; with
 *    none pending it is ignored, as KVM's own reflect mode leaves it.
 */
void pm_port_register(struct vm *vm);

#endif
