// SPDX-License-Identifier: MIT
/*
 * Reliability and security checks of the patched KVM's pvsmm reflection,
 * on /dev/kvm in the lab (L1).  The guests are 64-bit code from
 * robust-guest.S in the layout of robust-layout.h.
 *
 *   kvm-robust-test fuzz [N]      N (default 10240) hostile descriptors
 *                                 registered by the guest through the MSR,
 *                                 each status compared with desc-model.h;
 *                                 descriptors in ROM, at MMIO, reserved
 *                                 bits; re-registration racing reads
 *   kvm-robust-test faults        handlers that #UD, #PF, #GP, #DE, hang,
 *                                 halt, run into MMIO, break their IRETQ
 *                                 frame, scribble the save area: on both
 *                                 return paths
 *   kvm-robust-test events        NMI, SMI, interrupt during a handler;
 *                                 immediate_exit and signals in the middle
 *                                 of a reflection
 *   kvm-robust-test migrate       save a running vCPU, restore it in a new
 *                                 VM, keep reading (also mid-handler)
 *   kvm-robust-test smp [R]       4 vCPUs x R reads (default 20000), modes
 *                                 switched at random while they run
 *   kvm-robust-test all           fuzz, faults, events, migrate, smp
 *   PVSMM_STOCK=1 kvm-robust-test smp [R]
 *                                 the SMP reader on a KVM without pvsmm,
 *                                 userspace PM timer only (for comparing
 *                                 lab behaviour with stock KVM)
 *
 * Each group prints "NAME: N passed, M failed"; the exit status is 0 when
 * nothing failed.  Every check is exact: counts, values, states; time is
 * only ever compared with KVM_GET_CLOCK readings taken around the reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "pvsmm/abi.h"
#include "robust-layout.h"
#include "desc-gen.h"

extern const uint8_t guest_start[], guest_end[], guest_reader[],
	guest_reader_in[], guest_register[], guest_fuzz[], guest_rereg[],
	guest_exc_stubs[], guest_nmi[], guest_irq[], smm_start[], smm_end[];

#define HANDLERS(X) X(good) X(probe) X(scribble) X(frame) X(ud) X(pf) \
	X(gp) X(de) X(hang) X(hlt) X(mmio)
#define DECLARE(n) extern const uint8_t h_##n##_start[], h_##n##_end[];
HANDLERS(DECLARE)

struct blob {
	const char *name;
	const uint8_t *start, *end;
};

#define BLOB(n) static const struct blob H_##n = { #n, h_##n##_start, h_##n##_end };
HANDLERS(BLOB)

_Static_assert(SA_RETURN_METHOD == offsetof(struct pvsmm_save_area, return_method), "SA");
_Static_assert(SA_RETURN_PORT == offsetof(struct pvsmm_save_area, return_port), "SA");
_Static_assert(SA_RESULT == offsetof(struct pvsmm_save_area, result), "SA");
_Static_assert(SA_RDI == offsetof(struct pvsmm_save_area, rdi), "SA");
_Static_assert(SA_PVCLOCK == offsetof(struct pvsmm_save_area, pvclock), "SA");
_Static_assert(SA_HANDLER_RUNS == offsetof(struct pvsmm_save_area, handler_runs), "SA");
_Static_assert(L_RETURN_IRET == PVSMM_RETURN_IRET, "ABI");
_Static_assert(L_MSR_REGISTER == PVSMM_MSR_REGISTER, "ABI");
_Static_assert(L_PERCPU_SIZE == PVSMM_PERCPU_SIZE, "ABI");
_Static_assert(L_WINDOW_BASE == PVSMM_WINDOW_BASE, "ABI");

/* ---- checks ------------------------------------------------------------ */

static const char *group;
static unsigned long passed, failed, total_failed;
static bool quiet;

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		passed++;
	else
		failed++;
	if (ok && quiet)
		return;
	if (!ok && failed > 50)
		return;
	va_start(ap, fmt);
	printf("%s %s: ", ok ? "ok  " : "FAIL", group);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static void group_begin(const char *name)
{
	group = name;
	passed = failed = 0;
}

static void group_end(void)
{
	printf("%s: %lu passed, %lu failed\n", group, passed, failed);
	total_failed += failed;
}

static void die(const char *what)
{
	printf("FAIL %s: %s: %s\n", group ? group : "setup", what,
	       strerror(errno));
	exit(1);
}

/* ---- time ---------------------------------------------------------------- */

static uint32_t ticks(uint64_t ns)
{
	return (uint32_t)((unsigned __int128)ns * PVSMM_PM_TIMER_HZ /
			  PVSMM_NSEC_PER_SEC) & PVSMM_PM_TIMER_MASK;
}

/* v lies in [lo - slack, hi] modulo 2^24. */
static bool ticks_between(uint32_t v, uint32_t lo, uint32_t hi, uint32_t slack)
{
	lo = (lo - slack) & PVSMM_PM_TIMER_MASK;
	return ((v - lo) & PVSMM_PM_TIMER_MASK) <= ((hi - lo) & PVSMM_PM_TIMER_MASK);
}

/* ---- VMs ------------------------------------------------------------------ */

static int kvm_fd;
static struct kvm_cpuid2 *cpuid;
/* PVSMM_STOCK=1: stock KVM, no pvsmm at all (smp with modes 4 only). */
static bool stock;

struct vcpu {
	int fd;
	int idx;
	struct kvm_run *run;
	int stats_fd;
	/* Exits seen by the test */
	unsigned long user_reads, hlt_exits, progress, eintr;
	uint32_t last_value;		/* of the last P_PROGRESS */
	pthread_t thread;
	struct vm *vm;
	void *arg;
};

struct vm {
	int fd;
	uint32_t flags;
	int nvcpus;
	uint8_t *ram, *rom, *ram2, *ram3, *rom2;
	struct vcpu v[MAX_VCPUS];
};

static uint8_t *G(struct vm *vm, uint64_t gpa)
{
	return vm->ram + gpa;
}

static uint64_t *Q(struct vm *vm, uint64_t gpa)
{
	return (uint64_t *)(vm->ram + gpa);
}

static struct pvsmm_save_area *area(struct vm *vm, int idx)
{
	return (struct pvsmm_save_area *)G(vm, H_AREAS + idx * PVSMM_PERCPU_SIZE);
}

static uint8_t *stats_block(struct vm *vm, int idx)
{
	return G(vm, G_STATS + idx * G_STATS_SIZE);
}

static uint64_t st(struct vm *vm, int idx, int off)
{
	return *(uint64_t *)(stats_block(vm, idx) + off);
}

static uint64_t data(struct vm *vm, int off)
{
	return *Q(vm, G_DATA + off);
}

static void *anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void set_slot(struct vm *vm, int slot, uint64_t gpa, void *mem,
		     uint64_t size, uint32_t flags)
{
	struct kvm_userspace_memory_region r = {
		.slot = slot, .flags = flags, .guest_phys_addr = gpa,
		.memory_size = size, .userspace_addr = (uintptr_t)mem,
	};

	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
}

static const struct model_slot lab_slots[] = {
	{ 0, RAM_SIZE, true },
	{ ROM_GPA, ROM_SIZE, false },
	{ RAM2_GPA, SMALL_SIZE, true },
	{ RAM3_GPA, SMALL_SIZE, true },
	{ ROM2_GPA, SMALL_SIZE, false },
};
#define NR_LAB_SLOTS 5

static uint64_t clock_ns(struct vm *vm)
{
	struct kvm_clock_data c = { 0 };

	if (ioctl(vm->fd, KVM_GET_CLOCK, &c) < 0)
		die("KVM_GET_CLOCK");
	return c.clock;
}

static struct pvsmm_descriptor good_desc(void)
{
	return (struct pvsmm_descriptor){
		.magic = PVSMM_DESC_MAGIC, .version = PVSMM_ABI_VERSION,
		.size = sizeof(struct pvsmm_descriptor), .nr_vcpus = MAX_VCPUS,
		.handler_va = PVSMM_WINDOW_BASE, .handler_size = PVSMM_PAGE_SIZE,
		.private_cr3 = H_PML4, .window_pdpt = H_PDPT,
		.percpu_gpa = H_AREAS,
		.percpu_va = PVSMM_WINDOW_BASE + H_AREA_VA_OFF,
	};
}

static void put_handler(struct vm *vm, const struct blob *h)
{
	memset(G(vm, H_CODE), 0xcc, PVSMM_PAGE_SIZE);
	memcpy(G(vm, H_CODE), h->start, h->end - h->start);
}

