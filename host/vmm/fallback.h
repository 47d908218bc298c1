/* SPDX-License-Identifier: MIT */
/*
 * The reasons a PM timer read was not reflected (enum reflect_fallback,
 * vmm.h) as the short names PVSMM-STATS and the messages use.  Pure: the
 * report and the reflection both use it, neither through the other.
 */
#ifndef PVSMM_FALLBACK_H
#define PVSMM_FALLBACK_H

/* "cpl", "real_mode", ...; "?" for a number that is no reason. */
const char *fallback_name(unsigned int reason);

#endif
