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
 *  - KVM_SET_MSRS that loads a whole vCPU at a system reset: also writes 0
 *    to PVSMM_MSR_REGISTER (vcpu_load.h says how a reset is told apart
 *    from CPU hotplug and an incoming migration, which keep it; and
 *    s3_resume.h the wakeup from S3, which keeps it too).
 *  - KVM_RUN: the epoch of QEMU's PM timer (epoch.c), PM timer reads that
 *    still exit completed from kvmclock (pm_serve.c), counters (report.c),
 *    the guest's request for S3 (s3_resume.c).
 *
 * Everything else passes through untouched.  A pointer QEMU passes that
 * the shim must read is copied as the kernel would (user_copy.h): a bad
 * one fails the ioctl with EFAULT, as without the shim, instead of
 * crashing QEMU.  Messages start with "pvsmm-preload:" on stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <pvsmm/abi.h>

#include "config.h"
#include "cpuid_leaf.h"
#include "epoch.h"
#include "kvm_stats.h"
#include "log.h"
#include "pm_serve.h"
#include "real_libc.h"
#include "registry.h"
#include "report.h"
#include "s3_resume.h"
#include "vcpu_load.h"
#include "user_copy.h"

#define KVM_MAX_MSR_ENTRIES	255	/* QEMU's MSR_BUF_SIZE; KVM's own limit is higher */

__attribute__((constructor)) static void shim_init(void)
{
	config_load();
	if (shim_cfg.enabled)
		shim_log("loaded: reflecting port%s 0x%x%s%.0x, return port 0x%x%s",
			 shim_cfg.nr_ports > 1 ? "s" : "", shim_cfg.first_port,
			 shim_cfg.nr_ports > 1 ? "..0x" : "",
			 shim_cfg.nr_ports > 1 ?
				shim_cfg.first_port + shim_cfg.nr_ports - 1 : 0,
			 shim_cfg.return_port,
			 shim_cfg.cap_flags & PVSMM_CAP_WINDOW ?
				", window path allowed" : "");
}

static void enable_reflection(struct shim_vm *vm)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_PVSMM_REFLECT,
		.args = { shim_cfg.first_port, shim_cfg.nr_ports,
			  shim_cfg.return_port, shim_cfg.cap_flags },
	};
	int ver;

	ver = shim_real_ioctl(vm->fd, KVM_CHECK_EXTENSION,
			      (void *)(long)KVM_CAP_PVSMM_REFLECT);
	vm->run_size = shim_real_ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, NULL);
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
	if (shim_real_ioctl(vm->fd, KVM_ENABLE_CAP, &cap)) {
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
	int fd = shim_real_ioctl(kvm_fd, KVM_CREATE_VM, arg);
	int saved = errno;
	struct shim_vm *vm;

	if (fd < 0)
		return fd;
	vm = registry_add_vm(fd, kvm_fd);
	if (vm)
		enable_reflection(vm);
	else
		shim_log("too many VMs in one process: VM fd %d left alone", fd);
	errno = saved;
	return fd;
}

static int on_create_vcpu(int vm_fd, void *arg)
{
	int fd = shim_real_ioctl(vm_fd, KVM_CREATE_VCPU, arg);
	int saved = errno;
	struct shim_vm *vm = shim_vm_by_fd(vm_fd);

	/* Tracked even without reflection: epoch.c and report.c help there
	 * too (the PM timer's epoch, and what reaches QEMU). */
	if (fd >= 0 && vm) {
		struct shim_vcpu *v = registry_add_vcpu(vm, fd, (int)(long)arg);

		/* Now, before its thread can sleep in KVM_RUN (registry.h). */
		if (v && shim_cfg.marker_port >= 0)
			kvm_stats_open(&v->stats, fd);
	}
	errno = saved;
	return fd;
}

/*
 * A private copy of QEMU's table, read as the kernel would: NULL (errno
 * EFAULT) when arg is not readable.  Oversized tables are KVM's to
 * refuse (E2BIG): the copy leaves them out.
 */
static struct kvm_cpuid2 *copy_cpuid(const struct kvm_cpuid2 *arg)
{
	struct kvm_cpuid2 hdr, *copy;
	size_t size;

	if (!user_copy(&hdr, arg, sizeof(hdr)) || hdr.nent > KVM_MAX_CPUID_ENTRIES)
		return NULL;
	size = sizeof(hdr) + hdr.nent * sizeof(hdr.entries[0]);
	copy = malloc(size);
	if (copy && !user_copy(copy, arg, size)) {
		free(copy);
		return NULL;
	}
	return copy;
}

static int on_set_cpuid2(int fd, void *arg)
{
	struct shim_vcpu *v = shim_vcpu_by_fd(fd);
	struct kvm_cpuid2 *qemu_table, *cpuid;
	int r, saved;

	if (!v || !v->vm->reflecting)
		return shim_real_ioctl(fd, KVM_SET_CPUID2, arg);
	qemu_table = copy_cpuid(arg);
	cpuid = qemu_table ? cpuid_with_pvsmm_leaf(qemu_table) : NULL;
	free(qemu_table);
	if (!cpuid)	/* KVM answers a bad pointer with EFAULT */
		return shim_real_ioctl(fd, KVM_SET_CPUID2, arg);
	r = shim_real_ioctl(fd, KVM_SET_CPUID2, cpuid);
	saved = errno;
	free(cpuid);
	if (r)
		shim_log("vCPU %d: KVM_SET_CPUID2 with the pvsmm leaf failed: %s",
			 v->id, strerror(saved));
	errno = saved;
	return r;
}