static void idt_gate(struct vm *vm, int vec, uint64_t addr, int ist)
{
	uint64_t *g = Q(vm, G_IDT + vec * 16);

	g[0] = (addr & 0xffff) | (uint64_t)SEL_CODE << 16 |
	       (uint64_t)ist << 32 | 0x8eull << 40 |
	       ((addr >> 16) & 0xffff) << 48;
	g[1] = addr >> 32;
}

#define CODE_ADDR(sym) (G_CODE + (uint64_t)((sym) - guest_start))

static void build_memory(struct vm *vm, const struct blob *h)
{
	uint64_t *gdt = Q(vm, G_GDT);
	struct pvsmm_descriptor d = good_desc();

	gdt[1] = 0x00209a0000000000ull;		/* 0x08: code, 64-bit */
	gdt[2] = 0x00cf92000000ffffull;		/* 0x10: data */
	for (int n = 0; n < MAX_VCPUS; n++) {
		uint64_t base = G_TSS + n * 0x80;

		gdt[3 + 2 * n] = 0x67 | (base & 0xffffff) << 16 | 0x89ull << 40 |
				 ((base >> 24) & 0xff) << 56;
		gdt[4 + 2 * n] = base >> 32;
		*(uint64_t *)G(vm, base + 0x24) = G_IST + (n + 1) * 0x1000;
		*(uint16_t *)G(vm, base + 0x66) = 0x68;
	}
	for (int v = 0; v < 32; v++)
		idt_gate(vm, v, CODE_ADDR(guest_exc_stubs) + 16 * v,
			 v == 8 || v == 18 ? 1 : 0);
	idt_gate(vm, 2, CODE_ADDR(guest_nmi), 1);
	idt_gate(vm, V_IRQ, CODE_ADDR(guest_irq), 0);

	*Q(vm, G_PML4) = G_PDPT | 3;
	*Q(vm, G_PDPT) = G_PD | 3;
	for (int i = 0; i < 16; i++)
		Q(vm, G_PD)[i] = (uint64_t)i << 21 | 0x83;

	memcpy(G(vm, G_CODE), guest_start, guest_end - guest_start);
	memcpy(G(vm, SMBASE + 0x8000), smm_start, smm_end - smm_start);

	Q(vm, H_PML4)[PVSMM_WINDOW_SLOT] = H_PDPT | 3;
	*Q(vm, H_PDPT) = H_PD | 3;
	*Q(vm, H_PD) = H_PT | 3;
	Q(vm, H_PT)[0] = H_CODE | 3;
	Q(vm, H_PT)[H_MMIO_VA_OFF / 4096] = MMIO_GPA | 3;
	for (int n = 0; n < MAX_VCPUS; n++)
		Q(vm, H_PT)[H_AREA_VA_OFF / 4096 + n] =
			(H_AREAS + n * PVSMM_PAGE_SIZE) | 3;
	put_handler(vm, h);

	memcpy(G(vm, G_DESC), &d, sizeof(d));
	d.magic = 0;
	memcpy(G(vm, G_DESC2), &d, sizeof(d));
}

static struct kvm_segment seg(uint16_t sel, uint8_t type, uint8_t s,
			      uint8_t l, uint8_t db)
{
	return (struct kvm_segment){
		.selector = sel, .limit = 0xffffffff, .type = type,
		.present = 1, .s = s, .l = l, .db = db, .g = 1,
	};
}

static void setup_vcpu(struct vm *vm, int n)
{
	struct vcpu *c = &vm->v[n];
	struct kvm_sregs s;
	int size;

	c->vm = vm;
	c->idx = n;
	c->fd = ioctl(vm->fd, KVM_CREATE_VCPU, n);
	if (c->fd < 0)
		die("KVM_CREATE_VCPU");
	if (ioctl(c->fd, KVM_SET_CPUID2, cpuid) < 0)
		die("KVM_SET_CPUID2");
	size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	c->run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (c->run == MAP_FAILED)
		die("mmap kvm_run");
	c->stats_fd = -1;

	if (ioctl(c->fd, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	s.cr0 = 0x80010033;
	s.cr3 = G_PML4;
	s.cr4 = 0x20;
	s.efer = 0x500;
	s.cs = seg(SEL_CODE, 0xb, 1, 1, 0);
	s.ss = seg(SEL_DATA, 0x3, 1, 0, 1);
	s.ds = s.es = s.fs = s.gs = s.ss;
	s.tr = (struct kvm_segment){ .selector = SEL_TSS + 16 * n,
				     .base = G_TSS + n * 0x80, .limit = 0x67,
				     .type = 0xb, .present = 1 };
	s.gdt.base = G_GDT;
	s.gdt.limit = 8 * (3 + 2 * MAX_VCPUS) - 1;
	s.idt.base = G_IDT;
	s.idt.limit = 4095;
	if (ioctl(c->fd, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");
}

/* A VM without vCPUs and without guest memory contents. */
static void vm_create_empty(struct vm *vm, uint32_t flags)
{
	memset(vm, 0, sizeof(*vm));
	vm->flags = flags;
	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM");
	vm->ram = anon(RAM_SIZE);
	vm->rom = anon(ROM_SIZE);
	vm->ram2 = anon(SMALL_SIZE);
	vm->ram3 = anon(SMALL_SIZE);
	vm->rom2 = anon(SMALL_SIZE);
	set_slot(vm, 0, 0, vm->ram, RAM_SIZE, 0);
	set_slot(vm, 1, ROM_GPA, vm->rom, ROM_SIZE, KVM_MEM_READONLY);
	set_slot(vm, 2, RAM2_GPA, vm->ram2, SMALL_SIZE, 0);
	set_slot(vm, 3, RAM3_GPA, vm->ram3, SMALL_SIZE, 0);
	set_slot(vm, 4, ROM2_GPA, vm->rom2, SMALL_SIZE, KVM_MEM_READONLY);
	/* SMM's address space (as_id 1) sees the same RAM. */
	set_slot(vm, 1 << 16, 0, vm->ram, RAM_SIZE, 0);

	struct kvm_enable_cap ec = {
		.cap = KVM_CAP_PVSMM_REFLECT,
		.args = { P_PM, 1, P_RETURN, flags },
	};

	if (!stock && ioctl(vm->fd, KVM_ENABLE_CAP, &ec) < 0)
		die("KVM_CAP_PVSMM_REFLECT");
}

static void vm_create(struct vm *vm, int nvcpus, uint32_t flags,
		      const struct blob *h)
{
	vm_create_empty(vm, flags);
	build_memory(vm, h);
	vm->nvcpus = nvcpus;
	for (int n = 0; n < nvcpus; n++)
		setup_vcpu(vm, n);
}

static void vm_destroy(struct vm *vm)
{
	for (int n = 0; n < vm->nvcpus; n++) {
		if (vm->v[n].stats_fd >= 0)
			close(vm->v[n].stats_fd);
		munmap(vm->v[n].run, ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0));
		close(vm->v[n].fd);
	}
	close(vm->fd);
	munmap(vm->ram, RAM_SIZE);
	munmap(vm->rom, ROM_SIZE);
	munmap(vm->ram2, SMALL_SIZE);
	munmap(vm->ram3, SMALL_SIZE);
	munmap(vm->rom2, SMALL_SIZE);
}

static int set_msr(struct vcpu *c, uint32_t index, uint64_t value)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = index, .e.data = value };

	return ioctl(c->fd, KVM_SET_MSRS, &m);
}

static uint64_t get_msr(struct vcpu *c, uint32_t index)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = index };

	if (ioctl(c->fd, KVM_GET_MSRS, &m) != 1)
		die("KVM_GET_MSRS");
	return m.e.data;
}

static uint32_t desc_status(struct vm *vm, uint64_t gpa)
{
	return ((struct pvsmm_descriptor *)G(vm, gpa))->status;
}

/* Register the descriptor at gpa from userspace; returns its status. */
static uint32_t host_register(struct vm *vm, uint64_t gpa)
{
	((struct pvsmm_descriptor *)G(vm, gpa))->status = 0xdead;
	if (set_msr(&vm->v[0], PVSMM_MSR_REGISTER, gpa | PVSMM_MSR_ENABLE) != 1)
		die("KVM_SET_MSRS(PVSMM_MSR_REGISTER)");
	return desc_status(vm, gpa);
}

