/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SHIM_REPORT_H
#define PVSMM_SHIM_REPORT_H

#include <stdint.h>

#include "registry.h"

/* After each KVM_RUN that returned 0: counts, marks. */
void report_after_run(struct shim_vcpu *v);
/* count PM timer reads were completed by the shim (pm_serve.h). */
void report_pm_served(uint32_t count);

#endif
