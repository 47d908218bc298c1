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
 * II. A virtual interrupt pending for an L2 that runs with IF=0 must wait
 *    for IF=1, whatever arrives for L1 meanwhile.  L2 (real mode, IF=0,
 *    "jmp $") gets an MSI to its in-kernel local APIC before KVM_RUN;
 *    with APICv, KVM leaves it to the CPU's virtual-interrupt delivery
 *    (RVI), without it KVM asks for an interrupt window.  A SIGALRM 0.1 s
 *    later must end KVM_RUN with EINTR, the vector still in L2's IRR and
 *    not in its ISR; if L2's handler runs instead (its OUT exits), L0
 *    delivered a masked interrupt.  Bochs 3.0 fails with APICv: an
 *    external interrupt for L1 delivered L2's pending virtual interrupt
 *    whatever L2's IF (tests/lab/bochs/0003-*).  (Setting IF=1 afterwards
 *    to see the handler run works on kvm-amd under QEMU, but under Bochs
 *    the real-mode L2 then went astray: the vector in its ISR, its RIP
 *    back at the "jmp $" after running zeroed memory.  Not followed up:
 *    the lab's guests take their interrupts in protected and long mode.)
 *
 * III. Does "blocking by NMI" stay with the vCPU it was set on?
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
#define VECTOR		0x40		/* part II's interrupt */
#define HANDLER		(CODE + 0x100)	/* its real-mode handler */
#define HANDLER_PORT	0x11
#define APIC_SPIV	0xf0		/* spurious-interrupt vector register */
#define APIC_SW_ENABLE	0x100
#define APIC_ISR	0x100		/* in-service register, 8 x 32 bits */
#define APIC_IRR	0x200		/* interrupt request register */

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

/* jmp $, with IF as KVM_SET_REGS left it (0). */
static const uint8_t wait_code[] = { 0xeb, 0xfe };

/* Part II's interrupt handler: out HANDLER_PORT, al; jmp $-2. */
static const uint8_t handler_code[] = { 0xe6, HANDLER_PORT, 0xeb, 0xfc };

/* irqchip: an in-kernel local APIC (and so APICv, where L1 has it). */
static void vm_create_with(struct vm *vm, const uint8_t *code, size_t len,
			   bool irqchip)
{
	struct kvm_userspace_memory_region r = { 0 };
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	int size;

	vm->fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		die("KVM_CREATE_VM");
	if (irqchip && ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0) < 0)
		die("KVM_CREATE_IRQCHIP");
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

static void vm_create(struct vm *vm, const uint8_t *code, size_t len)
{
	vm_create_with(vm, code, len, false);
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

/* Whether L1's KVM uses APICv (kvm-intel) or AVIC (kvm-amd): Y, N or ?. */
static char apicv_param(void)
{
	static const char *const params[] = {
		"/sys/module/kvm_intel/parameters/enable_apicv",
		"/sys/module/kvm_amd/parameters/avic",
	};
	int c = EOF;

	for (unsigned int i = 0; i < 2 && c == EOF; i++) {
		FILE *f = fopen(params[i], "r");

		if (f) {
			c = fgetc(f);
			fclose(f);
		}
	}
	return c == EOF ? '?' : (char)c;
}

/* A vector's bit in the local APIC's ISR or IRR (eight 32-bit registers). */
static bool apic_vector_bit(const struct kvm_lapic_state *lapic,
			    unsigned int reg, unsigned int vector)
{
	uint32_t word;

	memcpy(&word, lapic->regs + reg + (vector / 32) * 0x10, sizeof(word));
	return word & (1u << (vector % 32));
}

/* II: a pending interrupt waits while L2 runs with IF=0. */
static void check_masked_interrupt(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 100000 } };
	struct kvm_msi msi = { .address_lo = 0xfee00000, .data = VECTOR };
	struct kvm_lapic_state lapic;
	uint16_t ivt[2] = { HANDLER, 0 };	/* offset, segment */
	uint32_t spiv;
	struct vm vm;
	int rc, err;

	vm_create_with(&vm, wait_code, sizeof(wait_code), true);
	memcpy(vm.ram + HANDLER, handler_code, sizeof(handler_code));
	memcpy(vm.ram + VECTOR * 4, ivt, sizeof(ivt));
	/* A local APIC comes out of reset software-disabled: it would not
	 * accept the MSI. */
	if (ioctl(vm.vcpu, KVM_GET_LAPIC, &lapic) < 0)
		die("KVM_GET_LAPIC");
	memcpy(&spiv, lapic.regs + APIC_SPIV, sizeof(spiv));
	spiv |= APIC_SW_ENABLE;
	memcpy(lapic.regs + APIC_SPIV, &spiv, sizeof(spiv));
	if (ioctl(vm.vcpu, KVM_SET_LAPIC, &lapic) < 0)
		die("KVM_SET_LAPIC");
	rc = ioctl(vm.fd, KVM_SIGNAL_MSI, &msi);
	check(rc == 1, "II: the MSI reached L2's local APIC (%d)", rc);

	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &it, NULL) < 0)
		die("SIGALRM");
	rc = ioctl(vm.vcpu, KVM_RUN, 0);
	err = errno;
	check(rc < 0 && err == EINTR,
	      "II: L2 with IF=0 and vector 0x%x pending (APICv/AVIC %c): a "
	      "signal ends KVM_RUN, the handler does not run (rc %d, %s, exit "
	      "reason %u, port 0x%x)", VECTOR, apicv_param(), rc,
	      rc < 0 ? strerror(err) : "no error", vm.run->exit_reason,
	      vm.run->io.port);

	/* Still pending, and not taken: in the IRR, not the ISR. */
	if (ioctl(vm.vcpu, KVM_GET_LAPIC, &lapic) < 0)
		die("KVM_GET_LAPIC");
	check(apic_vector_bit(&lapic, APIC_IRR, VECTOR) &&
	      !apic_vector_bit(&lapic, APIC_ISR, VECTOR),
	      "II: vector 0x%x still pending in L2's local APIC (IRR %d, ISR %d)",
	      VECTOR, apic_vector_bit(&lapic, APIC_IRR, VECTOR),
	      apic_vector_bit(&lapic, APIC_ISR, VECTOR));
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
	check_masked_interrupt();

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
