/* SPDX-License-Identifier: MIT */
/*
 * A fake KVM for the shim's unit tests: it stands in for real_libc.c
 * (shim_real_ioctl), so the shim's ioctl() wrapper runs as in QEMU, against
 * canned VM and vCPU state, with no /dev/kvm.  Requests it does not fake
 * go to the real system call.
 */
#ifndef PVSMM_FAKE_KVM_H
#define PVSMM_FAKE_KVM_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/kvm.h>

#define FAKE_KVM_FD	1000	/* "/dev/kvm" */
#define FAKE_VM_FD	1001
#define FAKE_RUN_SIZE	4096

struct fake_vcpu {
	int fd;			/* a memfd: the shim maps its run page */
	struct kvm_run *run;	/* the fake's own mapping of it */
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	uint64_t registration;	/* PVSMM_MSR_REGISTER as KVM holds it */
	int register_writes;	/* KVM_SET_MSRS that wrote it */
	/* KVM_RUN: the exits it returns, one per call; then KVM_EXIT_HLT. */
	struct kvm_run exits[4];
	uint32_t out_value[4];	/* what an OUT exit writes (the last element) */
	int nr_exits, runs;
	int immediate_exits;	/* KVM_RUNs left at once (immediate_exit) */
	bool signal_next;	/* the next KVM_RUN runs until a signal: EINTR */
	uint8_t seen_in[4][8];	/* data the shim left for each IN exit */
};

extern int fake_pvsmm_version;	/* KVM_CHECK_EXTENSION(PVSMM_REFLECT) */
extern int fake_stats_fd_requests;	/* KVM_GET_STATS_FD calls */
extern uint64_t fake_clock_ns;	/* KVM_GET_CLOCK */

/* A vCPU whose fd the fake answers for, created with KVM_CREATE_VCPU. */
struct fake_vcpu *fake_vcpu_new(int id);
/* An IN exit for the next KVM_RUN. */
void fake_vcpu_queue_in(struct fake_vcpu *f, uint16_t port, uint8_t size,
			uint32_t count);
/* An OUT of count elements of size bytes, the last one value. */
void fake_vcpu_queue_out(struct fake_vcpu *f, uint16_t port, uint8_t size,
			 uint32_t count, uint32_t value);

#endif
