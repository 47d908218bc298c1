// SPDX-License-Identifier: MIT
/*
 * Just enough of an x86 decoder to find the length of the IN that caused a
 * KVM_EXIT_IO.  KVM leaves RIP at the IN on such an exit and only skips it
 * when it completes the I/O itself; a reflection replaces that completion,
 * so we must know where the next instruction starts.
 */
#include "insn.h"

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0x66: case 0x67:			/* operand / address size */
	case 0x26: case 0x2e: case 0x36:	/* segment overrides */
	case 0x3e: case 0x64: case 0x65:
	case 0xf2: case 0xf3:			/* rep: ignored by IN */
		return true;
	default:
		return false;
	}
}

bool x86_decode_in(const uint8_t *bytes, size_t avail, unsigned int code_bits,
		   struct in_insn *out)
{
	bool opsize_prefix = false;
	size_t i = 0;

	if (avail > X86_MAX_INSN_LEN)
		avail = X86_MAX_INSN_LEN;

	for (; i < avail; i++) {
		uint8_t b = bytes[i];

		if (is_legacy_prefix(b)) {
			if (b == 0x66)
				opsize_prefix = true;
			continue;
		}
		/* REX (no effect on IN) exists only in 64-bit mode. */
		if (code_bits == 64 && (b & 0xf0) == 0x40)
			continue;
		break;
	}
	if (i >= avail)
		return false;

	/* The operand size of IN eAX: 16 in 16-bit code, else 32; 66 flips. */
	unsigned int wide = (code_bits == 16) != opsize_prefix ? 2 : 4;
	uint8_t opcode = bytes[i++];

	switch (opcode) {
	case 0xe4:	/* IN AL, imm8 */
	case 0xe5:	/* IN eAX, imm8 */
		if (i >= avail)
			return false;
		out->has_imm = true;
		out->imm_port = bytes[i++];
		out->size = opcode == 0xe4 ? 1 : (uint8_t)wide;
		break;
	case 0xec:	/* IN AL, DX */
	case 0xed:	/* IN eAX, DX */
		out->has_imm = false;
		out->imm_port = 0;
		out->size = opcode == 0xec ? 1 : (uint8_t)wide;
		break;
	default:
		return false;
	}
	out->length = (uint8_t)i;
	return true;
}
