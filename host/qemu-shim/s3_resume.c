// SPDX-License-Identifier: MIT
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "s3_resume.h"

#define PM1_CNT_BELOW_TMR	4	/* PM base + 4 and PM base + 8 */
#define PM1_CNT_SLP_EN		(1u << 13)
#define PM1_CNT_SLP_TYP(v)	(((v) >> 10) & 7)
#define QEMU_SLP_TYP_S3		1

void s3_after_run(struct shim_vcpu *v)
{
	const struct kvm_run *run = v->run;
	uint16_t value;

	if (!v->vm->reflecting || run->exit_reason != KVM_EXIT_IO ||
	    run->io.direction != KVM_EXIT_IO_OUT ||
	    run->io.port != shim_cfg.first_port - PM1_CNT_BELOW_TMR ||
	    run->io.size != 2 || run->io.count != 1)
		return;
	memcpy(&value, (const uint8_t *)run + run->io.data_offset, sizeof(value));
	if (!(value & PM1_CNT_SLP_EN) || PM1_CNT_SLP_TYP(value) != QEMU_SLP_TYP_S3)
		return;
	atomic_store(&v->vm->suspending, true);
	if (shim_cfg.verbose)
		shim_log("vCPU %d: the guest suspends to RAM: its registration "
			 "is kept for the resume", v->id);
}

bool s3_resume_reset(struct shim_vm *vm)
{
	return atomic_exchange(&vm->suspending, false);
}
