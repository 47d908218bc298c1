/* SPDX-License-Identifier: MIT */
/*
 * S3 under a stock QEMU.  QEMU's wakeup from suspend-to-RAM resets the
 * vCPUs like a system reset (the BSP at the reset vector), but no firmware
 * runs to register again: the OS resumes at its waking vector, its memory
 * and the firmware's reserved region as they were.  Were the shim to clear
 * the registration there as at a reset (vcpu_load.h), pvsmm would stay off
 * after every resume.
 *
 * The shim cannot see why QEMU resets.  It keeps the registration at the
 * BSP's reset load only after watching the suspend happen:
 *  1. the guest asks for S3: a write to PM1a_CNT with SLP_EN set and
 *     SLP_TYP 1, which QEMU's ACPI device takes for S3 (hw/acpi/core.c,
 *     acpi_pm1_cnt_write(); QEMU's DSDT says _S3 = 1), as a word (also the
 *     last of a string OUT) or as PM1a_CNT's high byte.  PM1a_CNT is 4
 *     below the PM timer's counter in QEMU's ACPI blocks, ICH9's and
 *     PIIX4's alike (PM base + 4 and PM base + 8);
 *  2. QEMU stops that vCPU at once (cpu_stop_current()): its next KVM_RUN
 *     comes with immediate_exit set, and leaves without running the guest;
 *  3. no vCPU runs guest code after that (no KVM_RUN returns an exit)
 *     before the BSP's reset load, the wakeup's.
 * Anything else -- the vCPU going on into the guest after its write (no
 * device decoded it: the guest moved or disabled the PM block), any exit
 * of any vCPU, the guest asking its chipset or a watchdog for a reset --
 * forgets the request, and the reset clears the registration.  A hostile
 * guest kernel cannot carry its registration, and with it its own code,
 * into the firmware of its next boot that way.
 *
 * What it cannot tell apart: an operator's system_reset of a guest that
 * QEMU suspended.  Under SeaBIOS that reset resumes the OS too (the RTC's
 * shutdown byte still says S3), so keeping the registration is right
 * there; SECURITY.md has the rest.  The patched QEMU (host/qemu) knows a
 * wakeup from a reset.  KVM copied and checked the descriptor at
 * registration, so what the guest did to its memory meanwhile changes
 * nothing.
 */
#ifndef PVSMM_SHIM_S3_RESUME_H
#define PVSMM_SHIM_S3_RESUME_H

#include <stdbool.h>

#include "registry.h"

/* Before each KVM_RUN of a vCPU (step 2). */
void s3_before_run(struct shim_vcpu *v);
/* After KVM_RUN returned r: the request (1), or the guest running (3). */
void s3_after_run(struct shim_vcpu *v, int r);
/* At the BSP's reset load: true, once, if it is the wakeup from S3. */
bool s3_resume_reset(struct shim_vm *vm);

#endif
