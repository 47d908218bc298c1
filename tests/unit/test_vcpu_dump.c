// SPDX-License-Identifier: MIT
/*
 * vcpu_dump_state() (host/vmm/vcpu_dump.c) against a hostile guest.  The
 * dump runs when a signal or a fatal exit stops the VM, and reads up to 32
 * stack words from SS:RSP through KVM_TRANSLATE and guest_read_phys().
 * The guest owns everything those answer from: RSP, SS's base and B bit,
 * CS.L, EFER.LMA and its page tables.  Whatever they say, the dump must
 * read only our copy of guest RAM and ROM, stay bounded (32 words, at most
 * two translations each), never crash, and stop at the first word that
 * does not translate or is not backed.
 *
 * A fake KVM (the ioctl() below) answers for the vCPU: canned registers,
 * and KVM_TRANSLATE from a table each scenario sets, recording every
 * linear address asked.  Guest RAM and ROM sit between PROT_NONE guard
 * pages, so a read past either is a SIGSEGV, which fails the suite
 * (run.sh counts a suite that dies without its line as a failure).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_mem.h"
#include "test.h"
#include "vcpu_dump.h"
#include "x86.h"

unsigned long test_passed, test_failed;

#define RAM_SIZE	0x40000ull	/* 256 KiB: real-mode stacks at 64 KiB */
#define ROM_GPA		((uint64_t)PVSMM_FW_ROM_GPA)
#define ROM_END		(ROM_GPA + PVSMM_FW_ROM_SIZE)	/* 4 GiB */
#define PAGE		((uint64_t)PVSMM_PAGE_SIZE)
#define PAGE_MASK	(~(PAGE - 1))
#define FAKE_VCPU_FD	1000	/* never opened: only our ioctl() knows it */
#define STACK_WORDS	32	/* DUMP_STACK_WORDS */
#define MAX_TRANSLATES	(2 * STACK_WORDS)	/* a word spans <= 2 pages */
#define RUNAWAY		4096	/* translations: the dump is looping */
#define MAX_ASKED	256
#define MAX_MAP		8

/* ---- the fake KVM ------------------------------------------------------- */

enum xlat_kind {
	XL_PAGE,	/* phys is the page's: the offset in it is added */
	XL_RAW,		/* phys as is, for any address in the page: no
			   KVM answers so, whatever the guest's tables, but
			   it puts a word across the end of RAM or ROM, for
			   guest_read_phys' own bounds */
	XL_FAIL,	/* the ioctl itself fails (EFAULT) */
};

struct xlat {
	uint64_t page;
	uint64_t phys;
	enum xlat_kind kind;
};

/* Pages not in the map: unmapped (valid 0), or one of these for all. */
enum xlat_default {
	XD_UNMAPPED,
	XD_IDENTITY,	/* paging off: physical = linear, any width */
	XD_ALIAS,	/* tables that send every page to alias_phys */
};

static struct {
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	uint32_t mp_state;
	int fail_mp, fail_regs, fail_sregs;	/* errno, or 0 */
	struct xlat map[MAX_MAP];
	unsigned int nr_map;
	enum xlat_default dflt;
	uint64_t alias_phys;
	unsigned int translates;
	uint64_t asked[MAX_ASKED];
	unsigned int unknown;		/* other fds or requests */
} fake;

static int fail(int err)
{
	errno = err;
	return -1;
}

static int translate(struct kvm_translation *t)
{
	uint64_t lin = t->linear_address;

	if (fake.translates < MAX_ASKED)
		fake.asked[fake.translates] = lin;
	/* A dump that loops gets errors from here on; the CHECKs of the
	 * count then fail it (and the alarm catches one that ignores them). */
	if (++fake.translates > RUNAWAY)
		return fail(EIO);
	t->valid = 0;
	t->writeable = t->usermode = 0;
	for (unsigned int i = 0; i < fake.nr_map; i++) {
		const struct xlat *x = &fake.map[i];

		if ((lin & PAGE_MASK) != x->page)
			continue;
		if (x->kind == XL_FAIL)
			return fail(EFAULT);
		t->physical_address = x->phys;
		if (x->kind == XL_PAGE)
			t->physical_address += lin & ~PAGE_MASK;
		t->valid = 1;
		return 0;
	}
	if (fake.dflt == XD_IDENTITY) {
		t->physical_address = lin;
		t->valid = 1;
	} else if (fake.dflt == XD_ALIAS) {
		t->physical_address = fake.alias_phys + (lin & ~PAGE_MASK);
		t->valid = 1;
	}
	return 0;
}