/* QEMU's MSR list, read as the kernel would; false if unreadable. */
static bool copy_msrs(const struct kvm_msrs *arg, struct kvm_msrs **out)
{
	struct kvm_msrs hdr;
	size_t size;

	*out = NULL;
	if (!user_copy(&hdr, arg, sizeof(hdr)) || hdr.nmsrs > KVM_MAX_MSR_ENTRIES)
		return false;
	size = sizeof(hdr) + hdr.nmsrs * sizeof(hdr.entries[0]);
	*out = malloc(size);
	if (*out && user_copy(*out, arg, size))
		return true;
	free(*out);
	*out = NULL;
	return false;
}

static enum vcpu_load load_kind(struct shim_vcpu *v, const struct kvm_msrs *msrs)
{
	struct kvm_regs regs;
	struct kvm_sregs sregs;

	if (!msrs_load_whole_vcpu(msrs))
		return VCPU_LOAD_PARTIAL;
	/* QEMU loaded the registers just before the MSRs: read them back. */
	if (shim_real_ioctl(v->fd, KVM_GET_REGS, &regs) ||
	    shim_real_ioctl(v->fd, KVM_GET_SREGS, &sregs))
		return VCPU_LOAD_PARTIAL;
	return vcpu_load_kind(v->id, &regs, &sregs);
}

static int on_set_msrs(int fd, void *arg)
{
	struct shim_vcpu *v = shim_vcpu_by_fd(fd);
	struct {
		struct kvm_msrs hdr;
		struct kvm_msr_entry entry;
	} reset = { .hdr.nmsrs = 1, .entry.index = PVSMM_MSR_REGISTER };
	struct kvm_msrs *msrs;
	int r = shim_real_ioctl(fd, KVM_SET_MSRS, arg);
	int saved = errno;

	/* KVM itself answers a NULL or bad pointer (EFAULT). */
	if (r < 0 || !v || !v->vm->reflecting)
		return r;
	if (!copy_msrs(arg, &msrs) || r != (int)msrs->nmsrs) {
		free(msrs);
		errno = saved;
		return r;
	}
	switch (load_kind(v, msrs)) {
	case VCPU_LOAD_PARTIAL:
		break;
	case VCPU_LOAD_RESET:
		if (s3_resume_reset(v->vm)) {
			if (shim_cfg.verbose)
				shim_log("vCPU %d: wakeup from S3, registration kept",
					 v->id);
			break;
		}
		if (shim_real_ioctl(fd, KVM_SET_MSRS, &reset) != 1)
			shim_log("vCPU %d: could not reset PVSMM_MSR_REGISTER", v->id);
		else if (shim_cfg.verbose)
			shim_log("vCPU %d: system reset, registration dropped", v->id);
		break;
	case VCPU_LOAD_NEW_AP:
		if (shim_cfg.verbose)
			shim_log("vCPU %d: whole-vCPU load (hotplug), registration kept",
				 v->id);
		break;
	case VCPU_LOAD_INCOMING:
		if (shim_cfg.verbose)
			shim_log("vCPU %d: whole-vCPU load (incoming migration), "
				 "registration kept", v->id);
		epoch_incoming();
		break;
	}
	free(msrs);
	errno = saved;
	return r;
}

static void map_run(struct shim_vcpu *v, int fd)
{
	void *p;

	if (v->run || v->vm->run_size <= 0)
		return;
	/* Writable: pm_serve.c completes IN exits in it. */
	p = mmap(NULL, v->vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	v->run = p == MAP_FAILED ? NULL : p;
	if (!v->run)
		shim_log("vCPU %d: cannot map kvm_run: no counters", v->id);
}

/*
 * QEMU's KVM_RUN, re-entered here for as long as every exit is a PM
 * timer read the shim completes: QEMU wakes only for exits of its own.
 * A kick (immediate_exit, a signal) still ends the loop with EINTR after
 * KVM completed the read, as QEMU expects.
 */
static int on_run(int fd, void *arg)
{
	struct shim_vcpu *v = shim_vcpu_by_fd(fd);
	int r, saved;

	if (!v)
		return shim_real_ioctl(fd, KVM_RUN, arg);
	map_run(v, fd);
	do {
		if (v->run) {
			epoch_before_run(v);
			s3_before_run(v);
		}
		r = shim_real_ioctl(fd, KVM_RUN, arg);
		saved = errno;
		if (!v->run)
			break;
		s3_after_run(v, r);
		if (r != 0)
			break;
		epoch_after_run(v);
		report_after_run(v);
	} while (pm_serve_exit(v));
	errno = saved;
	return r;
}

static int on_set_clock(int fd, void *arg)
{
	int r = shim_real_ioctl(fd, KVM_SET_CLOCK, arg);
	int saved = errno;
	struct shim_vm *vm = shim_vm_by_fd(fd);

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
	if (!shim_cfg.enabled)
		return shim_real_ioctl(fd, req, arg);

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
		return shim_real_ioctl(fd, req, arg);
	}
}