static int pmtimer(struct vm *vm, uint64_t flags)
{
	struct kvm_enable_cap ec = {
		.cap = KVM_CAP_PVSMM_PMTIMER, .args = { P_PM, flags },
	};

	return ioctl(vm->fd, KVM_ENABLE_CAP, &ec) < 0 ? -errno : 0;
}

/* A vCPU stat by name, through KVM_GET_STATS_FD. */
static uint64_t kstat(struct vcpu *c, const char *name)
{
	struct kvm_stats_header h;
	uint64_t val = ~0ull;

	if (c->stats_fd < 0)
		c->stats_fd = ioctl(c->fd, KVM_GET_STATS_FD, NULL);
	if (c->stats_fd < 0 || pread(c->stats_fd, &h, sizeof(h), 0) != sizeof(h))
		die("KVM_GET_STATS_FD");

	size_t dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	uint8_t *descs = malloc(dsz * h.num_desc);

	if (pread(c->stats_fd, descs, dsz * h.num_desc, h.desc_offset) < 0)
		die("stats pread");
	for (unsigned int i = 0; i < h.num_desc; i++) {
		struct kvm_stats_desc *d = (void *)(descs + i * dsz);

		if (!strcmp(d->name, name) &&
		    pread(c->stats_fd, &val, 8, h.data_offset + d->offset) != 8)
			die("stats pread");
	}
	free(descs);
	if (val == ~0ull && stock)
		return 0;
	if (val == ~0ull) {
		printf("FAIL no KVM stat %s\n", name);
		exit(1);
	}
	return val;
}

/* Sum of a stat over the VM's vCPUs. */
static uint64_t kstat_vm(struct vm *vm, const char *name)
{
	uint64_t sum = 0;

	for (int n = 0; n < vm->nvcpus; n++)
		sum += kstat(&vm->v[n], name);
	return sum;
}

/*
 * Start the reader on vCPU n: reads of the PM timer, an OUT to P_PROGRESS
 * every `every` reads.  The stats block starts just behind the current
 * time, which every later read must not fall behind.
 */
