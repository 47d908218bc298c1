// SPDX-License-Identifier: MIT
#include "fallback.h"
#include "vmm.h"

static const char *const fallback_names[FALLBACK_NR] = {
	[FALLBACK_REAL_MODE] = "real_mode",
	[FALLBACK_VM86] = "vm86",
	[FALLBACK_CPL] = "cpl",
	[FALLBACK_PAGING_OFF] = "paging_off",
	[FALLBACK_16BIT] = "code16",
	[FALLBACK_COMPAT] = "compat",
	[FALLBACK_NO_ENTRY] = "no_entry",
	[FALLBACK_NO_NXE] = "no_nxe",
	[FALLBACK_SMM] = "smm",
	[FALLBACK_NMI_BLOCKED] = "nmi_blocked",
	[FALLBACK_EVENT_PENDING] = "event_pending",
	[FALLBACK_IN_FLIGHT] = "in_flight",
	[FALLBACK_SINGLE_STEP] = "single_step",
	[FALLBACK_NO_AREA] = "no_area",
	[FALLBACK_KVMCLOCK] = "kvmclock",
	[FALLBACK_MEMORY] = "memory",
	[FALLBACK_DECODE] = "decode",
	[FALLBACK_VCPU_STATE] = "vcpu_state",
};

const char *fallback_name(unsigned int reason)
{
	return reason < FALLBACK_NR ? fallback_names[reason] : "?";
}
