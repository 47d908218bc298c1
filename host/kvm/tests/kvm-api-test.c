// SPDX-License-Identifier: MIT
/*
 * Checks of the patched KVM's pvsmm API that need no firmware: the
 * capabilities and their argument checks, the registration MSR (host and
 * guest writes, every descriptor status), the generic reflection from a
 * real-mode guest (into a 64-bit handler and back), the fallback to
 * userspace when the save area disappears, the in-kernel PM timer against
 * KVM_GET_CLOCK, the binary stats, and the IRETQ fast path from 64-bit
 * user mode (window slot claimed, reused, or left alone).  Runs in the lab:
 *
 *   tests/lab/run-in-lab.sh --modules patched \
 *	--add build/kvm/kvm-api-test:/pvsmm/kvm-api-test -- kvm-api-test
 *
 * Prints one line per check and exits 0 when all passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/kvm.h>

#include "pvsmm/abi.h"

#define RAM_SIZE	0x100000	/* slot 0: 1 MiB at 0 */
#define RO_GPA		0x200000	/* slot 1: read-only page */
#define AREA_GPA	0x300000	/* slot 2: per-vCPU area, removable */
#define CODE		0x7000		/* real-mode test code */
#define GP_HANDLER	0x8000		/* real-mode #GP handler */
#define DESC		0x9000		/* descriptor */
#define PML4		0x10000		/* handler page tables */
#define PDPT		0x11000
#define PD		0x12000
#define PT		0x13000
#define HANDLER		0x14000		/* handler code, at WINDOW_BASE */
#define REPORT_PORT	0x10
#define VALUE_PORT	0x11
#define PM_PORT		0x608

static int failures;
static int kvm_fd;

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s ", ok ? "ok  " : "FAIL");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (!ok)
		failures++;
}

static void die(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	exit(1);
}

/*
 * The IRETQ fast path needs two-dimensional paging (pvsmm_can_iret() in
 * the series): with kvm-intel ept=0 or kvm-amd npt=0 every reflection
 * takes the generic path.
 */
static bool tdp_on(void)
{
	static const char *const param[] = {
		"/sys/module/kvm_intel/parameters/ept",
		"/sys/module/kvm_amd/parameters/npt",
	};

	for (unsigned int i = 0; i < sizeof(param) / sizeof(param[0]); i++) {
		FILE *f = fopen(param[i], "r");
		int c;

		if (!f)
			continue;
		c = fgetc(f);
		fclose(f);
		return c == 'Y' || c == '1';
	}
	return true;
}

struct vm {
	int fd;
	int vcpu;
	struct kvm_run *run;
	uint8_t *ram;
	uint8_t *ro;
	uint8_t *area;
};

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

static void *anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void vm_create(struct vm *vm, bool vcpu)
{
	memset(vm, 0, sizeof(*vm));
	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM");
	vm->ram = anon(RAM_SIZE);
	vm->ro = anon(4096);
	vm->area = anon(4096);
	set_slot(vm, 0, 0, vm->ram, RAM_SIZE, 0);
	set_slot(vm, 1, RO_GPA, vm->ro, 4096, KVM_MEM_READONLY);
	set_slot(vm, 2, AREA_GPA, vm->area, 4096, 0);
	vm->vcpu = -1;
	if (!vcpu)
		return;

	vm->vcpu = ioctl(vm->fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu < 0)
		die("KVM_CREATE_VCPU");
	int size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	vm->run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       vm->vcpu, 0);
	if (vm->run == MAP_FAILED)
		die("mmap kvm_run");

	struct kvm_sregs s;

	if (ioctl(vm->vcpu, KVM_GET_SREGS, &s) < 0)
		die("KVM_GET_SREGS");
	s.cs.base = 0;
	s.cs.selector = 0;
	if (ioctl(vm->vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS");

	struct kvm_regs r = { .rip = CODE, .rflags = 2, .rsp = 0x6000 };

	if (ioctl(vm->vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");

	/* Real-mode #GP handler: report 13. */
	static const uint8_t gp[] = { 0xb0, 0x0d, 0xe6, REPORT_PORT, 0xf4 };

	memcpy(vm->ram + GP_HANDLER, gp, sizeof(gp));
	*(uint16_t *)(vm->ram + 13 * 4) = GP_HANDLER;
	*(uint16_t *)(vm->ram + 13 * 4 + 2) = 0;
}

static void vm_destroy(struct vm *vm)
{
	if (vm->vcpu >= 0)
		close(vm->vcpu);
	close(vm->fd);
}

static int enable(struct vm *vm, uint32_t cap, uint64_t a0, uint64_t a1,
		  uint64_t a2, uint64_t a3)
{
	struct kvm_enable_cap ec = { .cap = cap,
				     .args = { a0, a1, a2, a3 } };

	return ioctl(vm->fd, KVM_ENABLE_CAP, &ec) < 0 ? -errno : 0;
}

static int set_msr(struct vm *vm, uint64_t value)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = PVSMM_MSR_REGISTER, .e.data = value };

	return ioctl(vm->vcpu, KVM_SET_MSRS, &m);
}

static int get_msr(struct vm *vm, uint64_t *value)
{
	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} m = { .h.nmsrs = 1, .e.index = PVSMM_MSR_REGISTER };
	int r = ioctl(vm->vcpu, KVM_GET_MSRS, &m);

	*value = m.e.data;
	return r;
}

