/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_DESCRIPTOR_H
#define PVSMM_DESCRIPTOR_H

#include <stdint.h>
#include "pvsmm/abi.h"

/*
 * Validates a registration descriptor (the host's own copy) against a VM
 * whose RAM is [0, ram_size) and that has online_vcpus vCPUs.  Returns a
 * PVSMM_STATUS_* value; PVSMM_STATUS_OK means the host may use it.
 * Pure: no I/O, no global state.
 */
int pvsmm_validate_descriptor(const struct pvsmm_descriptor *d,
			      uint64_t ram_size, unsigned int online_vcpus);

#endif
