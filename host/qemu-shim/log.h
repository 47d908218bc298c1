/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SHIM_LOG_H
#define PVSMM_SHIM_LOG_H

/* "pvsmm-preload: <message>" on stderr, one write per line. */
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