/* Runs until an exit other than the PIO this test ignores. */
static struct kvm_run *run(struct vm *vm)
{
	if (ioctl(vm->vcpu, KVM_RUN, 0) < 0)
		die("KVM_RUN");
	return vm->run;
}

static uint32_t io_value(struct kvm_run *r)
{
	uint32_t v = 0;

	memcpy(&v, (uint8_t *)r + r->io.data_offset, r->io.size);
	return v;
}

/* Runs the guest until an OUT to port; returns the value, ~0 if another exit. */
static uint64_t run_to_out(struct vm *vm, uint16_t port)
{
	struct kvm_run *r = run(vm);

	if (r->exit_reason != KVM_EXIT_IO || r->io.port != port ||
	    r->io.direction != KVM_EXIT_IO_OUT) {
		printf("     (exit %u, port 0x%x)\n", r->exit_reason,
		       r->exit_reason == KVM_EXIT_IO ? r->io.port : 0);
		return ~0ull;
	}
	return io_value(r);
}

static void put_code(struct vm *vm, const uint8_t *code, size_t len)
{
	memcpy(vm->ram + CODE, code, len);
}

static struct pvsmm_descriptor good_desc(void)
{
	return (struct pvsmm_descriptor){
		.magic = PVSMM_DESC_MAGIC, .version = PVSMM_ABI_VERSION,
		.size = sizeof(struct pvsmm_descriptor), .nr_vcpus = 1,
		.handler_va = PVSMM_WINDOW_BASE, .handler_size = 64,
		.private_cr3 = PML4, .window_pdpt = PDPT,
		.percpu_gpa = AREA_GPA, .percpu_va = PVSMM_WINDOW_BASE + 0x1000,
	};
}

static uint32_t register_desc(struct vm *vm, struct pvsmm_descriptor d)
{
	d.status = 0xdead;
	memcpy(vm->ram + DESC, &d, sizeof(d));
	if (set_msr(vm, DESC | PVSMM_MSR_ENABLE) != 1)
		return 0xffff;
	return ((struct pvsmm_descriptor *)(vm->ram + DESC))->status;
}

