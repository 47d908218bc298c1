// SPDX-License-Identifier: MIT
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "s3_resume.h"

#define PM1_CNT_BELOW_TMR	4	/* PM base + 4 and PM base + 8 */
/* PM1a_CNT's high byte: SLP_EN is bit 13 of the register, SLP_TYP 12:10. */
#define HIGH_SLP_EN		(1u << 5)
#define HIGH_SLP_TYP(b)		(((b) >> 2) & 7)
#define QEMU_SLP_TYP_S3		1

/* The states of shim_vm.s3 (s3_resume.h's steps). */
enum { S3_NONE, S3_ASKED, S3_STOPPED };

/* Does this exit write S3 into PM1a_CNT's high byte? */
static bool asks_for_s3(const struct kvm_run *run)
{
	uint16_t cnt = (uint16_t)(shim_cfg.first_port - PM1_CNT_BELOW_TMR);
	const uint8_t *last;
	uint8_t high;

	if (run->exit_reason != KVM_EXIT_IO ||
	    run->io.direction != KVM_EXIT_IO_OUT || run->io.count < 1)
		return false;
	/* A string OUT leaves the last element in the register. */
	last = (const uint8_t *)run + run->io.data_offset +
	       (size_t)(run->io.count - 1) * run->io.size;
	if (run->io.port == cnt && run->io.size >= 2)
		high = last[1];
	else if (run->io.port == cnt + 1)
		high = last[0];
	else
		return false;
	return (high & HIGH_SLP_EN) && HIGH_SLP_TYP(high) == QEMU_SLP_TYP_S3;
}

void s3_before_run(struct shim_vcpu *v)
{
	struct shim_vm *vm = v->vm;

	if (atomic_load(&vm->s3) != S3_ASKED ||
	    atomic_load(&vm->s3_vcpu) != v->id)
		return;
	/* QEMU re-enters only to complete the OUT, if it stops this vCPU. */
	atomic_store(&vm->s3, v->run->immediate_exit ? S3_STOPPED : S3_NONE);
}

void s3_after_run(struct shim_vcpu *v, int r)
{
	struct shim_vm *vm = v->vm;

	if (r != 0)		/* EINTR: the guest did not run */
		return;
	if (vm->reflecting && asks_for_s3(v->run)) {
		atomic_store(&vm->s3_vcpu, v->id);
		atomic_store(&vm->s3, S3_ASKED);
		if (shim_cfg.verbose)
			shim_log("vCPU %d: the guest asks for S3", v->id);
		return;
	}
	/* The guest runs on.  Every exit passes here: read before writing,
	 * so that vCPU threads do not bounce the VM's line for nothing. */
	if (atomic_load_explicit(&vm->s3, memory_order_relaxed) != S3_NONE)
		atomic_store(&vm->s3, S3_NONE);
}

bool s3_resume_reset(struct shim_vm *vm)
{
	return atomic_exchange(&vm->s3, S3_NONE) == S3_STOPPED;
}
