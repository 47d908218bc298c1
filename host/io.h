/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_IO_H
#define PVSMM_IO_H

#include "vmm.h"

/* Handles a KVM_EXIT_IO: reflection, the handler's return or a port device. */
void io_handle_exit(struct vcpu *v);

#endif