static void test_caps(void)
{
	struct vm vm;

	check(ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PVSMM_REFLECT) ==
	      PVSMM_ABI_VERSION, "KVM_CHECK_EXTENSION(REFLECT) = ABI version");
	check(ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PVSMM_PMTIMER) == 1,
	      "KVM_CHECK_EXTENSION(PMTIMER) = 1");

	struct kvm_msr_list *l = calloc(1, sizeof(*l) + 4096 * 4);
	bool listed = false;

	l->nmsrs = 4096;
	if (ioctl(kvm_fd, KVM_GET_MSR_INDEX_LIST, l) < 0)
		die("KVM_GET_MSR_INDEX_LIST");
	for (unsigned int i = 0; i < l->nmsrs; i++)
		listed |= l->indices[i] == PVSMM_MSR_REGISTER;
	check(listed, "PVSMM_MSR_REGISTER in KVM_GET_MSR_INDEX_LIST");
	free(l);

	vm_create(&vm, false);
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 2) == -EINVAL,
	      "REFLECT: unknown flag -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 0, 0xef0, 0) == -EINVAL,
	      "REFLECT: 0 ports -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, PVSMM_MAX_PORTS + 1,
		     0xef0, 0) == -EINVAL, "REFLECT: too many ports -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, 0xfffe, 3, 0xef0, 0) == -EINVAL,
	      "REFLECT: range past 0xffff -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, 0x10000, 1, 0xef0, 0) == -EINVAL,
	      "REFLECT: port > 0xffff -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 2, PM_PORT + 1, 0) ==
	      -EINVAL, "REFLECT: return port in the range -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0x10000, 0) ==
	      -EINVAL, "REFLECT: return port > 0xffff -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, 0xffff, 1, 0xef0,
		     PVSMM_CAP_FORCE_EXIT_RETURN) == 0,
	      "REFLECT: port 0xffff, FORCE_EXIT_RETURN -> 0");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 0) == -EINVAL,
	      "REFLECT: enabled twice -> EINVAL");

	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, 0xfffd, 0, 0, 0) == -EINVAL,
	      "PMTIMER: port + 4 past 0xffff -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT, 2, 0, 0) == -EINVAL,
	      "PMTIMER: unknown flag in args[1] -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT, 0, 1, 0) == -EINVAL,
	      "PMTIMER: args[2] != 0 -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT,
		     PVSMM_PMTIMER_DEASSIGN, 0, 0) == -ENOENT,
	      "PMTIMER: DEASSIGN without a device -> ENOENT");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT, 0, 0, 0) == 0,
	      "PMTIMER: port 0x608 -> 0");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT, 0, 0, 0) == -EINVAL,
	      "PMTIMER: enabled twice -> EINVAL");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT + 4,
		     PVSMM_PMTIMER_DEASSIGN, 0, 0) == -ENOENT,
	      "PMTIMER: DEASSIGN of another port -> ENOENT");
	check(enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT,
		     PVSMM_PMTIMER_DEASSIGN, 0, 0) == 0 &&
	      enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT, 0, 0, 0) == 0,
	      "PMTIMER: DEASSIGN -> 0, then enabled again -> 0");
	vm_destroy(&vm);

	/* -EBUSY once a vCPU has run. */
	static const uint8_t hlt[] = { 0xf4 };

	vm_create(&vm, true);
	put_code(&vm, hlt, sizeof(hlt));
	check(run(&vm)->exit_reason == KVM_EXIT_HLT, "stock: real-mode HLT runs");
	check(enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 0) == -EBUSY,
	      "REFLECT after a vCPU ran -> EBUSY");
	vm_destroy(&vm);
}

/* mov ecx, MSR; mov eax, lo; xor edx, edx; wrmsr; mov al, 1; out; hlt */
static void wrmsr_code(struct vm *vm, uint32_t lo)
{
	uint8_t c[] = {
		0x66, 0xb9, 0x00, 0x53, 0x56, 0x50,
		0x66, 0xb8, lo, lo >> 8, lo >> 16, lo >> 24,
		0x66, 0x31, 0xd2, 0x0f, 0x30,
		0xb0, 0x01, 0xe6, REPORT_PORT, 0xf4,
	};

	put_code(vm, c, sizeof(c));
}

