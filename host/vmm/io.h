/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_IO_H
#define PVSMM_IO_H

#include "vmm.h"

/*
 * Handles a KVM_EXIT_IO: counts it by port, then hands each element to
 * the port's owner.  Nothing there: reads float high, writes vanish,
 * both counted as unknown_io.
 */
void io_handle_exit(struct vcpu *v);

#endif
