/* SPDX-License-Identifier: MIT */
/*
 * S3 under a stock QEMU.  QEMU's wakeup from suspend-to-RAM resets the
 * vCPUs like a system reset (the BSP at the reset vector), but no firmware
 * runs to register again: the OS resumes at its waking vector, its memory
 * and the firmware's reserved region as they were.  Were the shim to clear
 * the registration there as at a reset (vcpu_load.h), pvsmm would stay off
 * after every resume.
 *
 * So the shim watches for the guest's request: the OUT to PM1a_CNT with
 * SLP_EN set and SLP_TYP 1, which QEMU's ACPI device takes for S3
 * (hw/acpi/core.c, acpi_pm1_cnt_write(); QEMU's DSDT says _S3 = 1).
 * PM1a_CNT is 4 below the PM timer's counter in QEMU's ACPI blocks, ICH9's
 * and PIIX4's alike (PM base + 4 and PM base + 8).  The BSP's next reset
 * load is then the wakeup's, and keeps the registration KVM holds -- KVM
 * copied and checked its descriptor at registration, so what the guest did
 * to its memory since changes nothing.  Any other reset clears it.
 *
 * The shim cannot see why QEMU resets, only that the guest asked for S3
 * before.  Two resets after such a request are not wakeups, and keep the
 * registration into the next boot until its firmware registers again: an
 * operator's system_reset of a suspended guest, and the next reboot of a
 * guest whose request QEMU did not act on (it has no _S3 to ask with
 * unless S3 is on).  The BIOS's reads in between go to the old handler,
 * still in RAM, and KVM writes the old save area, which the new BIOS may
 * use for something else by then; the worst is that this one boot of that
 * guest fails.  The patched QEMU (host/qemu) knows a wakeup from a reset
 * and has neither case.
 */
#ifndef PVSMM_SHIM_S3_RESUME_H
#define PVSMM_SHIM_S3_RESUME_H

#include <stdbool.h>

#include "registry.h"

/* After KVM_RUN returned: notes a guest's request for S3. */
void s3_after_run(struct shim_vcpu *v);
/* At the BSP's reset load: true, once, if it is the wakeup from S3. */
bool s3_resume_reset(struct shim_vm *vm);

#endif