/*
 * Overrides libc's ioctl() for this binary alone (it is the dump's own,
 * dump-tests, linked dynamically): an executable's definition interposes
 * on libc.so's, and nothing else here calls ioctl() -- libc's stdio and
 * isatty() use its internal __ioctl, which is not interposed.
 */
int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != FAKE_VCPU_FD) {
		fake.unknown++;
		return fail(ENOTTY);
	}
	switch (request) {
	case KVM_GET_MP_STATE:
		if (fake.fail_mp)
			return fail(fake.fail_mp);
		((struct kvm_mp_state *)arg)->mp_state = fake.mp_state;
		return 0;
	case KVM_GET_REGS:
		if (fake.fail_regs)
			return fail(fake.fail_regs);
		memcpy(arg, &fake.regs, sizeof(fake.regs));
		return 0;
	case KVM_GET_SREGS:
		if (fake.fail_sregs)
			return fail(fake.fail_sregs);
		memcpy(arg, &fake.sregs, sizeof(fake.sregs));
		return 0;
	case KVM_TRANSLATE:
		return translate(arg);
	}
	fake.unknown++;
	return fail(ENOTTY);
}

static void map_page(uint64_t page, uint64_t phys, enum xlat_kind kind)
{
	if (fake.nr_map == MAX_MAP)
		abort();
	fake.map[fake.nr_map++] = (struct xlat){ page, phys, kind };
}

/* ---- the guest: memory and modes ---------------------------------------- */

static struct vm vm;
static struct vcpu vcpu = { .vm = &vm, .fd = FAKE_VCPU_FD };

/* size bytes between two PROT_NONE pages. */
static uint8_t *guarded(size_t size)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, size + 2 * pg, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || size % pg ||
	    mprotect(p + pg, size, PROT_READ | PROT_WRITE) < 0)
		abort();
	return p + pg;
}

/* The test's own way into guest memory (the dump's is guest_read_phys). */
static uint8_t *backing(uint64_t gpa, size_t len)
{
	if (gpa + len <= RAM_SIZE)
		return vm.ram + gpa;
	if (gpa >= ROM_GPA && gpa + len <= ROM_END)
		return vm.rom + (gpa - ROM_GPA);
	abort();
}

/* Little-endian, as the guest stores it (and this x86 host reads it). */
static void put(uint64_t gpa, uint64_t value, unsigned int size)
{
	memcpy(backing(gpa, size), &value, size);
}

static void mode_64(void)
{
	fake.sregs.efer = X86_EFER_LME | X86_EFER_LMA;
	fake.sregs.cr0 = X86_CR0_PE | X86_CR0_PG;
	fake.sregs.cr4 = X86_CR4_PAE;
	fake.sregs.cs.l = 1;
	/* Ignored in 64-bit mode: the stack is 8 bytes wide, flat. */
	fake.sregs.ss.db = 0;
	fake.sregs.ss.base = 0xdead0000;
}

/* 64-bit mode at rsp, tables that send every page to 0x6000. */
static void mode_64_aliased(uint64_t rsp)
{
	mode_64();
	fake.regs.rsp = rsp;
	fake.dflt = XD_ALIAS;
	fake.alias_phys = 0x6000;
}

/* Real or protected mode, paging off; big: SS's B bit (32-bit stack). */
static void mode_legacy(uint64_t cr0, bool big)
{
	fake.sregs.efer = 0;
	fake.sregs.cr0 = cr0;
	fake.sregs.cs.l = 0;
	fake.sregs.ss.db = big;
}

static void mode_compat(void)
{
	mode_64();
	fake.sregs.cs.l = 0;
	fake.sregs.ss.db = 1;
	fake.sregs.ss.base = 0;
}

/* ---- the dump as stderr shows it ---------------------------------------- */

static int real_stderr = -1;
static const char *volatile current = "setup";

struct dump_out {
	char text[16384];
	bool malformed, header;
	unsigned int nwords, nlines;
	uint64_t word[64];
	unsigned int digits[64];
	uint64_t line_addr[16];
};

static struct dump_out out;