static void test_msr(void)
{
	struct vm vm;
	uint64_t v;

	/* Without the capability: stock behaviour. */
	vm_create(&vm, true);
	check(set_msr(&vm, 0) == 1, "no cap: host write of 0 accepted");
	check(set_msr(&vm, DESC | 1) == 0, "no cap: host write of non-0 refused");
	check(get_msr(&vm, &v) == 1 && v == 0, "no cap: host read = 0");
	wrmsr_code(&vm, DESC | 1);
	check(run_to_out(&vm, REPORT_PORT) == 13, "no cap: guest WRMSR -> #GP");
	vm_destroy(&vm);

	vm_create(&vm, true);
	if (enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 0))
		die("enable REFLECT");
	check(set_msr(&vm, DESC | 2 | 1) == 0, "host write, reserved bit -> refused");
	check(set_msr(&vm, 1ull << 52 | 1) == 0, "host write, bit 52 -> refused");

	struct pvsmm_descriptor d = good_desc();

	check(register_desc(&vm, d) == PVSMM_STATUS_OK, "valid descriptor -> OK");
	check(get_msr(&vm, &v) == 1 && v == (DESC | 1), "read back the MSR");

	d = good_desc(); d.magic ^= 1;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_MAGIC, "bad magic");
	d = good_desc(); d.version = 2;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VERSION, "bad version");
	d = good_desc(); d.size = 64;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_SIZE, "bad size");
	d = good_desc(); d.flags = 1;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_FLAGS, "flags != 0");
	d = good_desc(); d.reserved = 1;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_FLAGS, "reserved != 0");
	d = good_desc(); d.nr_vcpus = 0;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VCPUS, "nr_vcpus 0");
	d = good_desc(); d.nr_vcpus = PVSMM_MAX_VCPUS + 1;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VCPUS, "nr_vcpus too big");
	d = good_desc(); d.nr_vcpus = 2;	/* area slot is one page */
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_GPA, "per-vCPU areas leave RAM");
	d = good_desc(); d.private_cr3 = PML4 + 8;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_GPA, "unaligned private_cr3");
	d = good_desc(); d.window_pdpt = 0x40000000;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_GPA, "window_pdpt not in RAM");
	d = good_desc(); d.window_pdpt = RO_GPA;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_GPA, "window_pdpt in a read-only slot");
	d = good_desc(); d.handler_va = 0x1000;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VA, "handler outside the window");
	d = good_desc(); d.handler_va = PVSMM_WINDOW_BASE + PVSMM_WINDOW_SIZE - 8;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VA, "handler crosses the window end");
	d = good_desc(); d.handler_size = 0;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VA, "handler_size 0");
	d = good_desc(); d.handler_size = PVSMM_MAX_HANDLER_SIZE + 1;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VA, "handler_size too big");
	d = good_desc(); d.percpu_va += 8;
	check(register_desc(&vm, d) == PVSMM_STATUS_BAD_VA, "unaligned percpu_va");

	/* Guest writes: reserved bits #GP, a bad descriptor does not. */
	d = good_desc(); d.magic = 0;
	memcpy(vm.ram + DESC, &d, sizeof(d));
	wrmsr_code(&vm, DESC | 1);
	check(run_to_out(&vm, REPORT_PORT) == 1 &&
	      ((struct pvsmm_descriptor *)(vm.ram + DESC))->status ==
	      PVSMM_STATUS_BAD_MAGIC, "guest WRMSR, bad descriptor: no #GP, status");
	struct kvm_regs r = { .rip = CODE, .rflags = 2, .rsp = 0x6000 };

	ioctl(vm.vcpu, KVM_SET_REGS, &r);
	wrmsr_code(&vm, DESC | 0x801);
	check(run_to_out(&vm, REPORT_PORT) == 13, "guest WRMSR, reserved bit -> #GP");
	vm_destroy(&vm);
}

/* Window: PML4[271] -> PDPT[0] -> PD[0] -> PT: handler, per-vCPU area. */
static void build_handler(struct vm *vm)
{
	uint64_t *pml4 = (uint64_t *)(vm->ram + PML4);
	uint64_t *pdpt = (uint64_t *)(vm->ram + PDPT);
	uint64_t *pd = (uint64_t *)(vm->ram + PD);
	uint64_t *pt = (uint64_t *)(vm->ram + PT);

	memset(pml4, 0, 4 * 4096);
	pml4[PVSMM_WINDOW_SLOT] = PDPT | 3;
	pdpt[0] = PD | 3;
	pd[0] = PT | 3;
	pt[0] = HANDLER | 3;
	pt[1] = AREA_GPA | 3;

	/*
	 * mov dword [rdi + 12], 0x00123456	(result)
	 * mov eax, [rdi + 64]; mov [rdi + 128], rax	(copy rax to scratch)
	 * mov dx, 0xef0; out dx, eax
	 */
	static const uint8_t h[] = {
		0xc7, 0x47, 0x0c, 0x56, 0x34, 0x12, 0x00,
		0x48, 0x8b, 0x47, 0x40,
		0x48, 0x89, 0x87, 0x80, 0x00, 0x00, 0x00,
		0x66, 0xba, 0xf0, 0x0e, 0xef,
		0xf4,
	};

	memcpy(vm->ram + HANDLER, h, sizeof(h));
}

