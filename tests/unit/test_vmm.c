// SPDX-License-Identifier: MIT
/*
 * Unit tests of the VMM's pure pieces: the PM timer conversion, the IN
 * instruction decoder, and the port map with the I/O exit dispatch and
 * accounting on top of it (the descriptor's validation: desc.c).
 * `make unit` runs them; they need no /dev/kvm.
 */
#include <stdio.h>
#include <string.h>

#include "insn.h"
#include "io.h"
#include "pio_table.h"
#include "pm_ticks.h"
#include "suites.h"
#include "test.h"

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

/* ---- Port map and I/O exits ------------------------------------------- */

static unsigned int handler_calls;

static bool count_calls(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
			uint8_t size, void *ctx)
{
	(void)v;
	(void)port;
	handler_calls++;
	if (in)
		memset(data, *(uint8_t *)ctx, size);
	return true;
}

static bool write_only(struct vcpu *v, uint16_t port, bool in, uint8_t *data,
		       uint8_t size, void *ctx)
{
	(void)v;
	(void)port;
	(void)data;
	(void)size;
	(void)ctx;
	return !in;
}

static void test_pio_table(void)
{
	struct pio_table t = { .nr = 0 };
	const struct pio_range *clash;
	uint8_t fill = 0x5a;

	CHECK(pio_register(&t, 0x3f8, 8, count_calls, &fill, "uart", &clash),
	      "first range");
	CHECK(pio_register(&t, 0x400, 1, write_only, NULL, "wo", &clash),
	      "a single port");
	CHECK(!pio_register(&t, 0x3ff, 2, count_calls, NULL, "x", &clash) &&
	      clash && clash->first == 0x3f8, "overlap at the end refused");
	CHECK(!pio_register(&t, 0x3f0, 9, count_calls, NULL, "x", &clash) &&
	      clash && clash->first == 0x3f8, "overlap at the start refused");
	CHECK(pio_register(&t, 0x3f0, 8, count_calls, NULL, "x", &clash),
	      "adjacent below is fine");
	CHECK(!pio_register(&t, 0x500, 0, count_calls, NULL, "x", &clash) &&
	      !clash, "empty range refused");
	CHECK(!pio_register(&t, 0xfff0, 0x11, count_calls, NULL, "x", &clash),
	      "past 0xffff refused");
	CHECK(pio_register(&t, 0xfff0, 0x10, count_calls, NULL, "top", &clash),
	      "up to 0xffff");
	CHECK(pio_find(&t, 0x3f8) == &t.ranges[0] &&
	      pio_find(&t, 0x3ff) == &t.ranges[0], "first and last port");
	CHECK(!pio_find(&t, 0x401) && !pio_find(&t, 0x3ef), "holes");
	CHECK(pio_find(&t, 0xffff) && pio_find(&t, 0xffff)->first == 0xfff0,
	      "port 0xffff");
	while (t.nr < PIO_MAX_RANGES)
		pio_register(&t, (uint16_t)(0x1000 + t.nr), 1, count_calls,
			     NULL, "fill", NULL);
	CHECK(!pio_register(&t, 0x2000, 1, count_calls, NULL, "x", &clash) &&
	      !clash, "a full table refuses");
}

/* One exit through io_handle_exit, with the run page in a buffer. */
static void io_exit(struct vcpu *v, bool in, uint16_t port, uint8_t size,
		    uint32_t count)
{
	v->run->exit_reason = KVM_EXIT_IO;
	v->run->io.direction = in ? KVM_EXIT_IO_IN : KVM_EXIT_IO_OUT;
	v->run->io.port = port;
	v->run->io.size = size;
	v->run->io.count = count;
	v->run->io.data_offset = 1024;
	memset((uint8_t *)v->run + 1024, 0, 64);
	io_handle_exit(v);
}

static uint64_t port_exits(const struct vcpu *v, uint16_t port)
{
	for (unsigned int i = 0; i < v->counters.nr_ports; i++)
		if (v->counters.ports[i].port == port)
			return v->counters.ports[i].count;
	return 0;
}

static void test_io_dispatch(void)
{
	static struct vm vm;
	static struct vcpu v;
	static uint64_t page[4096 / 8];
	uint8_t fill = 0x5a;
	const uint8_t *data = (const uint8_t *)page + 1024;

	v.vm = &vm;
	v.run = (struct kvm_run *)page;
	pio_register(&vm.pio, 0x3f8, 8, count_calls, &fill, "uart", NULL);
	pio_register(&vm.pio, 0x400, 1, write_only, NULL, "wo", NULL);

	handler_calls = 0;
	io_exit(&v, true, 0x3f9, 1, 1);
	CHECK(handler_calls == 1 && data[0] == 0x5a, "IN reaches the owner");
	io_exit(&v, true, 0x3fa, 2, 3);
	CHECK(handler_calls == 4 && data[0] == 0x5a && data[5] == 0x5a,
	      "INSW x3: one call per element (%u)", handler_calls);
	CHECK(port_exits(&v, 0x3fa) == 1, "one exit counted for the string");
	io_exit(&v, true, 0x500, 4, 2);
	CHECK(v.counters.unknown_io == 2 && data[0] == 0xff && data[7] == 0xff,
	      "nothing there: floats high, counted per element");
	io_exit(&v, false, 0x500, 1, 1);
	CHECK(v.counters.unknown_io == 3, "writes to nothing are counted");
	io_exit(&v, true, 0x400, 1, 1);
	CHECK(v.counters.unknown_io == 4 && data[0] == 0xff,
	      "IN from a write-only port: unknown");
	io_exit(&v, false, 0x400, 1, 1);
	CHECK(v.counters.unknown_io == 4, "OUT to it is handled");
	CHECK(port_exits(&v, 0x500) == 2 && port_exits(&v, 0x400) == 2 &&
	      port_exits(&v, 0x3f9) == 1, "exits by port");
}

void test_vmm(void)
{
	test_pm_ticks();
	test_decoder();
	test_pio_table();
	test_io_dispatch();
}