/* "  stack ADDR: W W W W" lines, the words as wide as printed. */
static void parse(struct dump_out *o)
{
	for (char *line = o->text, *next; *line; line = next + 1) {
		char *p, *end;

		next = strchr(line, '\n');
		if (!next) {
			o->malformed = true;	/* the dump ends its lines */
			return;
		}
		if (!strncmp(line, "  vCPU ", 7))
			o->header = true;
		if (strncmp(line, "  stack ", 8))
			continue;
		if (o->nlines == 16) {
			o->malformed = true;
			return;
		}
		o->line_addr[o->nlines++] = strtoull(line + 8, &end, 16);
		if (end != line + 8 + 16 || *end != ':') {
			o->malformed = true;
			return;
		}
		for (p = end + 1; p < next; p = end) {
			if (*p != ' ' || o->nwords == 64) {
				o->malformed = true;
				return;
			}
			o->word[o->nwords] = strtoull(++p, &end, 16);
			o->digits[o->nwords++] = (unsigned int)(end - p);
			if (end == p || end > next) {
				o->malformed = true;
				return;
			}
		}
	}
}

/* vcpu_dump_state() with fd 2 on a memfd, its text parsed into out. */
static void dump(void)
{
	int fd = memfd_create("dump-stderr", 0);
	ssize_t n;

	memset(&out, 0, sizeof(out));
	fflush(stderr);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		abort();
	vcpu_dump_state(&vcpu);
	fflush(stderr);
	if (dup2(real_stderr, STDERR_FILENO) < 0)
		abort();
	n = pread(fd, out.text, sizeof(out.text) - 1, 0);
	close(fd);
	if (n < 0)
		abort();
	out.text[n] = '\0';
	parse(&out);
}

static void crashed(int sig)
{
	static const char msg[] = "vcpu-dump: crashed or hung in: ";

	if (write(real_stderr, msg, sizeof(msg) - 1) < 0 ||
	    write(real_stderr, current, strlen(current)) < 0 ||
	    write(real_stderr, "\n", 1) < 0) {
		/* nothing more to say */
	}
	_exit(128 + sig);
}

/* A fresh guest: RAM and ROM filled with 0xcc/0xee, the fake reset. */
static void reset(const char *name)
{
	current = name;
	memset(&fake, 0, sizeof(fake));
	memset(vm.ram, 0xcc, RAM_SIZE);
	memset(vm.rom, 0xee, PVSMM_FW_ROM_SIZE);
	fake.regs.rip = 0xffffffff81000000ull;
	fake.regs.rflags = 0x2;
}

/* ---- checks ------------------------------------------------------------- */

/* Whatever the scenario: parseable, bounded, only the vCPU's fd asked. */
static void check_sane(void)
{
	CHECK(!out.malformed, "%s: malformed dump:\n%s", current, out.text);
	CHECK(fake.translates <= MAX_TRANSLATES, "%s: %u translations",
	      current, fake.translates);
	CHECK(out.nwords <= STACK_WORDS, "%s: %u words", current, out.nwords);
	CHECK(fake.unknown == 0, "%s: %u other ioctls", current, fake.unknown);
}

static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/* The first of n where got and want differ; n if none. */
static unsigned int first_diff(const uint64_t *got, const uint64_t *want,
			       unsigned int n)
{
	unsigned int i = 0;

	while (i < n && got[i] == want[i])
		i++;
	return i;
}

/*
 * Where the dump's stack lines start: up to four words a line, a new one
 * where the next word is not at the next address (the offset wrapped; in
 * 32-bit modes, 4 GiB wraps to 0).  Returns how many lines.
 */
static unsigned int line_starts(const uint64_t *lin, unsigned int n,
				unsigned int size, uint64_t *starts)
{
	unsigned int lines = 0, in_line = 0;

	for (unsigned int i = 0; i < n; i++) {
		bool follows = i && (lin[i] == lin[i - 1] + size ||
				     (lin[i] == 0 &&
				      lin[i - 1] + size == 0x100000000ull));

		if (in_line == 4 || !follows) {
			starts[lines++] = lin[i];
			in_line = 0;
		}
		in_line++;
	}
	return lines;
}

/*
 * n words of size bytes, the i-th at linear lin[i] holding val[i] (NULL:
 * not checked), the registers before them; then the translations, asked
 * for exactly the addresses of asked[].  (A failing CHECK's message is
 * only evaluated when it fails: i < m there.)
 */