static void test_generic(void)
{
	struct vm vm;

	vm_create(&vm, true);
	if (enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 0))
		die("enable REFLECT");
	build_handler(&vm);
	check(register_desc(&vm, good_desc()) == PVSMM_STATUS_OK,
	      "generic: registered");

	/*
	 * mov eax, 0xaabbccdd; mov dx, 0x608; in ax, dx; out 0x11, eax;
	 * in al, dx; out 0x11, eax; hlt
	 */
	static const uint8_t c[] = {
		0x66, 0xb8, 0xdd, 0xcc, 0xbb, 0xaa,
		0xba, 0x08, 0x06,
		0xed,
		0x66, 0xe7, VALUE_PORT,
		0xec,
		0x66, 0xe7, VALUE_PORT,
		0xf4,
	};

	put_code(&vm, c, sizeof(c));
	uint64_t v = run_to_out(&vm, VALUE_PORT);

	check(v == 0xaabb3456, "generic: real-mode IN AX reflected, AX merged (0x%llx)",
	      (unsigned long long)v);

	struct pvsmm_save_area *sa = (struct pvsmm_save_area *)vm.area;

	check(sa->port == PM_PORT && sa->size == 2 && sa->direction == 0 &&
	      sa->return_method == PVSMM_RETURN_EXIT && sa->return_port == 0xef0 &&
	      sa->vcpu_index == 0 && sa->rip == CODE + 10 && sa->sequence == 1 &&
	      sa->rax == 0xaabbccdd && sa->handler_scratch[0] == 0xaabbccdd &&
	      sa->pvclock.tsc_to_system_mul != 0 && !(sa->pvclock.version & 1),
	      "generic: save area (port, size, method, rip 0x%llx, seq %llu, rax)",
	      (unsigned long long)sa->rip, (unsigned long long)sa->sequence);

	struct kvm_sregs s;

	ioctl(vm.vcpu, KVM_GET_SREGS, &s);
	check(!(s.cr0 & 1) && s.cs.selector == 0, "generic: back in real mode");

	/* Remove the area: the next read falls back to userspace. */
	set_slot(&vm, 2, AREA_GPA, NULL, 0, 0);
	struct kvm_run *r = run(&vm);

	check(r->exit_reason == KVM_EXIT_IO && r->io.port == PM_PORT &&
	      r->io.direction == KVM_EXIT_IO_IN,
	      "area gone: IN AL exits to userspace as without pvsmm");
	*((uint8_t *)r + r->io.data_offset) = 0x77;
	v = run_to_out(&vm, VALUE_PORT);
	check((v & 0xff) == 0x77, "area gone: userspace value merged (0x%llx)",
	      (unsigned long long)v);

	/* Stats. */
	int sfd = ioctl(vm.vcpu, KVM_GET_STATS_FD, NULL);
	struct kvm_stats_header h;

	if (sfd < 0 || pread(sfd, &h, sizeof(h), 0) != sizeof(h))
		die("KVM_GET_STATS_FD");
	size_t dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	uint8_t *descs = malloc(dsz * h.num_desc);
	uint64_t refl = ~0ull, exitr = ~0ull, fb = ~0ull, iret = ~0ull;

	pread(sfd, descs, dsz * h.num_desc, h.desc_offset);
	for (unsigned int i = 0; i < h.num_desc; i++) {
		struct kvm_stats_desc *d = (void *)(descs + i * dsz);
		uint64_t val;

		pread(sfd, &val, 8, h.data_offset + d->offset);
		if (!strcmp(d->name, "pvsmm_reflections"))
			refl = val;
		else if (!strcmp(d->name, "pvsmm_exit_returns"))
			exitr = val;
		else if (!strcmp(d->name, "pvsmm_fallbacks"))
			fb = val;
		else if (!strcmp(d->name, "pvsmm_iret_returns"))
			iret = val;
	}
	check(refl == 1 && exitr == 1 && fb == 1 && iret == 0,
	      "stats: reflections %llu, exit_returns %llu, fallbacks %llu, iret %llu",
	      (unsigned long long)refl, (unsigned long long)exitr,
	      (unsigned long long)fb, (unsigned long long)iret);
	free(descs);
	close(sfd);
	vm_destroy(&vm);
}

/*
 * The fast path from 64-bit user mode: a CPL 3 IN (IOPL 3) is reflected
 * with PVSMM_RETURN_IRET, KVM claims the empty PML4 slot, enters the handler
 * with the CS of MSR_STAR, and the handler's IRETQ returns to CPL 3.  Then
 * the same read with NMIs blocked goes to userspace.
 */
