/* SPDX-License-Identifier: MIT */
/*
 * libpvsmm-preload.so: pvsmm for a stock QEMU, through LD_PRELOAD.
 * Shared declarations of the shim's pieces:
 *
 *   pvsmm-preload.c  the ioctl() wrapper: which fd is what, enabling the
 *                    capability, resetting the registration with the vCPU
 *   config.c         the PVSMM_* environment variables
 *   cpuid_leaf.c     the pvsmm CPUID leaf added to QEMU's KVM_SET_CPUID2
 *   epoch.c          QEMU's PM timer epoch, copied onto kvmclock
 *   report.c         userspace exits on reflected ports, marker reports
 */
#ifndef PVSMM_SHIM_H
#define PVSMM_SHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/kvm.h>

#define SHIM_MAX_VMS	4
#define SHIM_MAX_VCPUS	256

struct shim_config {
	bool enabled;		/* PVSMM_PORTS set and valid */
	uint16_t first_port;	/* PVSMM_PORTS=FIRST[+COUNT] */
	uint16_t nr_ports;
	uint16_t return_port;	/* PVSMM_RETURN_PORT */
	uint32_t cap_flags;	/* PVSMM_FORCE_EXIT=1 */
	bool reflect;		/* PVSMM_REFLECT (default on) */
	bool epoch;		/* PVSMM_EPOCH (default on) */
	int marker_port;	/* PVSMM_MARKER_PORT, -1 = none */
	bool verbose;		/* PVSMM_VERBOSE=1 */
};

extern struct shim_config shim_cfg;

/* A VM on which QEMU asked KVM_CREATE_VM. */
struct shim_vm {
	int fd;
	int kvm_fd;		/* the /dev/kvm fd it came from */
	bool reflecting;	/* KVM_CAP_PVSMM_REFLECT enabled */
	int run_size;		/* KVM_GET_VCPU_MMAP_SIZE */
};

struct shim_vcpu {
	int fd;
	int id;
	struct shim_vm *vm;
	struct kvm_run *run;	/* our own mapping, for KVM_RUN exits */
};

void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int shim_real_ioctl(int fd, unsigned long req, void *arg);

void config_load(void);

struct shim_vcpu *shim_vcpu_by_fd(int fd);
/* Calls fn on every vCPU of vm, under the shim's lock. */
void shim_for_each_vcpu(struct shim_vm *vm,
			void (*fn)(struct shim_vcpu *, void *), void *opaque);

/* cpuid_leaf.c: QEMU's table plus the pvsmm leaf, or NULL (log says why).
 * The caller frees it. */
struct kvm_cpuid2 *cpuid_with_pvsmm_leaf(const struct kvm_cpuid2 *in);

/* epoch.c */
void epoch_vm_clock_set(struct shim_vm *vm);
void epoch_before_run(struct shim_vcpu *v);
void epoch_after_run(struct shim_vcpu *v);

/* report.c */
void report_after_run(struct shim_vcpu *v);
bool port_is_reflected(uint16_t port);

#endif