static void expect(unsigned int n, unsigned int size, const uint64_t *lin,
		   const uint64_t *val, unsigned int nasked,
		   const uint64_t *asked)
{
	unsigned int m = min_u(out.nwords, n), i, nlines;
	uint64_t starts[STACK_WORDS];

	check_sane();
	CHECK(out.header, "%s: no registers:\n%s", current, out.text);
	CHECK(out.nwords == n, "%s: %u words, want %u:\n%s", current,
	      out.nwords, n, out.text);
	for (i = 0; i < m && out.digits[i] == size * 2; i++)
		;
	CHECK(i == m, "%s: word %u has %u digits, want %u", current, i,
	      out.digits[i], size * 2);
	if (val) {
		i = first_diff(out.word, val, m);
		CHECK(i == m, "%s: word %u is %llx, want %llx:\n%s", current,
		      i, (unsigned long long)out.word[i],
		      (unsigned long long)val[i], out.text);
	}
	nlines = line_starts(lin, n, size, starts);
	CHECK(out.nlines == nlines, "%s: %u stack lines, want %u:\n%s",
	      current, out.nlines, nlines, out.text);
	m = min_u(out.nlines, nlines);
	for (i = 0; i < m && out.line_addr[i] == starts[i]; i++)
		;
	CHECK(i == m, "%s: stack line %u at %llx, want %llx", current, i,
	      (unsigned long long)out.line_addr[i],
	      (unsigned long long)starts[i]);
	CHECK(fake.translates == nasked, "%s: %u translations, want %u",
	      current, fake.translates, nasked);
	m = min_u(min_u(fake.translates, nasked), MAX_ASKED);
	i = first_diff(fake.asked, asked, m);
	CHECK(i == m, "%s: translation %u asked for %llx, want %llx", current,
	      i, (unsigned long long)fake.asked[i],
	      (unsigned long long)asked[i]);
}

/* No stack, the registers shown, one translation asked for lin. */
static void expect_none(uint64_t lin)
{
	expect(0, 8, NULL, NULL, 1, &lin);
	CHECK(!strstr(out.text, "stack"), "%s: a stack line:\n%s", current,
	      out.text);
}

/* ---- scenarios ---------------------------------------------------------- */

/* 1: a 64-bit stack wholly in RAM, up to the last byte of its page. */
static void test_full_stack(void)
{
	const uint64_t rsp = 0xffffc90000013f00ull;
	uint64_t lin[STACK_WORDS], val[STACK_WORDS];
	char line[128];

	reset("64-bit stack in RAM");
	mode_64();
	fake.regs.rsp = rsp;
	map_page(rsp & PAGE_MASK, 0x5000, XL_PAGE);
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = rsp + 8 * i;
		val[i] = 0x5eed000000000000ull + i;
		put(0x5f00 + 8 * i, val[i], 8);
	}
	dump();
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS, lin);
	CHECK(strstr(out.text, "rsp ffffc90000013f00") != NULL, "%s: rsp:\n%s",
	      current, out.text);
	snprintf(line, sizeof(line),
		 "\n  stack %016llx: %016llx %016llx %016llx %016llx\n",
		 (unsigned long long)rsp, (unsigned long long)val[0],
		 (unsigned long long)val[1], (unsigned long long)val[2],
		 (unsigned long long)val[3]);
	CHECK(strstr(out.text, line) != NULL, "%s: no line \"%s\" in:\n%s",
	      current, line + 1, out.text);
}

/*
 * 2: RSP that does not translate, or must not be translated: KVM walks a
 * non-canonical address by its low bits (here: every page is there), so
 * the dump itself must refuse it.
 */
