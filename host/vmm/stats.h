/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_STATS_H
#define PVSMM_STATS_H

#include <stdio.h>
#include "vmm.h"

void stats_count_exit(struct vcpu *v, uint32_t reason);
void stats_count_port(struct vcpu *v, uint16_t port);
/* Clock, the VMM's counters and KVM's binary stats of this vCPU. */
void stats_snapshot(struct vcpu *v, struct vcpu_snapshot *s);
/* Takes the I/O exit being handled back out of a snapshot taken after
 * the snapshot since. */
void stats_snapshot_exclude_current_io(struct vcpu *v,
				       struct vcpu_snapshot *s,
				       const struct vcpu_snapshot *since);
/*
 * Prints the human summary to stderr and the PVSMM-STATS line to stdout,
 * and the same JSON to stats_file if not NULL.
 */
void stats_report(struct vm *vm, int exit_code, FILE *stats_file);

#endif