#define G_PML4		0x20000
#define G_PDPT		0x21000
#define G_PD		0x22000
#define G_GDT		0x23000
#define USER_CS		0x2b
#define USER_SS		0x23
#define KERNEL_CS	0x10

static struct kvm_segment seg(uint16_t sel, uint8_t type, uint8_t dpl,
			      uint8_t s, uint8_t l, uint8_t db)
{
	return (struct kvm_segment){
		.selector = sel, .limit = 0xffffffff, .type = type,
		.present = 1, .dpl = dpl, .s = s, .l = l, .db = db, .g = 1,
	};
}

static void enter_user64(struct vm *vm)
{
	struct kvm_sregs s;

	ioctl(vm->vcpu, KVM_GET_SREGS, &s);
	s.cr0 = 0x80010033;
	s.cr3 = G_PML4;
	s.cr4 = 0x20;
	s.efer = 0x500;
	s.cs = seg(USER_CS, 0xb, 3, 1, 1, 0);
	s.ss = seg(USER_SS, 0x3, 3, 1, 0, 1);
	s.ds = s.es = s.fs = s.gs = s.ss;
	s.tr = (struct kvm_segment){ .selector = 0x30, .limit = 0x67,
				     .type = 0xb, .present = 1 };
	s.gdt.base = G_GDT;
	s.gdt.limit = 8 * 8 - 1;
	s.idt.base = 0;
	s.idt.limit = 0;
	if (ioctl(vm->vcpu, KVM_SET_SREGS, &s) < 0)
		die("KVM_SET_SREGS (long mode)");

	struct kvm_regs r = { .rip = CODE, .rflags = 0x3002, .rsp = 0x6000 };

	if (ioctl(vm->vcpu, KVM_SET_REGS, &r) < 0)
		die("KVM_SET_REGS");
}

