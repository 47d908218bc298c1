/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_SHIM_CONFIG_H
#define PVSMM_SHIM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

struct shim_config {
	bool enabled;		/* PVSMM_PORTS set and valid */
	uint16_t first_port;	/* PVSMM_PORTS=FIRST[+COUNT] */
	uint16_t nr_ports;
	uint16_t return_port;	/* PVSMM_RETURN_PORT */
	uint32_t cap_flags;	/* PVSMM_WINDOW=1 */
	bool reflect;		/* PVSMM_REFLECT (default on) */
	bool epoch;		/* PVSMM_EPOCH (default on) */
	int marker_port;	/* PVSMM_MARKER_PORT, -1 = none */
	bool verbose;		/* PVSMM_VERBOSE=1 */
};

extern struct shim_config shim_cfg;

/* Reads the PVSMM_* environment variables into shim_cfg. */
void config_load(void);
/* One of the ports PVSMM_PORTS names. */
bool port_is_reflected(uint16_t port);

#endif
