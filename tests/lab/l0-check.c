// SPDX-License-Identifier: MIT
/*
 * Checks of the lab's L0, the emulated CPU that L1's KVM runs on, in the
 * two places where emulators were seen to get VMX wrong.  Runs in L1 on
 * stock or patched KVM (any vendor); every lab boot of tests/lab/check.py
 * runs it first, so a faulty L0 fails by name.
 *
 * I. An L2 spinning with interrupts off ("cli; jmp $") must still exit on
 *    L1's own interrupts: with "external-interrupt exiting" (VMX) or the
 *    INTR intercept (SVM), the guest's EFLAGS.IF does not matter.  A
 *    SIGALRM 0.1 s later must end KVM_RUN with EINTR; the check gives it
 *    10 s of L1 time (an alarm that never comes would hang L1: L0 would
 *    never deliver L1's timer either, so the last resort is the lab's
 *    wall-clock timeout).  Bochs 2.7 and 3.0 fail: VM entry computes the
 *    interrupt mask from the guest's IF before it marks the CPU as in VMX
 *    non-root operation (tests/lab/bochs/0002-*.patch).
 *
 * II. Does "blocking by NMI" stay with the vCPU it was set on?
 *
 * On VM entry a VMX CPU takes virtual-NMI blocking from bit 3 of the
 * guest's interruptibility state in the VMCS being entered, and on VM
 * exit it stores it back there (SDM vol. 3C, "Loading Guest State" and
 * "Saving Non-Register State": with "virtual NMIs" set, virtual-NMI
 * blocking after VM entry is exactly that bit).  SVM keeps it in the VMCB
 * (int_state) in the same way.  KVM sets and clears the bit with
 * KVM_SET_VCPU_EVENTS (nmi.masked), and a vCPU that KVM has not been told
 * is unmasked reads it back from the VMCS at every exit
 * (vmx_recover_nmi_blocking), so KVM_GET_VCPU_EVENTS shows what the CPU
 * stored.
 *
 *   1. VM A: nmi.masked = 1, run to an OUT: masked reads back 1 (the
 *      channel works: the CPU kept the blocking across entry and exit);
 *   2. VM A: nmi.masked = 0, run to an OUT: masked reads back 0;
 *   3. VM B, a fresh VM whose VMCS says "not blocked" and which KVM never
 *      masked: run to an OUT: masked must read 0;
 *   4. if 3 read 1: another fresh VM (B2) runs the same code, then VM C,
 *      a fresh VM that executes one real-mode IRET (no NMI involved; KVM
 *      does not intercept IRET) before its OUT, then fresh VM D.  If B2
 *      still reads 1 but C and D read 0, the blocking lived in the CPU,
 *      not in KVM: nothing KVM knows changed, only a guest's IRET inside
 *      the CPU ended it;
 *   5. VM E, fresh: masked must read 0.
 *
 * Debian's Bochs 2.7 fails 3 and shows 4: its VM entry only ever sets its
 * internal virtual-NMI mask from the VMCS, never clears it (cpu/vmx.cc,
 * VMenterLoadCheckGuestState), so blocking set for one VMCS leaks into
 * every later VMCS until some guest executes IRET.  Fixed upstream in
 * Bochs 3.0 (commit bd51ec5f8, SF #1456); the lab builds that
 * (tests/lab/bochs/).
 *
 * Exit status: 0 when every check passed.
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
#include <sys/time.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <linux/kvm.h>

#define RAM_SIZE	0x10000
#define CODE		0x1000
#define STACK		0x8000
#define PORT		0x10

static int kvm_fd, failures;

static void die(const char *what)
{
	printf("FAIL %s: %s\n", what, strerror(errno));
	exit(2);
}

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

struct vm {
	int fd, vcpu;
	struct kvm_run *run;
	uint8_t *ram;
};

/* cli; jmp $: spins with interrupts off, never exits by itself. */
static const uint8_t spin_code[] = { 0xfa, 0xeb, 0xfe };

/* out PORT, al; jmp back to it: each KVM_RUN ends at one OUT. */
static const uint8_t plain_code[] = { 0xe6, PORT, 0xeb, 0xfc };

/*
 * push word 2 (FLAGS); push cs; push word CODE+7; iret; then the OUT loop
 * at CODE+7: one real-mode IRET with NMIs not involved at all.
 */
static const uint8_t iret_code[] = {
	0x6a, 0x02,			/* push 0x0002 */
	0x0e,				/* push cs */
	0x68, (CODE + 7) & 0xff, (CODE + 7) >> 8, /* push CODE+7 */
	0xcf,				/* iret */
	0xe6, PORT, 0xeb, 0xfc,		/* CODE+7: out PORT, al; jmp $-2 */
};

static void vm_create(struct vm *vm, const uint8_t *code, size_t len)
{
	struct kvm_userspace_memory_region r = { 0 };
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	int size;

	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM");
	vm->ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vm->ram == MAP_FAILED)
		die("mmap");
	memcpy(vm->ram + CODE, code, len);
	r.memory_size = RAM_SIZE;
	r.userspace_addr = (uintptr_t)vm->ram;
	if (ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die("KVM_SET_USER_MEMORY_REGION");
	vm->vcpu = ioctl(vm->fd, KVM_CREATE_VCPU, 0);
	if (vm->vcpu < 0)
		die("KVM_CREATE_VCPU");
	size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	vm->run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       vm->vcpu, 0);
	if (vm->run == MAP_FAILED)
		die("mmap kvm_run");
	if (ioctl(vm->vcpu, KVM_GET_SREGS, &sregs) < 0)
		die("KVM_GET_SREGS");
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	sregs.ss.base = 0;
	sregs.ss.selector = 0;
	if (ioctl(vm->vcpu, KVM_SET_SREGS, &sregs) < 0)
		die("KVM_SET_SREGS");
	memset(&regs, 0, sizeof(regs));
	regs.rip = CODE;
	regs.rsp = STACK;
	regs.rflags = 2;
	if (ioctl(vm->vcpu, KVM_SET_REGS, &regs) < 0)
		die("KVM_SET_REGS");
}

