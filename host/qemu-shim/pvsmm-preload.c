// SPDX-License-Identifier: MIT
/*
 * libpvsmm-preload.so -- enables pvsmm in a stock QEMU, without rebuilding
 * it:  LD_PRELOAD=libpvsmm-preload.so PVSMM_PORTS=0x608 qemu-system-x86_64 ...
 *
 * It wraps ioctl() and follows QEMU's KVM calls:
 *
 *  - KVM_CREATE_VM: on the new VM fd, KVM_ENABLE_CAP(KVM_CAP_PVSMM_REFLECT,
 *    {port, count, return port, flags}) -- before any vCPU exists, as KVM
 *    requires.  A KVM without the capability (stock modules) is reported
 *    on stderr and QEMU goes on exactly as without the shim.
 *  - KVM_SET_CPUID2: adds the pvsmm leaf (KVM base + 0x80).  KVM leaves the
 *    guest's CPUID to userspace and QEMU does not know the leaf; without
 *    it the guest's firmware would not register.
 *  - KVM_SET_MSRS with the reset-time MSRs (QEMU writes MSR_IA32_TSC only
 *    at reset and full-state loads): also writes 0 to PVSMM_MSR_REGISTER.
 *    QEMU does not know that MSR, and a registration surviving a reboot
 *    would point the next boot's BIOS at memory it has not set up yet.
 *  - KVM_RUN: the epoch of QEMU's PM timer (epoch.c) and counters
 *    (report.c).
 *
 * Everything else passes through untouched.  Messages start with
 * "pvsmm-preload:" on stderr.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pvsmm/abi.h>

#include "shim.h"

#define MSR_IA32_TSC	0x10

static int (*real_ioctl)(int, unsigned long, ...);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_vm vms[SHIM_MAX_VMS];
static int nr_vms;
static struct shim_vcpu vcpus[SHIM_MAX_VCPUS];
static int nr_vcpus;
/* Entries are never removed, so a cached pointer stays valid. */
static __thread struct shim_vcpu *last_vcpu;

void shim_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* One write: lines from several vCPU threads do not interleave. */
	if (write(STDERR_FILENO, "pvsmm-preload: ", 15) < 0 ||
	    write(STDERR_FILENO, buf, n) < 0)
		return;
}

static void resolve(void)
{
	if (!real_ioctl)
		real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
}

int shim_real_ioctl(int fd, unsigned long req, void *arg)
{
	resolve();
	return real_ioctl(fd, req, arg);
}

__attribute__((constructor)) static void shim_init(void)
{
	resolve();
	config_load();
	if (shim_cfg.enabled)
		shim_log("loaded: reflecting port%s 0x%x%s%.0x, return port 0x%x%s",
			 shim_cfg.nr_ports > 1 ? "s" : "", shim_cfg.first_port,
			 shim_cfg.nr_ports > 1 ? "..0x" : "",
			 shim_cfg.nr_ports > 1 ?
				shim_cfg.first_port + shim_cfg.nr_ports - 1 : 0,
			 shim_cfg.return_port,
			 shim_cfg.cap_flags & PVSMM_CAP_FORCE_EXIT_RETURN ?
				", generic return path only" : "");
}

static struct shim_vm *vm_by_fd(int fd)
{
	struct shim_vm *vm = NULL;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < nr_vms; i++)
		if (vms[i].fd == fd)
			vm = &vms[i];
	pthread_mutex_unlock(&lock);
	return vm;
}

struct shim_vcpu *shim_vcpu_by_fd(int fd)
{
	struct shim_vcpu *v = last_vcpu;

	if (v && v->fd == fd)
		return v;
	v = NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nr_vcpus; i++)
		if (vcpus[i].fd == fd)
			v = &vcpus[i];
	pthread_mutex_unlock(&lock);
	if (v)
		last_vcpu = v;
	return v;
}

void shim_for_each_vcpu(struct shim_vm *vm,
			void (*fn)(struct shim_vcpu *, void *), void *opaque)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nr_vcpus; i++)
		if (vcpus[i].vm == vm)
			fn(&vcpus[i], opaque);
	pthread_mutex_unlock(&lock);
}

static void enable_reflection(struct shim_vm *vm)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_PVSMM_REFLECT,
		.args = { shim_cfg.first_port, shim_cfg.nr_ports,
			  shim_cfg.return_port, shim_cfg.cap_flags },
	};
	int ver;

	ver = real_ioctl(vm->fd, KVM_CHECK_EXTENSION, (long)KVM_CAP_PVSMM_REFLECT);
	vm->run_size = real_ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (!shim_cfg.reflect) {
		shim_log("PVSMM_REFLECT=0: observing only, pvsmm NOT enabled");
		return;
	}
	if (ver <= 0) {
		shim_log("KVM has no KVM_CAP_PVSMM_REFLECT (are the pvsmm KVM modules loaded?): "
			 "pvsmm NOT enabled, PM timer reads exit to QEMU as usual");
		return;
	}
	if (ver != PVSMM_ABI_VERSION) {
		shim_log("KVM speaks pvsmm ABI %d, this shim ABI %d: pvsmm NOT enabled",
			 ver, PVSMM_ABI_VERSION);
		return;
	}
	if (real_ioctl(vm->fd, KVM_ENABLE_CAP, &cap)) {
		shim_log("KVM_ENABLE_CAP(KVM_CAP_PVSMM_REFLECT, 0x%x, %u, 0x%x, 0x%x) failed: %s: "
			 "pvsmm NOT enabled", shim_cfg.first_port, shim_cfg.nr_ports,
			 shim_cfg.return_port, shim_cfg.cap_flags, strerror(errno));
		return;
	}
	vm->reflecting = true;
	shim_log("VM fd %d: KVM_CAP_PVSMM_REFLECT enabled (ABI %d)", vm->fd, ver);
}

