// SPDX-License-Identifier: MIT
/*
 * The shim's configuration, from the environment of the QEMU process:
 *
 *   PVSMM_PORTS=FIRST[+COUNT]  ports to reflect (required; the PM timer
 *                              is where the firmware put it: 0x608 under
 *                              SeaBIOS and under OVMF on q35, 0xb008
 *                              under OVMF on pc): without
 *                              it the shim only says so and stays out of
 *                              the way
 *   PVSMM_RETURN_PORT=PORT     the handler's return port for the generic
 *                              path (default 0xef0, unused by QEMU's PC
 *                              machines)
 *   PVSMM_REFLECT=0            observe only: counters and marks, but no
 *                              reflection (stock behaviour, for comparison)
 *   PVSMM_WINDOW=1             allow the window path (IRETQ through PML4
 *                              slot 271), for guests whose layout leaves
 *                              that slot to the hypervisor (x86-64 Linux,
 *                              Windows 7/2008 R2; see the README)
 *   PVSMM_EPOCH=0              leave kvmclock alone (see epoch.c)
 *   PVSMM_MARKER_PORT=PORT     an OUT there prints the counters (report.c)
 *   PVSMM_VERBOSE=1            say more
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pvsmm/abi.h>

#include "config.h"
#include "log.h"

struct shim_config shim_cfg = { .marker_port = -1, .epoch = true, .reflect = true };

static bool parse_u16(const char *s, char **end, uint16_t *out)
{
	unsigned long v;

	errno = 0;
	v = strtoul(s, end, 0);
	if (errno || *end == s || v > 0xffff)
		return false;
	*out = (uint16_t)v;
	return true;
}

static bool env_flag(const char *name, bool dflt)
{
	const char *s = getenv(name);

	if (!s || !*s)
		return dflt;
	return strcmp(s, "0") && strcmp(s, "no") && strcmp(s, "off");
}

void config_load(void)
{
	const char *s = getenv("PVSMM_PORTS");
	char *end;
	uint16_t v;

	shim_cfg.verbose = env_flag("PVSMM_VERBOSE", false);
	shim_cfg.epoch = env_flag("PVSMM_EPOCH", true);
	shim_cfg.reflect = env_flag("PVSMM_REFLECT", true);
	if (env_flag("PVSMM_WINDOW", false))
		shim_cfg.cap_flags |= PVSMM_CAP_WINDOW;

	shim_cfg.return_port = PVSMM_DEFAULT_RETURN_PORT;
	s = getenv("PVSMM_RETURN_PORT");
	if (s && *s) {
		if (!parse_u16(s, &end, &v) || *end) {
			shim_log("PVSMM_RETURN_PORT='%s' is not a port: not enabling pvsmm", s);
			return;
		}
		shim_cfg.return_port = v;
	}

	s = getenv("PVSMM_MARKER_PORT");
	if (s && *s) {
		if (!parse_u16(s, &end, &v) || *end)
			shim_log("PVSMM_MARKER_PORT='%s' is not a port: ignored", s);
		else
			shim_cfg.marker_port = v;
	}

	s = getenv("PVSMM_PORTS");
	if (!s || !*s) {
		shim_log("PVSMM_PORTS is not set (e.g. 0x608 for q35's PM timer): not enabling pvsmm");
		return;
	}
	if (!parse_u16(s, &end, &shim_cfg.first_port))
		goto bad;
	shim_cfg.nr_ports = 1;
	if (*end == '+') {
		if (!parse_u16(end + 1, &end, &shim_cfg.nr_ports))
			goto bad;
	}
	if (*end || !shim_cfg.nr_ports || shim_cfg.nr_ports > PVSMM_MAX_PORTS ||
	    shim_cfg.first_port + shim_cfg.nr_ports - 1 > 0xffff)
		goto bad;
	if (shim_cfg.return_port >= shim_cfg.first_port &&
	    shim_cfg.return_port < shim_cfg.first_port + shim_cfg.nr_ports) {
		shim_log("PVSMM_RETURN_PORT 0x%x is one of the reflected ports: not enabling pvsmm",
			 shim_cfg.return_port);
		return;
	}
	shim_cfg.enabled = true;
	return;
bad:
	shim_log("PVSMM_PORTS='%s' is not FIRST[+COUNT] with 1..%d ports: not enabling pvsmm",
		 s, PVSMM_MAX_PORTS);
}

bool port_is_reflected(uint16_t port)
{
	return (uint16_t)(port - shim_cfg.first_port) < shim_cfg.nr_ports;
}