static void vm_destroy(struct vm *vm)
{
	close(vm->vcpu);
	close(vm->fd);
	munmap(vm->ram, RAM_SIZE);
}

/* One KVM_RUN that must end at the guest's OUT; false if it did not. */
static bool run_to_out(struct vm *vm, const char *who)
{
	if (ioctl(vm->vcpu, KVM_RUN, 0) < 0)
		die("KVM_RUN");
	if (vm->run->exit_reason != KVM_EXIT_IO || vm->run->io.port != PORT ||
	    vm->run->io.direction != KVM_EXIT_IO_OUT) {
		check(false, "%s: exit at the OUT (exit reason %u, port 0x%x)",
		      who, vm->run->exit_reason, vm->run->io.port);
		return false;
	}
	return true;
}

static int nmi_masked(struct vm *vm)
{
	struct kvm_vcpu_events ev;

	if (ioctl(vm->vcpu, KVM_GET_VCPU_EVENTS, &ev) < 0)
		die("KVM_GET_VCPU_EVENTS");
	return ev.nmi.masked;
}

static void set_nmi_masked(struct vm *vm, int masked)
{
	struct kvm_vcpu_events ev;

	if (ioctl(vm->vcpu, KVM_GET_VCPU_EVENTS, &ev) < 0)
		die("KVM_GET_VCPU_EVENTS");
	/* nmi.masked is applied whatever the flags say; pending untouched */
	ev.flags = 0;
	ev.nmi.masked = masked;
	if (ioctl(vm->vcpu, KVM_SET_VCPU_EVENTS, &ev) < 0)
		die("KVM_SET_VCPU_EVENTS");
}

static void on_alarm(int sig)
{
	(void)sig;
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* I: L1's interrupts end an L2 spin with IF=0. */
static void check_spin(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };
	struct vm vm;
	double t0, dt;
	int rc, err;

	vm_create(&vm, spin_code, sizeof(spin_code));
	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &it, NULL) < 0)
		die("SIGALRM");
	t0 = seconds();
	rc = ioctl(vm.vcpu, KVM_RUN, 0);
	err = errno;
	dt = seconds() - t0;
	check(rc < 0 && err == EINTR && dt < 10,
	      "L2 spinning with IF=0: a signal 0.1 s later ends KVM_RUN (rc %d, %s, after %.3f s)",
	      rc, rc < 0 ? strerror(err) : "no error", dt);
	vm_destroy(&vm);
}

/* A new VM running `code` to its first OUT: its NMI mask, or -1. */
static int fresh_vm_mask(const uint8_t *code, size_t len, const char *who)
{
	struct vm vm;
	int m = -1;

	vm_create(&vm, code, len);
	if (run_to_out(&vm, who))
		m = nmi_masked(&vm);
	vm_destroy(&vm);
	return m;
}

int main(void)
{
	struct vm a;
	int m;

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die("open /dev/kvm");

	check_spin();

	vm_create(&a, plain_code, sizeof(plain_code));
	check(nmi_masked(&a) == 0, "VM A: a new vCPU is not NMI-masked");
	set_nmi_masked(&a, 1);
	if (run_to_out(&a, "VM A")) {
		m = nmi_masked(&a);
		check(m == 1, "VM A: masked, run to an exit: still masked (%d)",
		      m);
	}
	set_nmi_masked(&a, 0);
	if (run_to_out(&a, "VM A")) {
		m = nmi_masked(&a);
		check(m == 0, "VM A: unmasked, run to an exit: unmasked (%d)",
		      m);
	}

	m = fresh_vm_mask(plain_code, sizeof(plain_code), "VM B");
	check(m == 0, "VM B (new, never masked): its first exit reports no "
	      "NMI blocking (%d)", m);
	if (m == 1) {
		/* Tell the L0 CPU from KVM: what ends the leak? */
		int b2 = fresh_vm_mask(plain_code, sizeof(plain_code), "VM B2");
		int c = fresh_vm_mask(iret_code, sizeof(iret_code), "VM C");
		int d = fresh_vm_mask(plain_code, sizeof(plain_code), "VM D");

		printf("     another new VM, same code: %d; a new VM that runs "
		       "one IRET (no NMI): %d; then a new VM: %d\n", b2, c, d);
		printf("     => %s\n", b2 == 1 && c == 0 && d == 0 ?
		       "the blocking lived in the emulated CPU: only an IRET "
		       "inside some guest, which KVM never sees, ended it (an "
		       "L0 bug, not KVM)" :
		       "not the L0 leak's pattern: look at KVM");
	}
	m = fresh_vm_mask(plain_code, sizeof(plain_code), "VM E");
	check(m == 0, "VM E (new, never masked): no NMI blocking (%d)", m);
	vm_destroy(&a);
	printf("l0-check: %s (%d failure%s)\n",
	       failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}
