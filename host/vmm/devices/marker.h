/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_MARKER_H
#define PVSMM_MARKER_H

#include "vmm.h"

/*
 * PVSMM_MARKER_PORT, write-only: a 4-byte OUT of PVSMM_MARK_* << 16 |
 * vCPU index brackets the firmware's bench loop.
 */
void marker_register(struct pio_table *t);

#endif
