// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stddef.h>

#include "registry.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct shim_vm vms[SHIM_MAX_VMS];
static int nr_vms;
static struct shim_vcpu vcpus[SHIM_MAX_VCPUS];
static int nr_vcpus;
/* A vCPU thread asks about its own vCPU on every KVM_RUN. */
static __thread struct shim_vcpu *last_vcpu;

struct shim_vm *registry_add_vm(int fd, int kvm_fd)
{
	struct shim_vm *vm = NULL;

	pthread_mutex_lock(&lock);
	if (nr_vms < SHIM_MAX_VMS) {
		vm = &vms[nr_vms++];
		vm->fd = fd;
		vm->kvm_fd = kvm_fd;
	}
	pthread_mutex_unlock(&lock);
	return vm;
}

struct shim_vcpu *registry_add_vcpu(struct shim_vm *vm, int fd, int id)
{
	struct shim_vcpu *v = NULL;

	pthread_mutex_lock(&lock);
	if (nr_vcpus < SHIM_MAX_VCPUS) {
		v = &vcpus[nr_vcpus++];
		v->fd = fd;
		v->id = id;
		v->vm = vm;
		v->stats.fd = -1;
	}
	pthread_mutex_unlock(&lock);
	return v;
}

struct shim_vm *shim_vm_by_fd(int fd)
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
