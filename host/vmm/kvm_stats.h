/* SPDX-License-Identifier: MIT */
/*
 * Reader for KVM's binary statistics (KVM_GET_STATS_FD on a vCPU fd).
 * Only the stats we report are kept: "exits", "io_exits" and every stat
 * whose name starts with "pvsmm_" (the patched KVM's counters), so new
 * pvsmm counters show up in the report without a VMM change.
 */
#ifndef PVSMM_KVM_STATS_H
#define PVSMM_KVM_STATS_H

#include <stdbool.h>
#include <stdint.h>

/* Room for exits, io_exits and every pvsmm_ counter of the series (20). */
#define KVM_STATS_MAX		48
#define KVM_STATS_NAME_MAX	48

struct kvm_stats_reader {
	int fd;				/* -1: stats unavailable */
	unsigned int count;
	char names[KVM_STATS_MAX][KVM_STATS_NAME_MAX];
	uint64_t file_offsets[KVM_STATS_MAX];
	int exits_slot;			/* index of "exits", or -1 */
	int io_exits_slot;		/* index of "io_exits", or -1 */
};

/* Opens the stats fd of a vCPU; false (and fd -1) if KVM has none. */
bool kvm_stats_open(struct kvm_stats_reader *r, int vcpu_fd);
/* Reads the current values into values[0..count). */
bool kvm_stats_read(const struct kvm_stats_reader *r, uint64_t *values);
void kvm_stats_close(struct kvm_stats_reader *r);

#endif
