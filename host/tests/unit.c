// SPDX-License-Identifier: MIT
/*
 * Unit tests of the VMM's pure pieces: the PM timer conversion, the
 * registration descriptor validation and the IN instruction decoder.
 * `make -C host check` runs them; they need no /dev/kvm.
 */
#include <stdio.h>
#include <string.h>

#include "desc.h"
#include "pvsmm/abi.h"
#include "../insn.h"
#include "../pm_ticks.h"
#include "../../tests/unit/test.h"
#include "boot.h"

unsigned long test_passed, test_failed;

/* ---- PM timer ---------------------------------------------------------- */

/* The same floor(ns * f / 10^9) without 128-bit arithmetic, by splitting
 * ns into whole seconds and the rest. */
static uint32_t ticks_reference(uint64_t ns)
{
	uint64_t sec = ns / PVSMM_NSEC_PER_SEC, rest = ns % PVSMM_NSEC_PER_SEC;
	uint64_t ticks = sec * PVSMM_PM_TIMER_HZ +
			 rest * PVSMM_PM_TIMER_HZ / PVSMM_NSEC_PER_SEC;

	return (uint32_t)(ticks & PVSMM_PM_TIMER_MASK);
}

static void test_pm_ticks(void)
{
	CHECK(pm_timer_ticks_from_ns(0) == 0, "0 ns");
	CHECK(pm_timer_ticks_from_ns(279) == 0, "279 ns is under one tick");
	CHECK(pm_timer_ticks_from_ns(280) == 1, "280 ns is one tick");
	CHECK(pm_timer_ticks_from_ns(1000000000ull) == (3579545u & 0xffffff),
	      "one second");
	/* 2^24 ticks = 4.6869...s: the counter wraps to 0 there. */
	uint64_t wrap_ns = (((uint64_t)1 << 24) * PVSMM_NSEC_PER_SEC +
			    PVSMM_PM_TIMER_HZ - 1) / PVSMM_PM_TIMER_HZ;
	CHECK(pm_timer_ticks_from_ns(wrap_ns) == 0, "wrap: %u",
	      pm_timer_ticks_from_ns(wrap_ns));
	CHECK(pm_timer_ticks_from_ns(wrap_ns - 1) == 0xffffff, "before wrap");
	/* ns * HZ passes 2^64 at ~5153 s: 64-bit math would go wrong here. */
	uint64_t big = UINT64_MAX / PVSMM_PM_TIMER_HZ + 1;
	CHECK(pm_timer_ticks_from_ns(big) == ticks_reference(big),
	      "past 2^64 product: %u vs %u", pm_timer_ticks_from_ns(big),
	      ticks_reference(big));
	CHECK(pm_timer_ticks_from_ns(UINT64_MAX) == ticks_reference(UINT64_MAX),
	      "UINT64_MAX");

	uint64_t x = 0x9e3779b97f4a7c15ull;
	unsigned int bad = 0;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		uint64_t ns = i & 1 ? x : x >> (i % 64);
		if (pm_timer_ticks_from_ns(ns) != ticks_reference(ns))
			bad++;
	}
	CHECK(bad == 0, "%u random values disagree with the reference", bad);
}

/* ---- IN decoder ---------------------------------------------------------- */

static void expect_in(const char *what, const uint8_t *b, size_t n,
		      unsigned int bits, bool ok, unsigned int len,
		      unsigned int size, int imm)
{
	struct in_insn insn;
	bool got = x86_decode_in(b, n, bits, &insn);

	CHECK(got == ok, "%s (%u-bit): decode %s", what, bits,
	      got ? "succeeded" : "failed");
	if (!got || !ok)
		return;
	CHECK(insn.length == len, "%s: length %u, want %u", what, insn.length,
	      len);
	CHECK(insn.size == size, "%s: size %u, want %u", what, insn.size, size);
	CHECK(insn.has_imm == (imm >= 0), "%s: has_imm", what);
	if (imm >= 0)
		CHECK(insn.imm_port == imm, "%s: port %u", what, insn.imm_port);
}

#define IN(what, bits, ok, len, size, imm, ...) do {			\
		const uint8_t b[] = { __VA_ARGS__ };			\
		expect_in(what, b, sizeof(b), bits, ok, len, size, imm); \
	} while (0)

static void test_decoder(void)
{
	IN("in al,dx", 64, true, 1, 1, -1, 0xec);
	IN("in eax,dx", 64, true, 1, 4, -1, 0xed);
	IN("in eax,dx", 32, true, 1, 4, -1, 0xed);
	IN("in ax,dx", 16, true, 1, 2, -1, 0xed);
	IN("in ax,dx", 64, true, 2, 2, -1, 0x66, 0xed);
	IN("in eax,dx", 16, true, 2, 4, -1, 0x66, 0xed);
	IN("in al,dx (66 ignored)", 64, true, 2, 1, -1, 0x66, 0xec);
	IN("in al,imm8", 64, true, 2, 1, 0x80, 0xe4, 0x80);
	IN("in eax,imm8", 32, true, 2, 4, 0x71, 0xe5, 0x71);
	IN("in ax,imm8", 64, true, 3, 2, 0x08, 0x66, 0xe5, 0x08);
	IN("rex.w in eax,dx", 64, true, 2, 4, -1, 0x48, 0xed);
	IN("rex in al,dx", 64, true, 2, 1, -1, 0x40, 0xec);
	IN("67 66 in", 64, true, 3, 2, -1, 0x67, 0x66, 0xed);
	IN("segment prefix", 64, true, 2, 4, -1, 0x2e, 0xed);
	IN("rep prefix", 32, true, 2, 1, -1, 0xf3, 0xec);
	/* 0x48 is DEC EAX outside 64-bit mode: not an IN at all. */
	IN("dec eax; in", 32, false, 0, 0, -1, 0x48, 0xed);
	IN("out dx,al", 64, false, 0, 0, -1, 0xee);
	IN("insb", 64, false, 0, 0, -1, 0x6c);
	IN("no opcode", 64, false, 0, 0, -1, 0x66, 0x66);
	IN("imm8 missing", 64, false, 0, 0, -1, 0xe4);
	IN("empty", 64, false, 0, 0, -1, 0x90);

	uint8_t longest[16];
	memset(longest, 0x66, sizeof(longest));
	longest[14] = 0xed;	/* 14 prefixes + opcode = 15 bytes: legal */
	expect_in("15 bytes", longest, 15, 64, true, 15, 2, -1);
	longest[14] = 0x66;
	longest[15] = 0xed;	/* 16 bytes: longer than x86 allows */
	expect_in("16 bytes", longest, 16, 64, false, 0, 0, -1);
}

int main(void)
{
	test_pm_ticks();
	test_descriptor();
	test_decoder();
	test_boot();
	printf("host unit tests: %lu passed, %lu failed\n", test_passed, test_failed);
	return test_failed ? 1 : 0;
}
