/* SPDX-License-Identifier: MIT */
/*
 * Which file descriptor is what: the VMs QEMU created (KVM_CREATE_VM)
 * and their vCPUs (KVM_CREATE_VCPU).  Entries are never removed, so a
 * pointer to one stays valid for the life of the process.
 */
#ifndef PVSMM_SHIM_REGISTRY_H
#define PVSMM_SHIM_REGISTRY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/kvm.h>

#include "kvm_stats.h"

#define SHIM_MAX_VMS	4
#define SHIM_MAX_VCPUS	256

struct shim_vm {
	int fd;
	int kvm_fd;		/* the /dev/kvm fd it came from */
	bool reflecting;	/* KVM_CAP_PVSMM_REFLECT enabled */
	int run_size;		/* KVM_GET_VCPU_MMAP_SIZE */
	atomic_int s3;		/* how far a suspend went (s3_resume.c) */
	atomic_int s3_vcpu;	/* the vCPU that asked for it */
};

struct shim_vcpu {
	int fd;
	int id;
	struct shim_vm *vm;
	struct kvm_run *run;	/* our own mapping, for KVM_RUN exits */
	/*
	 * KVM's binary stats of this vCPU, for the marks (report.c); fd -1
	 * if none.  Opened when the vCPU is created: KVM_GET_STATS_FD takes
	 * the vCPU's mutex, which a vCPU thread holds inside KVM_RUN for as
	 * long as its vCPU sleeps (one never started by SIPI: forever), but
	 * reading an open stats fd takes no lock.
	 */
	struct kvm_stats_reader stats;
};

/* NULL when the table is full. */
struct shim_vm *registry_add_vm(int fd, int kvm_fd);
struct shim_vcpu *registry_add_vcpu(struct shim_vm *vm, int fd, int id);

struct shim_vm *shim_vm_by_fd(int fd);
struct shim_vcpu *shim_vcpu_by_fd(int fd);
/* Calls fn on every vCPU of vm, under the registry's lock. */
void shim_for_each_vcpu(struct shim_vm *vm,
			void (*fn)(struct shim_vcpu *, void *), void *opaque);

#endif