static void test_no_translation(void)
{
	const uint64_t rsp = 0x8000000000000000ull;
	uint64_t lin[STACK_WORDS], val[STACK_WORDS];

	reset("non-canonical RSP, KVM_GET_MP_STATE failing");
	mode_64_aliased(rsp);
	fake.fail_mp = EINVAL;	/* best effort: shown as ~0 */
	dump();
	expect(0, 8, NULL, NULL, 0, NULL);
	CHECK(strstr(out.text, "mp_state 4294967295 ") != NULL,
	      "%s: mp_state:\n%s", current, out.text);
	CHECK(strstr(out.text, "rsp 8000000000000000") != NULL, "%s: rsp",
	      current);

	/* The user half's last words, then the hole: three words. */
	reset("stack running into the non-canonical hole");
	mode_64_aliased(0x00007fffffffffe8ull);
	for (unsigned int i = 0; i < 3; i++) {
		lin[i] = fake.regs.rsp + 8 * i;
		val[i] = 0x4011000000000000ull + i;
		put(0x6fe8 + 8 * i, val[i], 8);
	}
	dump();
	expect(3, 8, lin, val, 3, lin);

	/* With LA57 the same addresses are canonical: the stack goes on. */
	reset("the same stack with LA57");
	mode_64_aliased(0x00007fffffffffe8ull);
	fake.sregs.cr4 |= X86_CR4_LA57;
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = fake.regs.rsp + 8 * i;
		val[i] = 0x1a57000000000000ull + i;
		put(0x6000 + ((0xfe8 + 8 * i) & 0xfff), val[i], 8);
	}
	dump();
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS, lin);

	/* A word whose last byte is past the hole: not read either. */
	reset("a word across the start of the hole");
	mode_64_aliased(0x00007ffffffffffcull);
	dump();
	expect(0, 8, NULL, NULL, 0, NULL);

	reset("KVM_TRANSLATE fails");
	mode_64();
	fake.regs.rsp = 0x7ffc0000;
	map_page(0x7ffc0000, 0x1000, XL_FAIL);
	dump();
	expect_none(0x7ffc0000);
}

/* A translation to phys for the one word at RSP 0x1000: not backed. */
static void one_word_unbacked(const char *name, uint64_t phys)
{
	reset(name);
	mode_64();
	fake.regs.rsp = 0x1000;
	map_page(0x1000, phys, XL_RAW);
	dump();
	expect_none(0x1000);
}

/* 3: valid translations that lie outside RAM and ROM, or end there. */
static void test_outside_memory(void)
{
	uint64_t lin[4], val[4];

	one_word_unbacked("physical at RAM's end", RAM_SIZE);
	/* Without guest_ram_ptr's len check this reads the guard page. */
	one_word_unbacked("8 bytes at RAM's end - 4", RAM_SIZE - 4);
	one_word_unbacked("gpa + 8 wraps 2^64 (raw)", UINT64_MAX - 3);
	one_word_unbacked("below the ROM, above RAM", ROM_GPA - 8);
	one_word_unbacked("8 bytes into the ROM from 4 below", ROM_GPA - 4);
	one_word_unbacked("8 bytes at the ROM's end - 4", ROM_END - 4);
	one_word_unbacked("physical at 4 GiB", ROM_END);

	reset("gpa + 8 wraps 2^64 (page)");
	mode_64();
	fake.regs.rsp = 0x1ff8;
	map_page(0x1000, 0xfffffffffffff000ull, XL_PAGE);
	dump();
	expect_none(0x1ff8);

	/* The guest's tables point the next page just past RAM. */
	reset("RAM's last words, then past it");
	mode_64();
	fake.regs.rsp = 0x1ff0;
	map_page(0x1000, RAM_SIZE - PAGE, XL_PAGE);
	map_page(0x2000, RAM_SIZE, XL_PAGE);
	put(RAM_SIZE - 16, 0x1a57000000000001ull, 8);
	put(RAM_SIZE - 8, 0x1a57000000000002ull, 8);
	dump();
	lin[0] = 0x1ff0;
	lin[1] = 0x1ff8;
	lin[2] = 0x2000;
	val[0] = 0x1a57000000000001ull;
	val[1] = 0x1a57000000000002ull;
	expect(2, 8, lin, val, 3, lin);

	/* ...and the ROM's, then 4 GiB. */
	reset("ROM's last words, then past it");
	mode_64();
	fake.regs.rsp = 0x1fe0;
	map_page(0x1000, ROM_END - PAGE, XL_PAGE);
	map_page(0x2000, ROM_END, XL_PAGE);
	for (unsigned int i = 0; i < 4; i++) {
		lin[i] = 0x1fe0 + 8 * i;
		val[i] = 0x0a0a000000000000ull + i;
		put(ROM_END - 32 + 8 * i, val[i], 8);
	}
	dump();
	{
		const uint64_t asked[5] = { 0x1fe0, 0x1fe8, 0x1ff0, 0x1ff8,
					    0x2000 };

		expect(4, 8, lin, val, 5, asked);
	}
}

