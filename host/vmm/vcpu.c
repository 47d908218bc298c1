// SPDX-License-Identifier: MIT
/* vCPU creation, one thread per vCPU, the KVM_RUN loop and exit dispatch. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "vcpu.h"
#include "cpuid.h"
#include "io.h"
#include "registration.h"
#include "stats.h"
#include "util.h"
#include "vcpu_dump.h"
#include "vm_stop.h"

static __thread struct kvm_run *current_run;

/*
 * immediate_exit closes the race between checking vm->stopping and
 * entering KVM_RUN: a kick that lands in between still makes KVM_RUN
 * return -EINTR at once.
 */
static void kick_handler(int sig)
{
	(void)sig;
	if (current_run)
		current_run->immediate_exit = 1;
}

static void vcpu_create(struct vm *vm, unsigned int index)
{
	struct vcpu *v = &vm->vcpus[index];

	v->vm = vm;
	v->index = index;
	v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, (unsigned long)index);
	if (v->fd < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_CREATE_VCPU %u: %s", index,
			strerror(errno));
	v->run = mmap(NULL, (size_t)vm->vcpu_mmap_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED)
		vmm_die(EXIT_SETUP_ERROR, "mmap of vCPU %u: %s", index,
			strerror(errno));

	cpuid_setup_vcpu(v);

	/*
	 * With the in-kernel LAPIC, APs wait for INIT/SIPI.  For the
	 * self-test, make them runnable so that every vCPU starts at the
	 * reset vector and runs the firmware itself (APIC ID = vCPU id =
	 * index).  A Linux guest starts its APs itself, by INIT/SIPI into its
	 * own trampoline; the registration is VM-wide, so they need no
	 * firmware.
	 */
	if (index > 0 && !vm->opts->kernel_path) {
		struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };

		if (ioctl(v->fd, KVM_SET_MP_STATE, &mp) < 0)
			vmm_die(EXIT_SETUP_ERROR,
				"vCPU %u: KVM_SET_MP_STATE: %s", index,
				strerror(errno));
	}

	if (!vm->has_stats_fd || !kvm_stats_open(&v->stats, v->fd))
		v->stats.fd = -1;
}

void vcpus_create(struct vm *vm)
{
	cpuid_init(vm);
	for (unsigned int i = 0; i < vm->nr_vcpus; i++)
		vcpu_create(vm, i);
}

static void fatal_exit(struct vcpu *v, const char *what)
{
	vmm_warn("vCPU %u: %s", v->index, what);
	vcpu_dump_state(v);
	vm_request_stop(v->vm, EXIT_RUNTIME_ERROR);
}

static void handle_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	char msg[128];

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		io_handle_exit(v);
		break;
	case KVM_EXIT_MMIO:
		/* Nothing is mapped there: reads float high, writes vanish. */
		v->counters.unknown_mmio++;
		if (!run->mmio.is_write)
			memset(run->mmio.data, 0xff, sizeof(run->mmio.data));
		break;
	case KVM_EXIT_X86_RDMSR:
		registration_handle_rdmsr(v);
		break;
	case KVM_EXIT_X86_WRMSR:
		registration_handle_wrmsr(v);
		break;
	case KVM_EXIT_SHUTDOWN:
		fatal_exit(v, "shutdown (triple fault)");
		break;
	case KVM_EXIT_FAIL_ENTRY:
		snprintf(msg, sizeof(msg), "VM entry failed, reason 0x%llx",
			 (unsigned long long)
			 run->fail_entry.hardware_entry_failure_reason);
		fatal_exit(v, msg);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		snprintf(msg, sizeof(msg), "KVM internal error, suberror %u",
			 run->internal.suberror);
		fatal_exit(v, msg);
		break;
	case KVM_EXIT_SYSTEM_EVENT:
		snprintf(msg, sizeof(msg), "system event type %u",
			 run->system_event.type);
		fatal_exit(v, msg);
		break;
	default:
		snprintf(msg, sizeof(msg), "unexpected exit reason %u",
			 run->exit_reason);
		fatal_exit(v, msg);
		break;
	}
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct vm *vm = v->vm;

	current_run = v->run;
	stats_snapshot(v, &v->start);

	while (!atomic_load(&vm->stopping)) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN) {
				v->run->immediate_exit = 0;
				continue;
			}
			vmm_warn("vCPU %u: KVM_RUN: %s", v->index,
				 strerror(errno));
			vm_request_stop(vm, EXIT_RUNTIME_ERROR);
			break;
		}
		stats_count_exit(v, v->run->exit_reason);
		handle_exit(v);
	}

	stats_snapshot(v, &v->finish);
	if (atomic_load(&vm->dump_on_stop))
		vcpu_dump_state(v);
	return NULL;
}

void vcpus_start(struct vm *vm)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kick_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(VCPU_KICK_SIGNAL, &sa, NULL) < 0)
		vmm_die(EXIT_SETUP_ERROR, "sigaction: %s", strerror(errno));

	vm->start_ns = monotonic_ns();
	for (unsigned int i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];
		int err = pthread_create(&v->thread, NULL, vcpu_thread, v);

		if (err)
			vmm_die(EXIT_SETUP_ERROR, "pthread_create: %s",
				strerror(err));
		/* Published after v->thread is set: kickers may read both. */
		atomic_store(&v->thread_started, true);
	}
}

void vcpus_join(struct vm *vm)
{
	for (unsigned int i = 0; i < vm->nr_vcpus; i++)
		if (atomic_load(&vm->vcpus[i].thread_started))
			pthread_join(vm->vcpus[i].thread, NULL);
	vm->end_ns = monotonic_ns();
}
