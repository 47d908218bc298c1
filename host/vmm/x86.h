/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_X86_H
#define PVSMM_X86_H

#include <stdbool.h>
#include <stdint.h>

/* Architectural control-register and flag bits the VMM reads or sets. */
#define X86_CR0_PE		(1ull << 0)
#define X86_CR0_PG		(1ull << 31)
#define X86_CR4_PSE		(1ull << 4)
#define X86_CR4_PAE		(1ull << 5)
#define X86_CR4_LA57		(1ull << 12)
#define X86_CR4_CET		(1ull << 23)
#define X86_EFER_LME		(1ull << 8)
#define X86_EFER_LMA		(1ull << 10)
#define X86_EFER_NXE		(1ull << 11)
#define X86_RFLAGS_TF		(1ull << 8)
#define X86_RFLAGS_VM		(1ull << 17)

/* A 64-bit linear address is canonical: 48 bits, or 57 with LA57. */
static inline bool x86_canonical(uint64_t va, bool la57)
{
	unsigned int bits = la57 ? 57 : 48;
	uint64_t top = va >> (bits - 1);

	return top == 0 || top == ~0ull >> (bits - 1);
}

#endif