/* 4: the stack runs into an unmapped page; words straddling two pages. */
static void test_page_boundary(void)
{
	uint64_t lin[STACK_WORDS], val[STACK_WORDS], asked[STACK_WORDS + 1];

	reset("next page unmapped");
	mode_64();
	fake.regs.rsp = 0x3fe8;
	map_page(0x3000, 0x3000, XL_PAGE);
	for (unsigned int i = 0; i < 4; i++) {
		lin[i] = 0x3fe8 + 8 * i;
		val[i] = 0xb0d0000000000000ull + i;
		if (i < 3)
			put(lin[i], val[i], 8);
	}
	dump();
	expect(3, 8, lin, val, 4, lin);

	/*
	 * A word from two translations, pages apart in guest memory: its
	 * first half RAM's last 4 bytes (a read of 8 there would hit the
	 * guard page), its second half at 0x2000.
	 */
	reset("straddling word, both halves valid");
	mode_64();
	fake.regs.rsp = 0x3ffc;
	map_page(0x3000, RAM_SIZE - PAGE, XL_PAGE);
	map_page(0x4000, 0x2000, XL_PAGE);
	put(RAM_SIZE - 4, 0x44332211, 4);
	put(0x2000, 0x88776655, 4);
	lin[0] = 0x3ffc;
	val[0] = 0x8877665544332211ull;
	asked[0] = 0x3ffc;
	asked[1] = 0x4000;
	for (unsigned int i = 1; i < STACK_WORDS; i++) {
		lin[i] = 0x3ffc + 8 * i;
		val[i] = 0xc0de000000000000ull + i;
		asked[i + 1] = lin[i];
		put(0x2004 + 8 * (i - 1), val[i], 8);
	}
	dump();
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS + 1, asked);

	reset("straddling word, second half unmapped");
	mode_64();
	fake.regs.rsp = 0x3ffc;
	map_page(0x3000, 0x3000, XL_PAGE);
	dump();
	expect(0, 8, lin, NULL, 2, asked);

	reset("straddling word, second half past RAM");
	mode_64();
	fake.regs.rsp = 0x3ffc;
	map_page(0x3000, 0x3000, XL_PAGE);
	map_page(0x4000, RAM_SIZE, XL_PAGE);
	dump();
	expect(0, 8, lin, NULL, 2, asked);

	reset("straddling word, first half unmapped");
	mode_64();
	fake.regs.rsp = 0x3ffc;
	map_page(0x4000, 0x4000, XL_PAGE);
	dump();
	expect_none(0x3ffc);
}

/* 5: a 16-bit stack: SP wraps at 64 KiB within the segment, 2-byte words. */
static void test_stack_16(void)
{
	uint64_t lin[STACK_WORDS], val[STACK_WORDS], asked[STACK_WORDS + 1];

	/* ESP's upper half is the guest's to leave anything in: B=0 uses SP. */
	reset("16-bit stack, SP wrapping");
	mode_legacy(0, false);	/* real mode */
	fake.sregs.ss.base = 0x10000;
	fake.regs.rsp = 0x1234fffc;
	fake.dflt = XD_IDENTITY;
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = 0x10000 + ((0xfffc + 2 * i) & 0xffff);
		val[i] = 0xa000 + i;
		put(lin[i], val[i], 2);
	}
	dump();
	expect(STACK_WORDS, 2, lin, val, STACK_WORDS, lin);
	CHECK(lin[2] == 0x10000 && out.nwords > 2 && out.word[2] == 0xa002,
	      "%s: the third word is at the segment's base", current);

	/*
	 * SP 0xffff: the first word crosses the segment's end, where the CPU
	 * would raise #SS; the dump reads on linearly (ss.base + 0x10000),
	 * asks for both pages, and goes on from offset 1.
	 */
	reset("16-bit stack, SP 0xffff");
	mode_legacy(0, false);
	fake.sregs.ss.base = 0x10000;
	fake.regs.rsp = 0xffff;
	fake.dflt = XD_IDENTITY;
	put(0x1ffff, 0x34, 1);
	put(0x20000, 0x12, 1);
	lin[0] = asked[0] = 0x1ffff;
	val[0] = 0x1234;
	asked[1] = 0x20000;
	for (unsigned int i = 1; i < STACK_WORDS; i++) {
		lin[i] = asked[i + 1] = 0x10000 + ((0xffff + 2 * i) & 0xffff);
		val[i] = 0xcccc;
	}
	dump();
	expect(STACK_WORDS, 2, lin, val, STACK_WORDS + 1, asked);
}