static void test_fast(void)
{
	struct vm vm;
	uint64_t *pml4, *gdt;

	vm_create(&vm, true);
	if (enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 0))
		die("enable REFLECT");
	build_handler(&vm);

	/*
	 * cmp byte [rdi + 4], PVSMM_RETURN_IRET; je 1f
	 * mov dword [rdi + 12], 0x123456; mov dx, 0xef0; out dx, eax
	 * 1: mov eax, 0x123456; mov rdi, [rdi + 72]; iretq
	 */
	static const uint8_t h[] = {
		0x80, 0x7f, 0x04, PVSMM_RETURN_IRET,
		0x74, 0x0c,
		0xc7, 0x47, 0x0c, 0x56, 0x34, 0x12, 0x00,
		0x66, 0xba, 0xf0, 0x0e,
		0xef,
		0xb8, 0x56, 0x34, 0x12, 0x00,
		0x48, 0x8b, 0x7f, 0x48,
		0x48, 0xcf,
	};

	memcpy(vm.ram + HANDLER, h, sizeof(h));
	check(register_desc(&vm, good_desc()) == PVSMM_STATUS_OK,
	      "fast: registered");

	/* Guest tables: 2 MiB user page at 0; slot 271 left empty. */
	pml4 = (uint64_t *)(vm.ram + G_PML4);
	memset(pml4, 0, 3 * 4096);
	pml4[0] = G_PDPT | 7;
	((uint64_t *)(vm.ram + G_PDPT))[0] = G_PD | 7;
	((uint64_t *)(vm.ram + G_PD))[0] = 0x87;
	gdt = (uint64_t *)(vm.ram + G_GDT);
	memset(gdt, 0, 64);
	gdt[2] = 0x00209a0000000000ull;	/* 0x10 kernel code 64 */
	gdt[3] = 0x0000920000000000ull;	/* 0x18 kernel data */
	gdt[4] = 0x00cff2000000ffffull;	/* 0x23 user data */
	gdt[5] = 0x0020fa0000000000ull;	/* 0x2b user code 64 */

	struct {
		struct kvm_msrs h;
		struct kvm_msr_entry e;
	} star = { .h.nmsrs = 1, .e.index = 0xc0000081,
		   .e.data = (uint64_t)KERNEL_CS << 32 };

	if (ioctl(vm.vcpu, KVM_SET_MSRS, &star) != 1)
		die("MSR_STAR");

	/*
	 * mov eax, 0xaabbccdd; mov edi, 0x12345678; mov dx, 0x608; in eax, dx;
	 * out 0x11, eax; mov eax, edi; out 0x11, eax; mov eax, cs;
	 * out 0x11, eax; jmp $
	 */
	static const uint8_t c[] = {
		0xb8, 0xdd, 0xcc, 0xbb, 0xaa,
		0xbf, 0x78, 0x56, 0x34, 0x12,
		0x66, 0xba, 0x08, 0x06,
		0xed,
		0xe7, VALUE_PORT,
		0x89, 0xf8,
		0xe7, VALUE_PORT,
		0x8c, 0xc8,
		0xe7, VALUE_PORT,
		0xeb, 0xfe,
	};

	put_code(&vm, c, sizeof(c));
	enter_user64(&vm);

	uint64_t v = run_to_out(&vm, VALUE_PORT);
	uint64_t rdi = run_to_out(&vm, VALUE_PORT);
	uint64_t cs = run_to_out(&vm, VALUE_PORT);
	struct pvsmm_save_area *sa = (struct pvsmm_save_area *)vm.area;
	struct pvsmm_iret_frame *f =
		(void *)(vm.area + PVSMM_PERCPU_SIZE - sizeof(*f));

	check(v == 0x123456 && rdi == 0x12345678 && cs == USER_CS,
	      "fast: CPL 3 IN reflected, value 0x%llx, RDI 0x%llx, back in CS 0x%llx",
	      (unsigned long long)v, (unsigned long long)rdi,
	      (unsigned long long)cs);
	if (tdp_on()) {
		check(sa->return_method == PVSMM_RETURN_IRET && sa->cs == USER_CS &&
		      sa->ss == USER_SS && sa->rip == CODE + 15 &&
		      sa->rdi == 0x12345678 && (sa->rflags & 0x3000) == 0x3000 &&
		      sa->cr3 == G_PML4 && f->rip == CODE + 15 &&
		      f->cs == USER_CS && f->ss == USER_SS && f->rsp == 0x6000,
		      "fast: save area and IRETQ frame");
		check((pml4[PVSMM_WINDOW_SLOT] & ~0x20ull) == (PDPT | 3),
		      "fast: window installed in the empty PML4 slot (0x%llx)",
		      (unsigned long long)pml4[PVSMM_WINDOW_SLOT]);
	} else {
		/* Shadow paging: the fast path is off, the generic one serves. */
		check(sa->return_method == PVSMM_RETURN_EXIT && sa->cs == USER_CS &&
		      sa->ss == USER_SS && sa->rip == CODE + 15 &&
		      sa->rdi == 0x12345678 && sa->cr3 == G_PML4,
		      "fast, no TDP: save area of a generic-path reflection");
		check(pml4[PVSMM_WINDOW_SLOT] == 0,
		      "fast, no TDP: the empty PML4 slot left empty (0x%llx)",
		      (unsigned long long)pml4[PVSMM_WINDOW_SLOT]);
	}

	/* The slot already holds the window: reflected again. */
	enter_user64(&vm);
	v = run_to_out(&vm, VALUE_PORT);
	check(v == 0x123456 && sa->sequence == 2, "fast: second read, slot reused");

	/* A slot the guest uses: left alone, generic path instead. */
	pml4[PVSMM_WINDOW_SLOT] = 0x5000 | 3;
	enter_user64(&vm);
	v = run_to_out(&vm, VALUE_PORT);
	rdi = run_to_out(&vm, VALUE_PORT);
	cs = run_to_out(&vm, VALUE_PORT);
	check(v == 0x123456 && rdi == 0x12345678 && cs == USER_CS &&
	      sa->return_method == PVSMM_RETURN_EXIT &&
	      pml4[PVSMM_WINDOW_SLOT] == (0x5000 | 3),
	      "fast: slot in use -> untouched, PVSMM_RETURN_EXIT from CPL 3 and back");
	pml4[PVSMM_WINDOW_SLOT] = 0;
	struct kvm_run *r;

	/* NMIs blocked: not reflected. */
	struct kvm_vcpu_events ev;

	vm_destroy(&vm);
	vm_create(&vm, true);
	enable(&vm, KVM_CAP_PVSMM_REFLECT, PM_PORT, 1, 0xef0, 0);
	build_handler(&vm);
	memcpy(vm.ram + HANDLER, h, sizeof(h));
	register_desc(&vm, good_desc());
	pml4 = (uint64_t *)(vm.ram + G_PML4);
	memset(pml4, 0, 3 * 4096);
	pml4[0] = G_PDPT | 7;
	((uint64_t *)(vm.ram + G_PDPT))[0] = G_PD | 7;
	((uint64_t *)(vm.ram + G_PD))[0] = 0x87;
	memset(vm.ram + G_GDT, 0, 64);
	memcpy(vm.ram + G_GDT + 16, (uint64_t[]){ 0x00209a0000000000ull,
		0x0000920000000000ull, 0x00cff2000000ffffull,
		0x0020fa0000000000ull }, 32);
	ioctl(vm.vcpu, KVM_SET_MSRS, &star);
	put_code(&vm, c, sizeof(c));
	enter_user64(&vm);
	ioctl(vm.vcpu, KVM_GET_VCPU_EVENTS, &ev);
	ev.nmi.masked = 1;
	if (ioctl(vm.vcpu, KVM_SET_VCPU_EVENTS, &ev) < 0)
		die("KVM_SET_VCPU_EVENTS");
	r = run(&vm);
	check(r->exit_reason == KVM_EXIT_IO && r->io.port == PM_PORT &&
	      r->io.direction == KVM_EXIT_IO_IN,
	      "NMIs blocked: the read goes to userspace");
	vm_destroy(&vm);
}

