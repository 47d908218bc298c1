// SPDX-License-Identifier: MIT
#include <pthread.h>

#include "vm_stop.h"

/* Makes every other vCPU thread leave KVM_RUN and see vm->stopping. */
static void kick_vcpus(struct vm *vm)
{
	pthread_t self = pthread_self();

	for (unsigned int i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		if (atomic_load(&v->thread_started) &&
		    !pthread_equal(v->thread, self))
			pthread_kill(v->thread, VCPU_KICK_SIGNAL);
	}
}

void vm_request_stop(struct vm *vm, int status)
{
	int expected = -1;

	atomic_compare_exchange_strong(&vm->exit_code, &expected, status);
	atomic_store(&vm->stopping, true);
	kick_vcpus(vm);
}
