// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pvsmm/abi.h>

#include "fake_kvm.h"
#include "real_libc.h"
#include "user_copy.h"

#define MAX_FAKE_VCPUS	4
#define IO_DATA_OFFSET	1024

int fake_pvsmm_version = PVSMM_ABI_VERSION;
int fake_stats_fd_requests;
uint64_t fake_clock_ns;

static struct fake_vcpu vcpus[MAX_FAKE_VCPUS];
static int nr_vcpus, next_id;

struct fake_vcpu *fake_vcpu_new(int id)
{
	struct fake_vcpu *f = &vcpus[nr_vcpus++];

	f->fd = memfd_create("fake-kvm-run", 0);
	if (f->fd < 0 || ftruncate(f->fd, FAKE_RUN_SIZE) < 0)
		abort();
	f->run = mmap(NULL, FAKE_RUN_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      f->fd, 0);
	if (f->run == MAP_FAILED)
		abort();
	next_id = id;
	return f;
}

void fake_vcpu_queue_in(struct fake_vcpu *f, uint16_t port, uint8_t size,
			uint32_t count)
{
	struct kvm_run *e = &f->exits[f->nr_exits++];

	e->exit_reason = KVM_EXIT_IO;
	e->io.direction = KVM_EXIT_IO_IN;
	e->io.port = port;
	e->io.size = size;
	e->io.count = count;
	e->io.data_offset = IO_DATA_OFFSET;
}

void fake_vcpu_queue_out(struct fake_vcpu *f, uint16_t port, uint8_t size,
			 uint32_t count, uint32_t value)
{
	struct kvm_run *e = &f->exits[f->nr_exits];

	fake_vcpu_queue_in(f, port, size, count);
	e->io.direction = KVM_EXIT_IO_OUT;
	f->out_value[f->nr_exits - 1] = value;
}

static struct fake_vcpu *vcpu_of(int fd)
{
	for (int i = 0; i < nr_vcpus; i++)
		if (vcpus[i].fd == fd)
			return &vcpus[i];
	return NULL;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* KVM_SET_MSRS as KVM does it: copy_from_user first (EFAULT). */
static int set_msrs(struct fake_vcpu *f, const struct kvm_msrs *arg)
{
	struct kvm_msrs hdr;
	struct kvm_msr_entry e;

	if (!user_copy(&hdr, arg, sizeof(hdr)))
		return fail(EFAULT);
	for (uint32_t i = 0; i < hdr.nmsrs; i++) {
		if (!user_copy(&e, &arg->entries[i], sizeof(e)))
			return fail(EFAULT);
		if (e.index == PVSMM_MSR_REGISTER) {
			f->registration = e.data;
			f->register_writes++;
		}
	}
	return (int)hdr.nmsrs;
}

static int run(struct fake_vcpu *f)
{
	const struct kvm_run *prev = f->runs ? &f->exits[f->runs - 1] : NULL;

	/* The guest ran until a signal kicked the vCPU out. */
	if (f->signal_next) {
		f->signal_next = false;
		errno = EINTR;
		return -1;
	}
	/* As KVM: leave at once, the guest not run, when userspace asks. */
	if (f->run->immediate_exit) {
		f->immediate_exits++;
		errno = EINTR;
		return -1;
	}

	/* What the shim left for the previous IN, as KVM would consume it. */
	if (prev && prev->exit_reason == KVM_EXIT_IO && f->runs <= 4)
		memcpy(f->seen_in[f->runs - 1],
		       (uint8_t *)f->run + IO_DATA_OFFSET,
		       sizeof(f->seen_in[0]));
	if (f->runs < f->nr_exits) {
		uint8_t *data = (uint8_t *)f->run + IO_DATA_OFFSET;

		f->run->exit_reason = f->exits[f->runs].exit_reason;
		f->run->io = f->exits[f->runs].io;
		memset(data, 0xee, 64);	/* stale bytes the shim must cover */
		/* A string OUT: the value is the last element. */
		memcpy(data + (size_t)(f->run->io.count - 1) * f->run->io.size,
		       &f->out_value[f->runs], f->run->io.size);
	} else {
		f->run->exit_reason = KVM_EXIT_HLT;
	}
	f->runs++;
	return 0;
}

int shim_real_ioctl(int fd, unsigned long req, void *arg)
{
	struct fake_vcpu *f = vcpu_of(fd);

	switch (req) {
	case KVM_CREATE_VM:
		return FAKE_VM_FD;
	case KVM_CHECK_EXTENSION:
		return (long)arg == KVM_CAP_PVSMM_REFLECT ? fake_pvsmm_version : 0;
	case KVM_GET_VCPU_MMAP_SIZE:
		return FAKE_RUN_SIZE;
	case KVM_ENABLE_CAP:
		return 0;
	case KVM_CREATE_VCPU:
		return nr_vcpus && (long)arg == next_id ? vcpus[nr_vcpus - 1].fd :
							  fail(EINVAL);
	case KVM_GET_CLOCK: {
		struct kvm_clock_data d = { .clock = fake_clock_ns };

		memcpy(arg, &d, sizeof(d));
		return 0;
	}
	case KVM_SET_CPUID2: {
		struct kvm_cpuid2 hdr;

		return f && user_copy(&hdr, arg, sizeof(hdr)) ? 0 : fail(EFAULT);
	}
	case KVM_GET_REGS:
		if (!f)
			break;
		memcpy(arg, &f->regs, sizeof(f->regs));
		return 0;
	case KVM_GET_SREGS:
		if (!f)
			break;
		memcpy(arg, &f->sregs, sizeof(f->sregs));
		return 0;
	case KVM_SET_MSRS:
		if (!f)
			break;
		return set_msrs(f, arg);
	case KVM_RUN:
		if (!f)
			break;
		return run(f);
	case KVM_GET_STATS_FD:
		fake_stats_fd_requests++;
		return fail(ENOTTY);	/* a KVM without binary stats */
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

int shim_real_clock_gettime(clockid_t clk, struct timespec *ts)
{
	return (int)syscall(SYS_clock_gettime, clk, ts);
}