static uint32_t ticks(uint64_t ns)
{
	return (uint32_t)((unsigned __int128)ns * PVSMM_PM_TIMER_HZ /
			  PVSMM_NSEC_PER_SEC) & PVSMM_PM_TIMER_MASK;
}

static uint64_t clock_ns(struct vm *vm)
{
	struct kvm_clock_data c = { 0 };

	if (ioctl(vm->fd, KVM_GET_CLOCK, &c) < 0)
		die("KVM_GET_CLOCK");
	return c.clock;
}

static void test_pmtimer(void)
{
	struct vm vm;
	int bad = 0;

	vm_create(&vm, true);
	if (enable(&vm, KVM_CAP_PVSMM_PMTIMER, PM_PORT, 0, 0, 0))
		die("enable PMTIMER");

	/* loop: in eax, dx; out 0x11, eax; in al, dx (port+1) ... */
	static const uint8_t c[] = {
		0xba, 0x08, 0x06,		/* mov dx, 0x608 */
		0x66, 0xed,			/* in eax, dx */
		0x66, 0xe7, VALUE_PORT,		/* out 0x11, eax */
		0x42,				/* inc dx */
		0xec,				/* in al, dx */
		0xe6, VALUE_PORT,		/* out 0x11, al */
		0xeb, 0xf2,			/* jmp to mov dx */
	};

	put_code(&vm, c, sizeof(c));
	for (int i = 0; i < 200; i++) {
		uint64_t t0 = clock_ns(&vm);
		uint64_t v = run_to_out(&vm, VALUE_PORT);
		uint64_t t1 = clock_ns(&vm);
		uint32_t lo = ticks(t0), span = (ticks(t1) - lo) & 0xffffff;

		if (v >> 24 || ((v - lo) & 0xffffff) > span)
			bad++;
		/* The byte at port + 1 is bits 15:8 of the counter. */
		uint64_t b = run_to_out(&vm, VALUE_PORT);
		uint32_t b0 = ticks(t1) >> 8, b1 = ticks(clock_ns(&vm)) >> 8;

		if (b > 0xff || ((b - b0) & 0xff) > ((b1 - b0) & 0xff))
			bad++;
	}
	check(bad == 0, "PMTIMER: 200 reads within KVM_GET_CLOCK bounds, byte reads at port+1 (%d bad)",
	      bad);
	vm_destroy(&vm);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	kvm_fd = open("/dev/kvm", O_RDWR);
	if (kvm_fd < 0)
		die("/dev/kvm");
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_PVSMM_REFLECT) <= 0) {
		printf("FAIL this KVM has no KVM_CAP_PVSMM_REFLECT\n");
		return 1;
	}
	test_caps();
	test_msr();
	test_generic();
	test_fast();
	test_pmtimer();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
