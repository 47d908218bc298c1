/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_INSN_H
#define PVSMM_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define X86_MAX_INSN_LEN	15

struct in_insn {
	uint8_t length;		/* bytes, prefixes included */
	uint8_t size;		/* access size: 1, 2 or 4 */
	bool has_imm;		/* E4/E5: port in the instruction */
	uint8_t imm_port;
};

/*
 * Decodes a non-string IN (E4, E5, EC, ED, with legacy prefixes and, in
 * 64-bit mode, REX) from the bytes at RIP.  code_bits is 16, 32 or 64 (the
 * CS default size).  Returns false if the bytes are not such an IN.
 * Pure, so the unit tests can feed it byte strings.
 */
bool x86_decode_in(const uint8_t *bytes, size_t avail, unsigned int code_bits,
		   struct in_insn *out);

#endif