static void start_at(struct vm *vm, int n, uint64_t rip, uint64_t reads,
		     uint64_t every, uint64_t rsi)
{
	struct kvm_regs r = {
		.rip = rip, .rflags = 0x202,
		.rsp = G_STACKS + (n + 1) * 0x1000,
		.rcx = reads, .rbp = G_STATS + n * G_STATS_SIZE,
		.r14 = P_PM, .r15 = every, .rsi = rsi,
	};
	uint32_t now = (ticks(clock_ns(vm)) - 1) & PVSMM_PM_TIMER_MASK;

	memset(stats_block(vm, n), 0, G_STATS_SIZE);
	*(uint32_t *)(stats_block(vm, n) + ST_LAST) = now;
	if (!*(uint32_t *)G(vm, G_DATA + D_GLOBAL_LAST))
		*(uint32_t *)G(vm, G_DATA + D_GLOBAL_LAST) = now;
	if (ioctl(vm->v[n].fd, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
}

static void start_reader(struct vm *vm, int n, uint64_t reads, uint64_t every)
{
	start_at(vm, n, CODE_ADDR(guest_reader), reads, every, 0);
}

enum stop { S_DONE, S_PROGRESS, S_PROBE, S_SMI, S_EINTR, S_IRQWIN, S_OTHER };

/* Runs vCPU c until something the test must look at; serves PM reads. */
static enum stop run(struct vcpu *c)
{
	for (;;) {
		struct kvm_run *r = c->run;

		if (ioctl(c->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR) {
				c->eintr++;
				return S_EINTR;
			}
			die("KVM_RUN");
		}
		switch (r->exit_reason) {
		case KVM_EXIT_IO: {
			uint8_t *p = (uint8_t *)r + r->io.data_offset;
			uint32_t v = 0;

			if (r->io.direction == KVM_EXIT_IO_IN &&
			    r->io.port == P_PM && r->io.count == 1) {
				v = ticks(clock_ns(c->vm));
				memcpy(p, &v, r->io.size);
				c->user_reads++;
				continue;
			}
			memcpy(&v, p, r->io.size < 4 ? r->io.size : 4);
			if (r->io.direction == KVM_EXIT_IO_OUT) {
				switch (r->io.port) {
				case P_PROGRESS:
					c->progress++;
					c->last_value = v;
					return S_PROGRESS;
				case P_DONE:
					return S_DONE;
				case P_PROBE:
					return S_PROBE;
				case P_SMI:
					return S_SMI;
				}
			}
			printf("     vCPU %d: I/O %s port 0x%x size %d\n", c->idx,
			       r->io.direction ? "out" : "in", r->io.port,
			       r->io.size);
			return S_OTHER;
		}
		case KVM_EXIT_HLT:
			/* Userspace irqchip: an exception stub or handler halts. */
			if (++c->hlt_exits > 20000000) {
				printf("     vCPU %d: halted for good\n", c->idx);
				return S_OTHER;
			}
			continue;
		case KVM_EXIT_IRQ_WINDOW_OPEN:
			return S_IRQWIN;
		default: {
			struct kvm_regs regs;

			ioctl(c->fd, KVM_GET_REGS, &regs);
			printf("     vCPU %d: exit %u at RIP 0x%llx\n", c->idx,
			       r->exit_reason, (unsigned long long)regs.rip);
			return S_OTHER;
		}
		}
	}
}

/* Runs to P_DONE, letting P_PROGRESS and P_PROBE exits pass. */
static bool run_to_done(struct vcpu *c)
{
	for (;;) {
		enum stop s = run(c);

		if (s == S_DONE)
			return true;
		if (s != S_PROGRESS && s != S_PROBE)
			return false;
	}
}

static struct kvm_regs get_regs(struct vcpu *c)
{
	struct kvm_regs r;

	if (ioctl(c->fd, KVM_GET_REGS, &r) < 0)
		die("KVM_GET_REGS");
	return r;
}

static struct kvm_sregs get_sregs(struct vcpu *c)
{
	struct kvm_sregs s;

	if (ioctl(c->fd, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	return s;
}

static bool in_window(uint64_t va)
{
	return va - PVSMM_WINDOW_BASE < PVSMM_WINDOW_SIZE;
}

static bool in_guest_code(uint64_t va)
{
	return va >= G_CODE && va < G_CODE + (uint64_t)(guest_end - guest_start);
}

/*
 * Runs vCPU 0 with a P_PROGRESS exit after every read; each value must lie
 * between the PM timer at the KVM_RUN and after it (one tick of slack).
 */
static bool reads_in_bounds(struct vm *vm, uint64_t reads, unsigned long *bad)
{
	struct vcpu *c = &vm->v[0];

	start_reader(vm, 0, reads, 1);
	*bad = 0;
	for (;;) {
		uint32_t lo = ticks(clock_ns(vm));
		enum stop s = run(c);
		uint32_t hi = ticks(clock_ns(vm));

		if (s == S_DONE)
			return true;
		if (s != S_PROGRESS)
			return false;
		if (!ticks_between(c->last_value, lo, hi, 1))
			++*bad;
	}
}

/* ---- fuzz ------------------------------------------------------------------ */

enum where { AT_RAM, AT_RAM_OFF, AT_RESERVED, AT_ROM, AT_MMIO };

static void fuzz_descriptors(unsigned long n)
{
	struct vm vm;
	struct src src = { .state = 0x5056534d31 };
	unsigned long cases = 0, gp = 0, statuses[16] = { 0 };
	unsigned long bad_status = 0, bad_gp = 0, bad_untouched = 0;

	vm_create(&vm, 2, 0, &H_good);	/* online_vcpus = 2 */
	quiet = true;
	while (cases < n) {
		int batch = n - cases < FUZZ_BATCH ? n - cases : FUZZ_BATCH;
		uint64_t *table = Q(&vm, G_FUZZ_TABLE);
		struct pvsmm_descriptor d[FUZZ_BATCH];
		enum where where[FUZZ_BATCH];

		for (int i = 0; i < batch; i++) {
			uint64_t gpa = G_FUZZ_DESCS + i * PVSMM_PAGE_SIZE;
			unsigned int k = below(&src, 100);

			gen_desc(&src, lab_slots, NR_LAB_SLOTS, &d[i]);
			d[i].status = 0xdead;
			memcpy(G(&vm, gpa), &d[i], sizeof(d[i]));
			where[i] = k < 88 ? AT_RAM : k < 91 ? AT_RAM_OFF :
				   k < 95 ? AT_RESERVED : k < 98 ? AT_ROM : AT_MMIO;
			switch (where[i]) {
			case AT_RAM:
				table[i] = gpa | PVSMM_MSR_ENABLE;
				break;
			case AT_RAM_OFF:	/* bit 0 clear: unregister */
				table[i] = gpa;
				break;
			case AT_RESERVED:
				table[i] = gpa | PVSMM_MSR_ENABLE |
					   (below(&src, 2) ? 1ull << (1 + below(&src, 11)) :
							     1ull << (52 + below(&src, 12)));
				break;
			case AT_ROM:
				memcpy(vm.rom + (i % 16) * PVSMM_PAGE_SIZE, &d[i], sizeof(d[i]));
				table[i] = (ROM_GPA + (i % 16) * PVSMM_PAGE_SIZE) |
					   PVSMM_MSR_ENABLE;
				break;
			case AT_MMIO:
				table[i] = (MMIO_GPA + i * PVSMM_PAGE_SIZE) |
					   PVSMM_MSR_ENABLE;
				break;
			}
		}
		memset(G(&vm, G_FUZZ_GP), 0xff, FUZZ_BATCH);
		start_at(&vm, 0, CODE_ADDR(guest_fuzz), batch, 0, G_FUZZ_TABLE);
		struct kvm_regs r = get_regs(&vm.v[0]);

		r.rdi = G_FUZZ_GP;
		ioctl(vm.v[0].fd, KVM_SET_REGS, &r);
		if (run(&vm.v[0]) != S_DONE) {
			check(false, "batch at case %lu did not finish", cases);
			break;
		}
		for (int i = 0; i < batch; i++) {
			uint8_t got_gp = G(&vm, G_FUZZ_GP)[i];
			uint32_t st = desc_status(&vm, G_FUZZ_DESCS + i * PVSMM_PAGE_SIZE);
			bool want_gp = where[i] == AT_RESERVED;
			uint32_t want = model_status(&d[i], lab_slots, NR_LAB_SLOTS, 2);
			bool case_ok = true;

			gp += got_gp == 1;
			if (got_gp != want_gp) {
				bad_gp++;
				case_ok = false;
				check(false, "case %lu: #GP %u, expected %u (MSR 0x%llx)",
				      cases + i, got_gp, want_gp,
				      (unsigned long long)table[i]);
			}
			if (where[i] == AT_RAM) {
				statuses[st < 16 ? st : 15]++;
				if (st != want) {
					bad_status++;
					case_ok = false;
					check(false, "case %lu: status %u, documented %u (nr %u, cr3 0x%llx, pdpt 0x%llx, percpu 0x%llx/0x%llx, handler 0x%llx+0x%llx)",
					      cases + i, st, want, d[i].nr_vcpus,
					      (unsigned long long)d[i].private_cr3,
					      (unsigned long long)d[i].window_pdpt,
					      (unsigned long long)d[i].percpu_gpa,
					      (unsigned long long)d[i].percpu_va,
					      (unsigned long long)d[i].handler_va,
					      (unsigned long long)d[i].handler_size);
				}
			} else if (where[i] != AT_ROM && where[i] != AT_MMIO &&
				   st != 0xdead) {
				bad_untouched++;
				case_ok = false;
				check(false, "case %lu: status written (%u) for MSR 0x%llx",
				      cases + i, st, (unsigned long long)table[i]);
			}
			if (case_ok)
				check(true, "case");
		}
		cases += batch;
	}
	quiet = false;
	printf("     statuses:");
	for (int i = 1; i <= PVSMM_STATUS_BAD_VCPUS; i++)
		printf(" %d:%lu", i, statuses[i]);
	printf(", #GP %lu\n", gp);
	check(bad_status == 0 && bad_gp == 0 && bad_untouched == 0,
	      "%lu hostile descriptors through the guest's WRMSR: %lu wrong statuses, %lu wrong #GP, %lu status writes that should not be",
	      cases, bad_status, bad_gp, bad_untouched);
	for (int i = PVSMM_STATUS_OK; i <= PVSMM_STATUS_BAD_VCPUS; i++)
		check(n < 2000 || statuses[i] > 0, "status %d produced (%lu)", i,
		      statuses[i]);
	check(kstat_vm(&vm, "pvsmm_reflections") == 0 &&
	      kstat_vm(&vm, "pvsmm_handler_faults") == 0,
	      "no reflection, no handler fault during the fuzzing");

	/* Afterwards: no registration left, a correct timer from userspace. */
	unsigned long bad;

	vm.v[0].user_reads = 0;
	bool ok = reads_in_bounds(&vm, 200, &bad);

	check(ok && bad == 0 &&
	      vm.v[0].user_reads == 200 && st(&vm, 0, ST_OWN_BACK) == 0,
	      "then 200 reads, all served by userspace (%lu), within KVM_GET_CLOCK (%lu off)",
	      vm.v[0].user_reads, bad);
	vm_destroy(&vm);
}

/* Guest WRMSR of value, then `reads` reads: how many were reflected? */
static uint64_t guest_reg_and_read(struct vm *vm, uint64_t value, int reads,
				   bool *ok)
{
	uint64_t before = kstat(&vm->v[0], "pvsmm_reflections");

	start_at(vm, 0, CODE_ADDR(guest_register), reads, 0, value);
	*ok = run_to_done(&vm->v[0]) && st(vm, 0, ST_READS) == (uint64_t)reads;
	return kstat(&vm->v[0], "pvsmm_reflections") - before;
}

static void fuzz_locations(void)
{
	struct vm vm;
	struct pvsmm_descriptor d = good_desc();
	bool ok;
	uint64_t n;

	vm_create(&vm, 1, 0, &H_good);

	n = guest_reg_and_read(&vm, G_DESC | 1, 10, &ok);
	check(ok && n == 10 && desc_status(&vm, G_DESC) == PVSMM_STATUS_OK,
	      "good descriptor in RAM: 10 of 10 reads reflected");

	memcpy(vm.rom, &d, sizeof(d));
	n = guest_reg_and_read(&vm, ROM_GPA | 1, 10, &ok);
	check(ok && n == 10 && ((struct pvsmm_descriptor *)vm.rom)->status == 0,
	      "good descriptor in ROM: registered (%llu of 10 reflected), ROM untouched",
	      (unsigned long long)n);

	n = guest_reg_and_read(&vm, MMIO_GPA | 1, 10, &ok);
	check(ok && n == 0, "descriptor at MMIO: registration dropped, 0 of 10 reflected (%llu)",
	      (unsigned long long)n);

	d.window_pdpt = ROM2_GPA;
	memcpy(G(&vm, G_DESC2), &d, sizeof(d));
	n = guest_reg_and_read(&vm, G_DESC2 | 1, 10, &ok);
	check(ok && n == 0 && desc_status(&vm, G_DESC2) == PVSMM_STATUS_BAD_GPA,
	      "window_pdpt in ROM: BAD_GPA, 0 of 10 reflected");

	d = good_desc();
	d.percpu_gpa = RAM2_GPA + SMALL_SIZE - PVSMM_PAGE_SIZE;	/* into RAM3 */
	memcpy(G(&vm, G_DESC2), &d, sizeof(d));
	check(host_register(&vm, G_DESC2) == PVSMM_STATUS_OK,
	      "per-vCPU areas across two adjacent RAM slots: OK");
	d.percpu_gpa = RAM3_GPA + SMALL_SIZE - PVSMM_PAGE_SIZE;	/* into ROM2 */
	memcpy(G(&vm, G_DESC2), &d, sizeof(d));
	check(host_register(&vm, G_DESC2) == PVSMM_STATUS_BAD_GPA,
	      "per-vCPU areas running from RAM into ROM: BAD_GPA");
	vm_destroy(&vm);
}

static void *rereg_thread(void *p)
{
	struct vcpu *c = p;

	c->arg = (void *)(uintptr_t)run_to_done(c);
	return NULL;
}

/*
 * vCPU 1 registers, breaks, unregisters and re-registers the descriptor
 * in a loop while vCPU 0 reads: every read is right, reflected or not.
 */
static void fuzz_race(unsigned long reads, unsigned long iterations)
{
	struct vm vm;
	uint64_t *table;

	vm_create(&vm, 2, 0, &H_good);
	check(host_register(&vm, G_DESC) == PVSMM_STATUS_OK, "race: registered");
	table = Q(&vm, G_FUZZ_TABLE);
	table[0] = G_DESC | 1;
	table[1] = G_DESC2 | 1;		/* bad magic */
	table[2] = 0;
	table[3] = G_DESC | 1;
	start_reader(&vm, 0, reads, 0);
	start_at(&vm, 1, CODE_ADDR(guest_rereg), iterations, 0, G_FUZZ_TABLE);
	struct kvm_regs r = get_regs(&vm.v[1]);

	r.r8 = G_DESC;
	ioctl(vm.v[1].fd, KVM_SET_REGS, &r);

	pthread_create(&vm.v[1].thread, NULL, rereg_thread, &vm.v[1]);
	bool ok0 = run_to_done(&vm.v[0]);

	pthread_join(vm.v[1].thread, NULL);

	uint64_t refl = kstat(&vm.v[0], "pvsmm_reflections");
	uint64_t runs = area(&vm, 0)->handler_runs;

	check(ok0 && vm.v[1].arg, "race: both vCPUs finished");
	check(st(&vm, 0, ST_READS) == reads &&
	      refl + vm.v[0].user_reads == reads && runs == refl,
	      "race: %lu reads = %llu reflected + %lu from userspace, handler ran %llu times",
	      reads, (unsigned long long)refl, vm.v[0].user_reads,
	      (unsigned long long)runs);
	check(st(&vm, 0, ST_OWN_BACK) == 0 && st(&vm, 0, ST_GLOBAL_BACK) == 0,
	      "race: monotonic (max step back %llu tick)",
	      (unsigned long long)st(&vm, 0, ST_MAX_BACK));
	check(kstat_vm(&vm, "pvsmm_handler_faults") == 0 && data(&vm, D_EXC_COUNT) == 0,
	      "race: no handler fault, no guest exception");
	vm_destroy(&vm);
}

/* ---- faults ---------------------------------------------------------------- */

/* Hostile private page tables (the generic path runs on private_cr3). */
static void pt_loop(struct vm *vm)
{
	Q(vm, H_PML4)[0] = H_PML4 | 3;
	Q(vm, H_PML4)[PVSMM_WINDOW_SLOT] = H_PML4 | 3;
}

static void pt_mmio(struct vm *vm)
{
	Q(vm, H_PML4)[PVSMM_WINDOW_SLOT] = MMIO_GPA | 3;
}

static void fault_case_tweak(const struct blob *h, bool exit_path, bool faults,
			     bool guest_exc, void (*tweak)(struct vm *),
			     const char *tweak_name)
{
	struct vm vm;
	struct blob named = *h;
	const char *path = exit_path ? "exit" : "iret";
	unsigned long bad;

	vm_create(&vm, 1, exit_path ? PVSMM_CAP_FORCE_EXIT_RETURN : 0, h);
	if (tweak) {
		named.name = tweak_name;
		h = &named;
		tweak(&vm);
	}
	if (host_register(&vm, G_DESC) != PVSMM_STATUS_OK) {
		check(false, "%s/%s: registration", h->name, path);
		vm_destroy(&vm);
		return;
	}
	start_reader(&vm, 0, 20, 0);
	bool done = run_to_done(&vm.v[0]);
	struct vcpu *c = &vm.v[0];
	uint64_t f = kstat(c, "pvsmm_handler_faults");
	uint64_t refl = kstat(c, "pvsmm_reflections");
	uint64_t fb = kstat(c, "pvsmm_fallbacks");

	check(done && st(&vm, 0, ST_READS) == 20, "%s/%s: the guest made all 20 reads",
	      h->name, path);
	if (faults) {
		check(f == 1 && refl == 1 && fb == 0 && c->user_reads == 20,
		      "%s/%s: handler_faults %llu, reflections %llu, fallbacks %llu, userspace reads %lu (1, 1, 0, 20)",
		      h->name, path, (unsigned long long)f,
		      (unsigned long long)refl, (unsigned long long)fb,
		      c->user_reads);
		check(desc_status(&vm, G_DESC) == PVSMM_STATUS_DISABLED &&
		      get_msr(c, PVSMM_MSR_REGISTER) == G_DESC,
		      "%s/%s: status DISABLED, MSR bit 0 cleared (status %u)",
		      h->name, path, desc_status(&vm, G_DESC));
	} else {
		check(f == 0 && refl == 20 && c->user_reads == 0 &&
		      area(&vm, 0)->handler_runs == 20,
		      "%s/%s: no fault, 20 reflections, handler ran 20 times",
		      h->name, path);
	}
	check(st(&vm, 0, ST_OWN_BACK) == 0 && st(&vm, 0, ST_GLOBAL_BACK) == 0,
	      "%s/%s: time monotonic across the failure", h->name, path);
	check(data(&vm, D_EXC_COUNT) == (guest_exc ? 1u : 0u) &&
	      (!guest_exc || in_window(data(&vm, D_EXC_RIP))),
	      "%s/%s: guest exception handler ran %llu time(s) (RIP 0x%llx, vector %llu)",
	      h->name, path, (unsigned long long)data(&vm, D_EXC_COUNT),
	      (unsigned long long)data(&vm, D_EXC_RIP),
	      (unsigned long long)data(&vm, D_EXC_VEC));

	/* The guest may register again, with a working handler. */
	if (faults) {
		if (tweak)
			build_memory(&vm, &H_good);
		put_handler(&vm, &H_good);
		c->user_reads = 0;
		uint32_t status = host_register(&vm, G_DESC);
		bool ok = reads_in_bounds(&vm, 20, &bad);
		uint64_t again = kstat(c, "pvsmm_reflections") - refl;

		check(status == PVSMM_STATUS_OK && ok && bad == 0 &&
		      c->user_reads == 0 && again == 20 &&
		      kstat(c, "pvsmm_handler_faults") == 1,
		      "%s/%s: registered again (status %u): %llu of 20 reads reflected, %lu from userspace, %lu outside KVM_GET_CLOCK",
		      h->name, path, status, (unsigned long long)again,
		      c->user_reads, bad);
	}
	vm_destroy(&vm);
}

static void fault_case(const struct blob *h, bool exit_path, bool faults,
		       bool guest_exc)
{
	fault_case_tweak(h, exit_path, faults, guest_exc, NULL, NULL);
}

static void test_faults(void)
{
	static const struct {
		const struct blob *h;
		bool iret_exc;	/* a guest exception handler runs (IRETQ path) */
	} cases[] = {
		{ &H_ud, true }, { &H_pf, true }, { &H_gp, true },
		{ &H_de, true }, { &H_hang, false }, { &H_hlt, false },
		{ &H_mmio, false },
	};

	group_begin("faults");
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fault_case(cases[i].h, false, true, cases[i].iret_exc);
		fault_case(cases[i].h, true, true, false);
	}
	fault_case(&H_frame, false, true, true);
	fault_case_tweak(&H_good, true, true, false, pt_loop, "private tables loop");
	fault_case_tweak(&H_good, true, true, false, pt_mmio, "private tables at MMIO");
	fault_case(&H_scribble, false, false, false);
	fault_case(&H_scribble, true, false, false);
	group_end();
}

/* ---- events ---------------------------------------------------------------- */

static uint64_t smram_rip(struct vm *vm)
{
	return *Q(vm, SMBASE + 0xff78);
}

static void events_case(bool exit_path)
{
	struct vm vm;
	const char *path = exit_path ? "exit" : "iret";
	struct vcpu *c;
	struct kvm_interrupt irq = { .irq = V_IRQ };
	bool ok = true, smi_seen = false;
	uint64_t returns_at_smi = ~0ull, smi_rip = 0;

	vm_create(&vm, 1, exit_path ? PVSMM_CAP_FORCE_EXIT_RETURN : 0, &H_probe);
	c = &vm.v[0];
	host_register(&vm, G_DESC);
	start_reader(&vm, 0, 3, 0);

	check(run(c) == S_PROBE && in_window(get_regs(c).rip),
	      "%s: stopped inside the handler", path);
	if (ioctl(c->fd, KVM_NMI) < 0 || ioctl(c->fd, KVM_SMI) < 0)
		die("KVM_NMI/KVM_SMI");
	c->run->request_interrupt_window = 1;

	for (;;) {
		enum stop s = run(c);

		if (s == S_DONE)
			break;
		if (s == S_PROBE)
			continue;
		if (s == S_SMI) {
			smi_seen = true;
			smi_rip = smram_rip(&vm);
			returns_at_smi = kstat(c, "pvsmm_exit_returns");
			continue;
		}
		if (s == S_IRQWIN) {
			if (ioctl(c->fd, KVM_INTERRUPT, &irq) < 0)
				die("KVM_INTERRUPT");
			c->run->request_interrupt_window = 0;
			continue;
		}
		ok = false;
		break;
	}
	check(ok && st(&vm, 0, ST_READS) == 3 && c->user_reads == 0 &&
	      area(&vm, 0)->handler_runs == 3, "%s: 3 reads, all reflected", path);
	check(data(&vm, D_NMI_COUNT) == 1 && in_guest_code(data(&vm, D_NMI_RIP)),
	      "%s: NMI delivered once, after the handler (RIP 0x%llx)", path,
	      (unsigned long long)data(&vm, D_NMI_RIP));
	check(data(&vm, D_IRQ_COUNT) == 1 && in_guest_code(data(&vm, D_IRQ_RIP)),
	      "%s: interrupt delivered once, after the handler (RIP 0x%llx)",
	      path, (unsigned long long)data(&vm, D_IRQ_RIP));
	if (exit_path)
		check(smi_seen && returns_at_smi == 1 && in_guest_code(smi_rip),
		      "exit: SMI held until the handler returned (SMRAM RIP 0x%llx)",
		      (unsigned long long)smi_rip);
	else
		check(smi_seen && (in_guest_code(smi_rip) || in_window(smi_rip)),
		      "iret: SMI delivered, SMM came back (SMRAM RIP 0x%llx%s)",
		      (unsigned long long)smi_rip,
		      in_window(smi_rip) ? ", in the handler: not held on this path" : "");
	check(st(&vm, 0, ST_OWN_BACK) == 0, "%s: monotonic", path);
	vm_destroy(&vm);
}

/* KVM_RUN with immediate_exit at the handler's probe. */
static void immediate_exit_case(bool exit_path)
{
	struct vm vm;
	const char *path = exit_path ? "exit" : "iret";
	struct vcpu *c;

	vm_create(&vm, 1, exit_path ? PVSMM_CAP_FORCE_EXIT_RETURN : 0, &H_probe);
	c = &vm.v[0];
	host_register(&vm, G_DESC);
	start_reader(&vm, 0, 1, 0);
	check(run(c) == S_PROBE, "%s: stopped inside the handler", path);
	c->run->immediate_exit = 1;
	enum stop s = run(c);

	c->run->immediate_exit = 0;
	struct kvm_regs r = get_regs(c);
	struct kvm_sregs sr = get_sregs(c);
	struct kvm_vcpu_events ev;

	ioctl(c->fd, KVM_GET_VCPU_EVENTS, &ev);
	if (exit_path)
		check(s == S_EINTR && r.rip == CODE_ADDR(guest_reader_in) &&
		      sr.cr3 == G_PML4 && sr.cs.selector == SEL_CODE &&
		      sr.idt.limit == 4095 && !ev.nmi.masked && r.rcx == 1 &&
		      r.r14 == P_PM,
		      "exit: immediate_exit -> EINTR, the vCPU is back at the IN (RIP 0x%llx, CR3 0x%llx), NMIs unblocked",
		      (unsigned long long)r.rip, (unsigned long long)sr.cr3);
	else
		check(s == S_EINTR && in_window(r.rip) && sr.cr3 == G_PML4,
		      "iret: immediate_exit -> EINTR in the handler, whose state is the guest's own (RIP 0x%llx)",
		      (unsigned long long)r.rip);
	bool done = run_to_done(c);

	check(done && st(&vm, 0, ST_READS) == 1 && c->user_reads == 0 &&
	      kstat(c, "pvsmm_reflections") == (exit_path ? 2u : 1u),
	      "%s: then the read completes, reflected (%llu reflections)", path,
	      (unsigned long long)kstat(c, "pvsmm_reflections"));
	vm_destroy(&vm);
}

static volatile int signals_stop;

static void on_signal(int sig)
{
	(void)sig;
}

struct kicker {
	pthread_t target;
	unsigned long sent;
};

static void *kicker_thread(void *p)
{
	struct kicker *k = p;
	struct timespec ts = { 0, 200000 };

	while (!signals_stop) {
		pthread_kill(k->target, SIGUSR1);
		k->sent++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Signals hit the vCPU thread at random: every -EINTR leaves a clean state. */
static void signals_case(uint64_t reads)
{
	struct vm vm;
	struct vcpu *c;
	struct kicker k = { .target = pthread_self() };
	pthread_t t;
	unsigned long dirty = 0, at_in = 0;
	bool ok = true;

	vm_create(&vm, 1, PVSMM_CAP_FORCE_EXIT_RETURN, &H_good);
	c = &vm.v[0];
	host_register(&vm, G_DESC);
	start_reader(&vm, 0, reads, 0);
	signals_stop = 0;
	pthread_create(&t, NULL, kicker_thread, &k);
	for (;;) {
		enum stop s = run(c);

		if (s == S_DONE)
			break;
		if (s != S_EINTR) {
			ok = false;
			break;
		}
		struct kvm_regs r = get_regs(c);
		struct kvm_sregs sr = get_sregs(c);

		if (!in_guest_code(r.rip) || sr.cr3 != G_PML4 ||
		    sr.cs.selector != SEL_CODE)
			dirty++;
		at_in += r.rip == CODE_ADDR(guest_reader_in);
	}
	signals_stop = 1;
	pthread_join(t, NULL);

	uint64_t refl = kstat(c, "pvsmm_reflections");
	uint64_t rets = kstat(c, "pvsmm_exit_returns");

	check(ok && st(&vm, 0, ST_READS) == reads && c->user_reads == 0 &&
	      rets == reads && refl >= reads && refl - rets <= c->eintr,
	      "signals: %llu reads, %lu signals sent, %lu EINTR exits (%lu at the IN), %llu reflections rolled back",
	      (unsigned long long)reads, k.sent, c->eintr, at_in,
	      (unsigned long long)(refl - rets));
	check(dirty == 0, "signals: no EINTR exit showed handler state (%lu did)",
	      dirty);
	check(st(&vm, 0, ST_OWN_BACK) == 0, "signals: monotonic");
	vm_destroy(&vm);
}

static void test_events(uint64_t signal_reads)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGUSR1, &sa, NULL);
	group_begin("events");
	events_case(true);
	events_case(false);
	immediate_exit_case(true);
	immediate_exit_case(false);
	signals_case(signal_reads);
	group_end();
}

/* ---- migrate --------------------------------------------------------------- */

/*
 * What a VMM saves: RAM, registers, events, PVSMM_MSR_REGISTER, kvmclock
 * (KVM_GET_CLOCK, with the realtime it was taken at) and the guest TSC as
 * its offset (KVM_VCPU_TSC_OFFSET).  Both VMs run on the same host, so
 * copying the offset and advancing kvmclock by the realtime that passed
 * keeps TSC and kvmclock consistent -- which a handler caught in the middle
 * (it computes with the source's kvmclock parameters from its save area)
 * needs.  A TSC written through MSR_IA32_TSC is not enough: KVM's TSC
 * synchronization takes a value within a second of the other vCPUs' as a
 * request to match them.
 */
struct snap {
	uint8_t *ram;
	struct kvm_regs regs;
	struct kvm_sregs sregs;
	struct kvm_vcpu_events events;
	struct kvm_clock_data clock;
	uint64_t tsc_offset, pvsmm;
	uint32_t flags;
};

static void tsc_offset(struct vcpu *c, uint64_t *offset, bool set)
{
	struct kvm_device_attr a = {
		.group = KVM_VCPU_TSC_CTRL, .attr = KVM_VCPU_TSC_OFFSET,
		.addr = (uintptr_t)offset,
	};

	if (ioctl(c->fd, set ? KVM_SET_DEVICE_ATTR : KVM_GET_DEVICE_ATTR, &a) < 0)
		die("KVM_VCPU_TSC_OFFSET");
}

static void snapshot(struct vm *vm, struct snap *s)
{
	struct vcpu *c = &vm->v[0];

	s->clock = (struct kvm_clock_data){ 0 };
	if (ioctl(vm->fd, KVM_GET_CLOCK, &s->clock) < 0)
		die("KVM_GET_CLOCK");
	s->regs = get_regs(c);
	s->sregs = get_sregs(c);
	if (ioctl(c->fd, KVM_GET_VCPU_EVENTS, &s->events) < 0)
		die("KVM_GET_VCPU_EVENTS");
	tsc_offset(c, &s->tsc_offset, false);
	s->pvsmm = get_msr(c, PVSMM_MSR_REGISTER);
	s->ram = malloc(RAM_SIZE);
	memcpy(s->ram, vm->ram, RAM_SIZE);
	s->flags = vm->flags;
}

/* A new VM from the snapshot; the guest does not register again. */
static void restore(struct vm *vm, struct snap *s)
{
	struct kvm_clock_data clock = {
		.clock = s->clock.clock, .realtime = s->clock.realtime,
		.flags = s->clock.flags & KVM_CLOCK_REALTIME,
	};
	struct vcpu *c;

	vm_create_empty(vm, s->flags);
	memcpy(vm->ram, s->ram, RAM_SIZE);
	free(s->ram);
	((struct pvsmm_descriptor *)G(vm, G_DESC))->status = 0xdead;
	vm->nvcpus = 1;
	setup_vcpu(vm, 0);
	c = &vm->v[0];
	if (ioctl(vm->fd, KVM_SET_CLOCK, &clock) < 0)
		die("KVM_SET_CLOCK");
	if (ioctl(c->fd, KVM_SET_SREGS, &s->sregs) < 0)
		die("KVM_SET_SREGS");
	if (ioctl(c->fd, KVM_SET_REGS, &s->regs) < 0)
		die("KVM_SET_REGS");
	tsc_offset(c, &s->tsc_offset, true);
	if (set_msr(c, PVSMM_MSR_REGISTER, s->pvsmm) != 1)
		die("KVM_SET_MSRS");
	if (ioctl(c->fd, KVM_SET_VCPU_EVENTS, &s->events) < 0)
		die("KVM_SET_VCPU_EVENTS");
}

/* Save after 2 of 6 progress points, restore, read on. */
static void migrate_running(bool exit_path)
{
	struct vm a, b;
	struct snap s;
	const char *path = exit_path ? "exit" : "iret";
	const uint64_t reads = 3000, every = 500;
	uint32_t last;

	vm_create(&a, 1, exit_path ? PVSMM_CAP_FORCE_EXIT_RETURN : 0, &H_good);
	host_register(&a, G_DESC);
	start_reader(&a, 0, reads, every);
	check(run(&a.v[0]) == S_PROGRESS && run(&a.v[0]) == S_PROGRESS,
	      "%s: %llu reads in VM A", path, (unsigned long long)(2 * every));
	last = a.v[0].last_value;
	/* As a VMM does: complete the pending OUT, then stop and save. */
	a.v[0].run->immediate_exit = 1;
	check(run(&a.v[0]) == S_EINTR, "%s: immediate_exit before the snapshot", path);
	snapshot(&a, &s);
	vm_destroy(&a);

	restore(&b, &s);
	check(desc_status(&b, G_DESC) == PVSMM_STATUS_OK,
	      "%s: VM B: restoring PVSMM_MSR_REGISTER validated the descriptor again",
	      path);
	enum stop st1 = run(&b.v[0]);
	uint32_t first = b.v[0].last_value;
	uint32_t now = ticks(clock_ns(&b));
	uint32_t saved = ticks(s.clock.clock);

	check(st1 == S_PROGRESS && ticks_between(first, last, now, 1) &&
	      ticks_between(saved, last, now, 0),
	      "%s: VM B continues without a jump: last read in A %u, snapshot at %u, first progress in B %u, B's kvmclock then %u",
	      path, last, saved, first, now);
	bool done = run_to_done(&b.v[0]);

	check(done && st(&b, 0, ST_READS) == reads && b.v[0].user_reads == 0 &&
	      kstat(&b.v[0], "pvsmm_reflections") == reads - 2 * every &&
	      kstat(&b.v[0], "pvsmm_handler_faults") == 0,
	      "%s: VM B reflected the other %llu reads, no re-registration",
	      path, (unsigned long long)(reads - 2 * every));
	check(st(&b, 0, ST_OWN_BACK) == 0 && st(&b, 0, ST_GLOBAL_BACK) == 0,
	      "%s: monotonic over both VMs", path);
	vm_destroy(&b);
}

/* Save in the middle of a reflection (at the handler's probe). */
static void migrate_mid_handler(bool exit_path)
{
	struct vm a, b;
	struct snap s;
	const char *path = exit_path ? "exit" : "iret";

	vm_create(&a, 1, exit_path ? PVSMM_CAP_FORCE_EXIT_RETURN : 0, &H_probe);
	host_register(&a, G_DESC);
	start_reader(&a, 0, 2, 1);
	check(run(&a.v[0]) == S_PROBE, "%s mid-handler: stopped in the handler", path);
	/* As a VMM does: complete the pending access, then stop. */
	a.v[0].run->immediate_exit = 1;
	check(run(&a.v[0]) == S_EINTR, "%s mid-handler: immediate_exit", path);
	a.v[0].run->immediate_exit = 0;
	snapshot(&a, &s);
	check(exit_path ? s.regs.rip == CODE_ADDR(guest_reader_in) :
			  in_window(s.regs.rip),
	      "%s mid-handler: saved RIP 0x%llx (%s)", path,
	      (unsigned long long)s.regs.rip,
	      exit_path ? "rolled back to the IN" : "in the handler");
	vm_destroy(&a);

	restore(&b, &s);
	bool done = run_to_done(&b.v[0]);

	check(done && st(&b, 0, ST_READS) == 2 && b.v[0].user_reads == 0 &&
	      area(&b, 0)->handler_runs == 2 &&
	      kstat(&b.v[0], "pvsmm_handler_faults") == 0,
	      "%s mid-handler: VM B finished the reflection and the next read (reads %llu, userspace %lu, handler runs %llu)",
	      path, (unsigned long long)st(&b, 0, ST_READS), b.v[0].user_reads,
	      (unsigned long long)area(&b, 0)->handler_runs);
	check(st(&b, 0, ST_OWN_BACK) == 0 && st(&b, 0, ST_GLOBAL_BACK) == 0,
	      "%s mid-handler: monotonic (largest step back %llu, %u after %u)",
	      path, (unsigned long long)st(&b, 0, ST_MAX_BACK),
	      *(uint32_t *)(stats_block(&b, 0) + ST_BAD_NOW),
	      *(uint32_t *)(stats_block(&b, 0) + ST_BAD_PREV));
	vm_destroy(&b);
}

/*
 * The VMM moves the RAM that holds the guest's page tables to other host
 * memory (delete the memslot, add it back at another address), as for a
 * remap.  KVM keeps where it found the window's PML4 entry: it must claim
 * the slot in the new copy and never write the old one again.
 */
static void memslot_moved(void)
{
	const uint64_t reads = 1000, want = H_PDPT | 3;
	uint8_t *old_ram, *new_ram;
	uint64_t iret_before;
	struct vm vm;

	vm_create(&vm, 1, 0, &H_good);
	host_register(&vm, G_DESC);
	start_reader(&vm, 0, reads, reads);
	check(run_to_done(&vm.v[0]) &&
	      (Q(&vm, G_PML4)[PVSMM_WINDOW_SLOT] & ~0x20ull) == want,
	      "memslot: %llu reads claimed slot %d", (unsigned long long)reads,
	      PVSMM_WINDOW_SLOT);

	old_ram = vm.ram;
	new_ram = anon(RAM_SIZE);
	memcpy(new_ram, old_ram, RAM_SIZE);
	((uint64_t *)(old_ram + G_PML4))[PVSMM_WINDOW_SLOT] = 0;
	((uint64_t *)(new_ram + G_PML4))[PVSMM_WINDOW_SLOT] = 0;
	set_slot(&vm, 0, 0, old_ram, 0, 0);
	set_slot(&vm, 1 << 16, 0, old_ram, 0, 0);
	set_slot(&vm, 0, 0, new_ram, RAM_SIZE, 0);
	set_slot(&vm, 1 << 16, 0, new_ram, RAM_SIZE, 0);
	vm.ram = new_ram;

	iret_before = kstat(&vm.v[0], "pvsmm_iret_returns");
	vm.v[0].user_reads = 0;
	start_reader(&vm, 0, reads, reads);
	bool done = run_to_done(&vm.v[0]);

	check(done && st(&vm, 0, ST_READS) == reads && vm.v[0].user_reads == 0 &&
	      kstat(&vm.v[0], "pvsmm_iret_returns") - iret_before == reads &&
	      kstat(&vm.v[0], "pvsmm_handler_faults") == 0,
	      "memslot: after the move, %llu reads reflected with IRETQ, none failed",
	      (unsigned long long)reads);
	check((Q(&vm, G_PML4)[PVSMM_WINDOW_SLOT] & ~0x20ull) == want &&
	      ((uint64_t *)(old_ram + G_PML4))[PVSMM_WINDOW_SLOT] == 0,
	      "memslot: slot %d claimed in the new memory (0x%llx), the old left alone (0x%llx)",
	      PVSMM_WINDOW_SLOT,
	      (unsigned long long)Q(&vm, G_PML4)[PVSMM_WINDOW_SLOT],
	      (unsigned long long)((uint64_t *)(old_ram + G_PML4))[PVSMM_WINDOW_SLOT]);
	vm_destroy(&vm);
	munmap(old_ram, RAM_SIZE);
}

static void test_migrate(void)
{
	group_begin("migrate");
	migrate_running(false);
	migrate_running(true);
	migrate_mid_handler(false);
	migrate_mid_handler(true);
	memslot_moved();
	group_end();
}

/* ---- smp --------------------------------------------------------------------- */

enum mode { M_REFLECT, M_REFLECT_KERNEL, M_USER, M_KERNEL, NR_MODES };
static const char *const mode_name[] = { "reflect", "reflect+kernel",
					 "user", "kernel" };

/* Modes the SMP test switches between (argument 3: a bit mask of them). */
static unsigned int smp_modes = 0xf;

struct smp {
	struct vm *vm;
	struct src rng;
	enum mode mode;
	unsigned long switches[NR_MODES][NR_MODES];
	int bad_switch;
};

static void set_mode(struct smp *m, enum mode to)
{
	struct vm *vm = m->vm;
	bool reg = to == M_REFLECT || to == M_REFLECT_KERNEL;
	bool kern = to == M_REFLECT_KERNEL || to == M_KERNEL;
	bool was_kern = m->mode == M_REFLECT_KERNEL || m->mode == M_KERNEL;

	if (reg && host_register(vm, G_DESC) != PVSMM_STATUS_OK)
		m->bad_switch++;
	if (!reg && set_msr(&vm->v[0], PVSMM_MSR_REGISTER, 0) != 1)
		m->bad_switch++;
	if (kern != was_kern && pmtimer(vm, kern ? 0 : PVSMM_PMTIMER_DEASSIGN))
		m->bad_switch++;
	m->switches[m->mode][to]++;
	m->mode = to;
}

static void *smp_thread(void *p)
{
	struct vcpu *c = p;
	struct smp *m = c->arg;
	bool ok = false;

	for (;;) {
		enum stop s = run(c);

		if (s == S_DONE) {
			ok = true;
			break;
		}
		if (s != S_PROGRESS)
			break;
		/* vCPU 0 switches modes while the others keep reading. */
		if (c->idx == 0 && !stock && below(&m->rng, 2)) {
			enum mode to = below(&m->rng, NR_MODES);

			if (smp_modes & (1u << to))
				set_mode(m, to);
		}
	}
	c->arg = (void *)(uintptr_t)ok;
	return NULL;
}

static void smp_case(int nvcpus, uint64_t reads, bool exit_path)
{
	struct vm vm;
	struct smp m = { .vm = &vm, .rng = { .state = 0x736d70 } };
	const char *path = exit_path ? "exit" : "iret";
	/* A mode decision every 1000 reads of vCPU 0 (50 in short runs). */
	uint64_t every = reads / 50 < 1000 ? (reads / 50 ? reads / 50 : 1) : 1000;
	uint64_t sum_reads = 0, user = 0, kern, refl, runs = 0, own = 0,
		 glob = 0, maxback = 0;
	unsigned long nsw = 0;
	bool ok = true;

	vm_create(&vm, nvcpus, exit_path ? PVSMM_CAP_FORCE_EXIT_RETURN : 0,
		  &H_good);
	m.mode = M_USER;
	if (smp_modes & (1u << M_REFLECT))
		set_mode(&m, M_REFLECT);
	for (int n = 0; n < nvcpus; n++) {
		start_reader(&vm, n, reads, every);
		vm.v[n].arg = &m;
	}
	for (int n = 0; n < nvcpus; n++)
		pthread_create(&vm.v[n].thread, NULL, smp_thread, &vm.v[n]);
	for (int n = 0; n < nvcpus; n++) {
		pthread_join(vm.v[n].thread, NULL);
		ok &= vm.v[n].arg != NULL;
	}
	for (int n = 0; n < nvcpus; n++) {
		sum_reads += st(&vm, n, ST_READS);
		user += vm.v[n].user_reads;
		runs += area(&vm, n)->handler_runs;
		own += st(&vm, n, ST_OWN_BACK);
		glob += st(&vm, n, ST_GLOBAL_BACK);
		if (st(&vm, n, ST_MAX_BACK) > maxback)
			maxback = st(&vm, n, ST_MAX_BACK);
	}
	kern = kstat_vm(&vm, "pvsmm_pmtimer_reads");
	refl = kstat_vm(&vm, "pvsmm_reflections");
	for (int i = 0; i < NR_MODES; i++)
		for (int j = 0; j < NR_MODES; j++)
			nsw += i != j ? m.switches[i][j] : 0;

	check(ok && m.bad_switch == 0, "%s: %d vCPUs finished, %lu mode switches applied",
	      path, nvcpus, nsw);
	check(sum_reads == nvcpus * reads && sum_reads == user + kern + refl &&
	      runs == refl,
	      "%s: %llu reads = %llu reflected + %llu in-kernel + %llu userspace; handler ran %llu times",
	      path, (unsigned long long)sum_reads, (unsigned long long)refl,
	      (unsigned long long)kern, (unsigned long long)user,
	      (unsigned long long)runs);
	check(own == 0 && glob == 0,
	      "%s: no step back beyond one tick, per vCPU (%llu) or across vCPUs (%llu); largest step back %llu tick(s)",
	      path, (unsigned long long)own, (unsigned long long)glob,
	      (unsigned long long)maxback);
	check(kstat_vm(&vm, "pvsmm_handler_faults") == 0 &&
	      data(&vm, D_EXC_COUNT) == 0, "%s: no handler fault", path);
	printf("     switches:");
	for (int i = 0; i < NR_MODES; i++)
		for (int j = 0; j < NR_MODES; j++)
			if (i != j && m.switches[i][j])
				printf(" %s->%s %lu", mode_name[i], mode_name[j],
				       m.switches[i][j]);
	printf("\n");
	vm_destroy(&vm);
}

static void test_smp(uint64_t reads)
{
	group_begin("smp");
	smp_case(4, reads, false);
	smp_case(4, reads / 4 ? reads / 4 : 1, true);
	group_end();
}

static void test_fuzz(unsigned long n)
{
	group_begin("fuzz");
	fuzz_descriptors(n);
	fuzz_locations();
	fuzz_race(20000, 5000);
	group_end();
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	unsigned long arg = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;
	bool all = !strcmp(what, "all");

	setvbuf(stdout, NULL, _IOLBF, 0);
	kvm_fd = open("/dev/kvm", O_RDWR);
	if (kvm_fd < 0)
		die("/dev/kvm");
	stock = getenv("PVSMM_STOCK") && !strcmp(getenv("PVSMM_STOCK"), "1");
	if (stock && strcmp(what, "smp")) {
		printf("FAIL PVSMM_STOCK=1 only runs smp, with modes 4\n");
		return 1;
	}
	if (stock)
		smp_modes = 1u << M_USER;
	else if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PVSMM_REFLECT) <= 0) {
		printf("FAIL this KVM has no KVM_CAP_PVSMM_REFLECT\n");
		return 1;
	}
	cpuid = calloc(1, sizeof(*cpuid) + 256 * sizeof(struct kvm_cpuid_entry2));
	cpuid->nent = 256;
	if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid) < 0)
		die("KVM_GET_SUPPORTED_CPUID");

	if (all || !strcmp(what, "fuzz"))
		test_fuzz(arg && !all ? arg : 10240);
	if (all || !strcmp(what, "faults"))
		test_faults();
	if (all || !strcmp(what, "events"))
		test_events(arg && !all ? arg : 3000);
	if (all || !strcmp(what, "migrate"))
		test_migrate();
	if (argc > 3)
		smp_modes = strtoul(argv[3], NULL, 0);
	if (all || !strcmp(what, "smp"))
		test_smp(arg && !all ? arg : 20000);
	return total_failed ? 1 : 0;
}