static int on_create_vm(int kvm_fd, void *arg)
{
	int fd = real_ioctl(kvm_fd, KVM_CREATE_VM, arg);
	int saved = errno;
	struct shim_vm *vm = NULL;

	if (fd < 0)
		return fd;
	pthread_mutex_lock(&lock);
	if (nr_vms < SHIM_MAX_VMS) {
		vm = &vms[nr_vms++];
		vm->fd = fd;
		vm->kvm_fd = kvm_fd;
	}
	pthread_mutex_unlock(&lock);
	if (vm)
		enable_reflection(vm);
	else
		shim_log("too many VMs in one process: VM fd %d left alone", fd);
	errno = saved;
	return fd;
}

static int on_create_vcpu(int vm_fd, void *arg)
{
	int fd = real_ioctl(vm_fd, KVM_CREATE_VCPU, arg);
	int saved = errno;
	struct shim_vm *vm = vm_by_fd(vm_fd);

	/* Tracked even without reflection: epoch.c and report.c help there
	 * too (the PM timer's epoch, and what reaches QEMU). */
	if (fd < 0 || !vm)
		return fd;
	pthread_mutex_lock(&lock);
	if (nr_vcpus < SHIM_MAX_VCPUS) {
		vcpus[nr_vcpus].fd = fd;
		vcpus[nr_vcpus].id = (int)(long)arg;
		vcpus[nr_vcpus].vm = vm;
		nr_vcpus++;
	}
	pthread_mutex_unlock(&lock);
	errno = saved;
	return fd;
}

static int on_set_cpuid2(int fd, void *arg)
{
	struct shim_vcpu *v = shim_vcpu_by_fd(fd);
	struct kvm_cpuid2 *cpuid;
	int r, saved;

	if (!v || !v->vm->reflecting)
		return real_ioctl(fd, KVM_SET_CPUID2, arg);
	cpuid = cpuid_with_pvsmm_leaf(arg);
	if (!cpuid)
		return real_ioctl(fd, KVM_SET_CPUID2, arg);
	r = real_ioctl(fd, KVM_SET_CPUID2, cpuid);
	saved = errno;
	free(cpuid);
	if (r)
		shim_log("vCPU %d: KVM_SET_CPUID2 with the pvsmm leaf failed: %s",
			 v->id, strerror(saved));
	errno = saved;
	return r;
}

static int on_set_msrs(int fd, void *arg)
{
	const struct kvm_msrs *msrs = arg;
	struct shim_vcpu *v = shim_vcpu_by_fd(fd);
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry entry;
	} reset = { .hdr.nmsrs = 1, .entry.index = PVSMM_MSR_REGISTER };
	int r = real_ioctl(fd, KVM_SET_MSRS, arg);
	int saved = errno;
	bool full = false;

	if (!v || !v->vm->reflecting || r != (int)msrs->nmsrs)
		return r;
	for (uint32_t i = 0; i < msrs->nmsrs; i++)
		full |= msrs->entries[i].index == MSR_IA32_TSC;
	if (full && real_ioctl(fd, KVM_SET_MSRS, &reset) != 1)
		shim_log("vCPU %d: could not reset PVSMM_MSR_REGISTER", v->id);
	else if (full && shim_cfg.verbose)
		shim_log("vCPU %d: reset, registration dropped", v->id);
	errno = saved;
	return r;
}

static int on_run(int fd, void *arg)
{
	struct shim_vcpu *v = shim_vcpu_by_fd(fd);
	int r, saved;

	if (!v)
		return real_ioctl(fd, KVM_RUN, arg);
	if (!v->run && v->vm->run_size > 0) {
		void *p = mmap(NULL, v->vm->run_size, PROT_READ, MAP_SHARED, fd, 0);

		v->run = p == MAP_FAILED ? NULL : p;
		if (!v->run)
			shim_log("vCPU %d: cannot map kvm_run: no counters", v->id);
	}
	if (v->run)
		epoch_before_run(v);
	r = real_ioctl(fd, KVM_RUN, arg);
	saved = errno;
	if (r == 0 && v->run) {
		epoch_after_run(v);
		report_after_run(v);
	}
	errno = saved;
	return r;
}

static int on_set_clock(int fd, void *arg)
{
	int r = real_ioctl(fd, KVM_SET_CLOCK, arg);
	int saved = errno;
	struct shim_vm *vm = vm_by_fd(fd);

	if (r == 0 && vm)
		epoch_vm_clock_set(vm);
	errno = saved;
	return r;
}

__attribute__((visibility("default")))
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	resolve();
	if (!shim_cfg.enabled)
		return real_ioctl(fd, req, arg);

	switch (req) {
	case KVM_CREATE_VM:
		return on_create_vm(fd, arg);
	case KVM_CREATE_VCPU:
		return on_create_vcpu(fd, arg);
	case KVM_SET_CPUID2:
		return on_set_cpuid2(fd, arg);
	case KVM_SET_MSRS:
		return on_set_msrs(fd, arg);
	case KVM_RUN:
		return on_run(fd, arg);
	case KVM_SET_CLOCK:
		return on_set_clock(fd, arg);
	default:
		return real_ioctl(fd, req, arg);
	}
}
