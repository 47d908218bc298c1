// SPDX-License-Identifier: MIT
#include <string.h>
#include <sys/ioctl.h>

#include "config.h"
#include "epoch.h"
#include "log.h"
#include "pm_serve.h"
#include "pm_ticks.h"
#include "real_libc.h"
#include "report.h"

void pm_serve_fill(uint8_t *data, uint8_t size, uint32_t count, uint32_t ticks)
{
	for (uint32_t i = 0; i < count; i++)	/* x86 is little-endian */
		memcpy(data + (size_t)i * size, &ticks, size);
}

bool pm_serve_exit(struct shim_vcpu *v)
{
	struct kvm_run *run = v->run;
	struct kvm_clock_data clock;

	if (!v->vm->reflecting || run->exit_reason != KVM_EXIT_IO ||
	    run->io.direction != KVM_EXIT_IO_IN ||
	    run->io.port != shim_cfg.first_port ||
	    (run->io.size != 1 && run->io.size != 2 && run->io.size != 4) ||
	    !epoch_settled())
		return false;
	memset(&clock, 0, sizeof(clock));
	if (shim_real_ioctl(v->vm->fd, KVM_GET_CLOCK, &clock)) {
		static int logged;

		if (!logged++)
			shim_log("KVM_GET_CLOCK failed: PM timer reads left to QEMU");
		return false;
	}
	pm_serve_fill((uint8_t *)run + run->io.data_offset, run->io.size,
		      run->io.count, pm_timer_ticks_from_ns(clock.clock));
	report_pm_served(run->io.count);
	return true;
}
