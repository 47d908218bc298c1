/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_X86_H
#define PVSMM_X86_H

/* Architectural control-register and flag bits the VMM reads or sets. */
#define X86_CR0_PE		(1ull << 0)
#define X86_CR0_PG		(1ull << 31)
#define X86_CR4_PSE		(1ull << 4)
#define X86_CR4_PAE		(1ull << 5)
#define X86_CR4_LA57		(1ull << 12)
#define X86_CR4_CET		(1ull << 23)
#define X86_EFER_LMA		(1ull << 10)
#define X86_EFER_NXE		(1ull << 11)
#define X86_RFLAGS_TF		(1ull << 8)
#define X86_RFLAGS_VM		(1ull << 17)

#endif
