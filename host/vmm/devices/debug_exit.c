// SPDX-License-Identifier: MIT
#include "debug_exit.h"
#include "vcpu.h"
#include "vm.h"

void debug_exit_write(struct vcpu *v, uint32_t value)
{
	if (value != 0) {
		vmm_warn("vCPU %u: guest reported failure code %u (0x%x)",
			 v->index, value, value);
		vcpu_dump_state(v);
	}
	vm_request_stop(v->vm, value == 0 ? EXIT_GUEST_PASS : EXIT_GUEST_FAIL);
}