/* 6: 32-bit stacks: the linear address wraps at 4 GiB. */
static void test_stack_32(void)
{
	uint64_t lin[STACK_WORDS], val[STACK_WORDS];

	/* Paging off: linear = physical, so this is the ROM and its end. */
	reset("32-bit stack, ss.base + ESP wrapping 4 GiB");
	mode_legacy(X86_CR0_PE, true);
	fake.sregs.ss.base = 0xfffff000;
	fake.regs.rsp = 0xfffffff8;
	fake.dflt = XD_IDENTITY;
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = (uint32_t)(0xfffff000u + 0xfffffff8u + 4 * i);
		val[i] = 0xf00d0000 + i;
		put(lin[i], val[i], 4);
	}
	dump();
	expect(STACK_WORDS, 4, lin, val, STACK_WORDS, lin);
	CHECK(lin[0] == 0xffffeff8 && lin[2] == 0xfffff000, "%s: the model",
	      current);

	/* Compatibility mode: RSP's upper half ignored, ESP wraps to 0. */
	reset("compatibility mode, ESP wrapping");
	mode_compat();
	fake.regs.rsp = 0xfffffffffffffff8ull;
	fake.dflt = XD_IDENTITY;
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = (uint32_t)(0xfffffff8u + 4 * i);
		val[i] = 0xc0a70000 + i;
		put(lin[i], val[i], 4);
	}
	dump();
	expect(STACK_WORDS, 4, lin, val, STACK_WORDS, lin);
	CHECK(lin[1] == 0xfffffffc && lin[2] == 0, "%s: the model", current);

	/*
	 * ESP 0xfffffffe, a word across 4 GiB (the CPU would fault on the
	 * limit): the dump reads its second half at 0, as the 32-bit linear
	 * address space wraps, never at 4 GiB.
	 */
	reset("32-bit word across 4 GiB");
	mode_legacy(X86_CR0_PE, true);
	fake.regs.rsp = 0xfffffffe;
	fake.dflt = XD_IDENTITY;
	put(0xfffffffe, 0xbeef, 2);
	put(0, 0xdead, 2);
	dump();
	check_sane();
	CHECK(fake.translates >= 2 && fake.asked[0] == 0xfffffffe &&
	      fake.asked[1] == 0 && out.nwords == STACK_WORDS &&
	      out.word[0] == 0xdeadbeef,
	      "%s: %u translations, the second for %llx, %u words, first %llx",
	      current, fake.translates, (unsigned long long)fake.asked[1],
	      out.nwords, (unsigned long long)out.word[0]);
}

/* 6b: CS.L without EFER.LMA means nothing: a 32-bit stack. */
static void test_cs_l_legacy(void)
{
	uint64_t lin[STACK_WORDS], val[STACK_WORDS];

	reset("CS.L=1 in protected mode");
	mode_legacy(X86_CR0_PE, true);
	fake.sregs.cs.l = 1;
	fake.sregs.ss.base = 0x20000;
	fake.regs.rsp = 0xffffffff00000100ull;	/* only ESP counts */
	fake.dflt = XD_IDENTITY;
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = 0x20100 + 4 * i;
		val[i] = 0x32320000 + i;
		put(lin[i], val[i], 4);
	}
	dump();
	expect(STACK_WORDS, 4, lin, val, STACK_WORDS, lin);
}

/* 7: RSP at the top of the 64-bit address space: the offset wraps. */
static void test_rsp_wraps(void)
{
	uint64_t lin[STACK_WORDS], val[STACK_WORDS], asked[STACK_WORDS + 1];

	reset("64-bit RSP wrapping 2^64");
	mode_64();
	fake.regs.rsp = 0xfffffffffffffff8ull;
	map_page(0xfffffffffffff000ull, 0x7000, XL_PAGE);
	map_page(0, 0x9000, XL_PAGE);
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = fake.regs.rsp + 8ull * i;
		val[i] = 0x70a0000000000000ull + i;
		put(i ? 0x9000 + 8 * (i - 1) : 0x7ff8, val[i], 8);
	}
	dump();
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS, lin);
	CHECK(lin[1] == 0, "%s: the model", current);

	/* A word across 2^64: its halves at the top page and at page 0. */
	reset("64-bit word across 2^64");
	mode_64();
	fake.regs.rsp = 0xfffffffffffffffcull;
	map_page(0xfffffffffffff000ull, 0x7000, XL_PAGE);
	map_page(0, 0x9000, XL_PAGE);
	put(0x7ffc, 0xddccbbaa, 4);
	put(0x9000, 0x11223344, 4);
	lin[0] = asked[0] = fake.regs.rsp;
	val[0] = 0x11223344ddccbbaaull;
	asked[1] = 0;
	for (unsigned int i = 1; i < STACK_WORDS; i++) {
		lin[i] = asked[i + 1] = 4 + 8ull * (i - 1);
		val[i] = 0x70b0000000000000ull + i;
		put(0x9004 + 8 * (i - 1), val[i], 8);
	}
	dump();
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS + 1, asked);
}

