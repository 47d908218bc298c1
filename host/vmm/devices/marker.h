/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_MARKER_H
#define PVSMM_MARKER_H

#include "vmm.h"

/* OUT to PVSMM_MARKER_PORT: PVSMM_MARK_* << 16 | vCPU index. */
void marker_write(struct vcpu *v, uint32_t value, uint8_t size);

#endif
