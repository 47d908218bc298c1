// SPDX-License-Identifier: MIT
/*
 * How fast does a plain 64-bit guest compute on this host's KVM, and does
 * the host honor the guest's memory type?  A check for the real-Intel-host
 * boot hang (tools/intel-host-probe/README.md), independent of pvsmm's VMM
 * and firmware.
 *
 * Each variant is a fresh VM with 64 MiB of RAM, long mode set up through
 * KVM_SET_SREGS (identity map, 2 MiB pages), and the same code:
 *   1e8 iterations of "dec; jnz"           (code fetch, no data)
 *   3 passes reading one quadword per 64-byte line of a 16 MiB buffer
 *   rep stosq over the same 16 MiB
 * with an OUT after each phase, timed here by CLOCK_MONOTONIC.
 *
 *   wb        the pages as Linux's decompressor maps its own: PAT index 0
 *             (WB in the reset PAT), PCD = PWT = 0
 *   pcd       PCD = 1 in the 2 MiB entries: PAT index 2, UC- in the reset
 *             PAT.  Slow only if the host honors guest PAT
 *   pat0      IA32_PAT = 0 (every index UC), PCD = PWT = 0
 *   cpuid     wb, with the CPUID that pvsmm-vmm gives its guests
 *             (KVM_GET_SUPPORTED_CPUID, unfiltered)
 *
 * Natively one "dec; jnz" is about one cycle, so 1e8 iterations take
 * 30-50 ms on a 2-4 GHz core; a warm pass over 16 MiB a few ms.  Times
 * 10-100x above that mean the guest runs uncached (or is starved).
 *
 * Exit status: 0 if every variant ran to its HLT.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/kvm.h>

#define RAM		(64ul << 20)
#define PML4		0x1000
#define PDPT		0x2000
#define PD		0x3000
#define CODE		0x10000
#define BUF		0x1000000
#define MSR_PAT		0x277

extern const uint8_t guest_start[], guest_end[];
__asm__(".pushsection .rodata\n"
	".code64\n"
	"guest_start:\n"
	"	mov $100000000, %rcx\n"
	"1:	dec %rcx\n"
	"	jnz 1b\n"
	"	out %al, $0x10\n"
	"	mov $3, %r8\n"
	"2:	mov $0x1000000, %rsi\n"
	"	mov $0x40000, %rcx\n"		/* 16 MiB / 64 */
	"3:	mov (%rsi), %rax\n"
	"	add $64, %rsi\n"
	"	dec %rcx\n"
	"	jnz 3b\n"
	"	out %al, $0x11\n"
	"	dec %r8\n"
	"	jnz 2b\n"
	"	mov $0x1000000, %rdi\n"
	"	mov $0x200000, %rcx\n"		/* 16 MiB / 8 */
	"	xor %eax, %eax\n"
	"	rep stosq\n"
	"	out %al, $0x12\n"
	"	hlt\n"
	"guest_end:\n"
	".popsection\n");

static int kvm;

static void die(const char *what)
{
	fprintf(stderr, "memtype-probe: %s: %s\n", what, strerror(errno));
	exit(2);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int run_variant(const char *name, uint64_t pde_flags, int set_pat,
		       uint64_t pat, int use_cpuid)
{
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	uint8_t *ram;
	struct kvm_userspace_memory_region r = { 0 };
	struct kvm_sregs s;
	struct kvm_regs g = { 0 };
	struct kvm_run *run;
	double t[8];
	int n = 0, vcpu, exits = 0;

	if (vm < 0)
		die("KVM_CREATE_VM");
	ram = mmap(NULL, RAM, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ram == MAP_FAILED)
		die("mmap");
	r.memory_size = RAM;
	r.userspace_addr = (uintptr_t)ram;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	/* identity map of the first 1 GiB in 2 MiB pages */
	*(uint64_t *)(ram + PML4) = PDPT | 3;
	*(uint64_t *)(ram + PDPT) = PD | 3;
	for (uint64_t i = 0; i < 512; i++)
		((uint64_t *)(ram + PD))[i] = (i << 21) | 0x83 | pde_flags;
	memcpy(ram + CODE, guest_start, guest_end - guest_start);

	vcpu = ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu < 0)
		die("KVM_CREATE_VCPU");
	run = mmap(NULL, ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0),
		   PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	if (run == MAP_FAILED)
		die("mmap kvm_run");
	if (use_cpuid) {
		int nent = 256;
		struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + nent * sizeof(c->entries[0]));

		c->nent = nent;
		if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, c) < 0 ||
		    ioctl(vcpu, KVM_SET_CPUID2, c) < 0)
			die("CPUID");
		free(c);
	}
	if (set_pat) {
		struct {
			struct kvm_msrs h;
			struct kvm_msr_entry e;
		} m = { .h.nmsrs = 1, .e = { .index = MSR_PAT, .data = pat } };

		if (ioctl(vcpu, KVM_SET_MSRS, &m) != 1)
			die("KVM_SET_MSRS(IA32_PAT)");
	}
	if (ioctl(vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	struct kvm_segment cs = { .base = 0, .limit = 0xffffffff, .selector = 8,
		.type = 11, .present = 1, .s = 1, .l = 1, .g = 1 };
	struct kvm_segment ds = cs;

	ds.selector = 16;
	ds.type = 3;
	ds.l = 0;
	ds.db = 1;
	s.cs = cs;
	s.ds = s.es = s.ss = s.fs = s.gs = ds;
	s.cr3 = PML4;
	s.cr4 = 0x20;			/* PAE */
	s.cr0 = 0x80000011;		/* PG, ET, PE: CD = NW = 0 */
	s.efer = 0x500;			/* LME, LMA */
	if (ioctl(vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");
	g.rip = CODE;
	g.rflags = 2;
	g.rsp = 0x8000;
	if (ioctl(vcpu, KVM_SET_REGS, &g) < 0)
		die("KVM_SET_REGS");

	t[n++] = now();
	for (;;) {
		if (ioctl(vcpu, KVM_RUN, 0) < 0)
			die("KVM_RUN");
		exits++;
		if (run->exit_reason == KVM_EXIT_IO) {
			t[n++] = now();
			if (n == 6)
				break;
			continue;
		}
		if (run->exit_reason == KVM_EXIT_HLT)
			break;
		fprintf(stderr, "memtype-probe: %s: exit reason %u\n", name,
			run->exit_reason);
		return 1;
	}
	printf("%-6s loop %8.2f ns/iter   pass1 %8.2f  pass2 %8.2f  pass3 %8.2f ns/line   stosq %7.3f ns/byte   (%d userspace exits)\n",
	       name, (t[1] - t[0]) * 1e9 / 1e8,
	       (t[2] - t[1]) * 1e9 / 0x40000, (t[3] - t[2]) * 1e9 / 0x40000,
	       (t[4] - t[3]) * 1e9 / 0x40000, (t[5] - t[4]) * 1e9 / (16 << 20),
	       exits);
	close(vcpu);
	close(vm);
	munmap(ram, RAM);
	return 0;
}

int main(void)
{
	int rc = 0;

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0)
		die("/dev/kvm");
	rc |= run_variant("wb", 0, 0, 0, 0);
	rc |= run_variant("pcd", 0x10, 0, 0, 0);
	rc |= run_variant("pat0", 0, 1, 0, 0);
	rc |= run_variant("cpuid", 0, 0, 0, 1);
	rc |= run_variant("wb", 0, 0, 0, 0);
	return rc;
}