/* 8: no registers: a warning, nothing read. */
static void test_no_registers(void)
{
	static const struct {
		const char *name;
		int regs, sregs;
		const char *text;
	} cases[] = {
		{ "KVM_GET_REGS fails", EIO, 0,
		  VMM_NAME ": vCPU 5: cannot read registers: Input/output error\n" },
		{ "KVM_GET_SREGS fails", 0, EBADF,
		  VMM_NAME ": vCPU 5: cannot read registers: Bad file descriptor\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset(cases[i].name);
		mode_64();
		fake.regs.rsp = 0x1000;
		fake.fail_regs = cases[i].regs;
		fake.fail_sregs = cases[i].sregs;
		fake.dflt = XD_IDENTITY;
		vcpu.index = 5;
		dump();
		vcpu.index = 0;
		check_sane();
		CHECK(!strcmp(out.text, cases[i].text), "%s: got \"%s\"",
		      current, out.text);
		CHECK(fake.translates == 0, "%s: %u translations", current,
		      fake.translates);
	}
}

/* 9: tables that alias every page to one: still 32 words, bounded. */
static void test_alias(void)
{
	const uint64_t rsp = 0x00007ffd12345ff8ull;
	uint64_t lin[STACK_WORDS], val[STACK_WORDS], asked[STACK_WORDS + 1];

	reset("every page aliased");
	mode_64_aliased(rsp);
	for (unsigned int i = 0; i < STACK_WORDS; i++) {
		lin[i] = rsp + 8 * i;
		val[i] = 0xa11a000000000000ull + i;
		put(0x6000 + ((rsp + 8 * i) & ~PAGE_MASK), val[i], 8);
	}
	dump();
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS, lin);

	/* Every word translates to the same 8 bytes, RAM's last. */
	reset("every address aliased to RAM's last word");
	mode_64();
	fake.regs.rsp = rsp + 4;	/* the first word straddles */
	map_page(rsp & PAGE_MASK, RAM_SIZE - 8, XL_RAW);
	map_page((rsp & PAGE_MASK) + PAGE, RAM_SIZE - 8, XL_RAW);
	put(RAM_SIZE - 8, 0x0123456789abcdefull, 8);
	lin[0] = asked[0] = rsp + 4;
	val[0] = 0x0123456789abcdefull;
	asked[1] = (rsp & PAGE_MASK) + PAGE;
	for (unsigned int i = 1; i < STACK_WORDS; i++) {
		lin[i] = asked[i + 1] = rsp + 4 + 8 * i;
		val[i] = 0x0123456789abcdefull;
	}
	dump();
	/* The straddling word's halves are both RAM's last word's first 4. */
	val[0] = 0x89abcdef89abcdefull;
	expect(STACK_WORDS, 8, lin, val, STACK_WORDS + 1, asked);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = crashed };

	real_stderr = dup(STDERR_FILENO);
	if (real_stderr < 0)
		abort();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	alarm(30);	/* a dump that loops without asking KVM */

	vm.ram = guarded(RAM_SIZE);
	vm.ram_size = RAM_SIZE;
	vm.rom = guarded(PVSMM_FW_ROM_SIZE);

	test_full_stack();
	test_no_translation();
	test_outside_memory();
	test_page_boundary();
	test_stack_16();
	test_stack_32();
	test_cs_l_legacy();
	test_rsp_wraps();
	test_no_registers();
	test_alias();

	printf("vcpu-dump: %lu passed, %lu failed\n", test_passed, test_failed);
	return test_failed ? 1 : 0;
}
