// SPDX-License-Identifier: MIT
/*
 * The userspace ACPI PM timer: the 24-bit counter register only.  Its time
 * is KVM_GET_CLOCK, which is the kvmclock the guest reads, so this device,
 * the in-kernel one and the guest handler all agree on the value.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "pm_timer.h"
#include "vm_stop.h"

uint64_t pm_timer_clock_ns(struct vm *vm)
{
	struct kvm_clock_data clock;

	memset(&clock, 0, sizeof(clock));
	if (ioctl(vm->vm_fd, KVM_GET_CLOCK, &clock) < 0) {
		vmm_warn("KVM_GET_CLOCK: %s", strerror(errno));
		vm_request_stop(vm, EXIT_RUNTIME_ERROR);
		return 0;
	}
	return clock.clock;
}

uint32_t pm_timer_now(struct vm *vm)
{
	return pm_timer_ticks_from_ns(pm_timer_clock_ns(vm));
}

void pm_timer_read(struct vm *vm, uint8_t *data, uint8_t size)
{
	uint32_t ticks = pm_timer_now(vm);

	memcpy(data, &ticks, size);	/* narrow reads get the low bytes */
}

bool pm_timer_pio(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
		  uint8_t size, void *ctx)
{
	(void)port;
	if (in) {
		pm_timer_read(ctx, data, size);
		v->counters.pm_user_reads++;
	}
	return true;	/* the counter register is read-only */
}
