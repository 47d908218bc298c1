/* SPDX-License-Identifier: MIT */
/*
 * pvsmm-vmm: shared types.  One struct vm per process, one struct vcpu per
 * vCPU thread.  Everything a vCPU thread writes lives in its own struct
 * vcpu, so the hot path takes no locks; the report reads it after join.
 */
#ifndef PVSMM_VMM_H
#define PVSMM_VMM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kvm.h>

#include "pvsmm/abi.h"
#include "pvsmm/layout.h"
#include "kvm_stats.h"
#include "pio_table.h"
#include "util.h"

#define VMM_MAX_VCPUS		16
#define VMM_MAX_MEM_MIB		3072	/* stays below the 32-bit hole */
#define VMM_MIN_MEM_MIB		2

enum pmtimer_mode {
	PMTIMER_USER,		/* every read exits to our userspace device */
	PMTIMER_REFLECT_USER,	/* this VMM reflects reads into the guest */
	PMTIMER_KERNEL_EMU,	/* patched KVM serves reads in the kernel */
	PMTIMER_REFLECT,	/* patched KVM reflects reads */
};

/*
 * Why a PM timer read was not reflected (reflect-user; abi.h lists the
 * host's reasons, KVM counts them as pvsmm_fallback_*).  Names in
 * reflect_user.c.
 */
enum reflect_fallback {
	FALLBACK_REAL_MODE,
	FALLBACK_VM86,
	FALLBACK_CPL,		/* CPL > 0 */
	FALLBACK_PAGING_OFF,
	FALLBACK_16BIT,		/* 16-bit code segment */
	FALLBACK_COMPAT,	/* compatibility mode */
	FALLBACK_NO_ENTRY,	/* no descriptor entry for this paging mode */
	FALLBACK_NO_NXE,	/* long mode without EFER.NXE */
	FALLBACK_SMM,
	FALLBACK_NMI_BLOCKED,
	FALLBACK_EVENT_PENDING,	/* an exception or interrupt being injected */
	FALLBACK_IN_FLIGHT,	/* a reflection already runs on this vCPU */
	FALLBACK_SINGLE_STEP,
	FALLBACK_NO_AREA,	/* vCPU index >= nr_vcpus */
	FALLBACK_KVMCLOCK,	/* none, or not stable (no masterclock) */
	FALLBACK_MEMORY,	/* save area or code not in usable memory */
	FALLBACK_DECODE,	/* no IN of this port and size at RIP */
	FALLBACK_VCPU_STATE,	/* KVM_GET_* failed */
	FALLBACK_NR
};

struct vmm_options {
	const char *firmware_path;
	unsigned int nr_vcpus;
	uint64_t mem_mib;
	enum pmtimer_mode mode;
	uint16_t pm_port;
	uint64_t reads_per_vcpu;
	uint64_t check_reads;
	bool window;			/* --window: the IRETQ path when it may */
	unsigned int guest_mode;	/* --guest-mode: PVSMM_MODE_* */
	uint64_t fault_test;		/* --fault-test: this reflection on
					   vCPU 0 single-steps (0: none) */
	const char *stats_path;
	const char *kernel_path;	/* --kernel: boot Linux, no self-test */
	const char *initrd_path;
	const char *cmdline;
};

/* Exit counters kept per vCPU by the VMM itself. */
#define EXIT_REASON_SLOTS	64	/* KVM_EXIT_* numbers below this */
#define MAX_TRACKED_PORTS	64	/* a booting kernel touches many */

struct port_count {
	uint16_t port;
	uint64_t count;
};

struct exit_counters {
	uint64_t userspace_exits;
	uint64_t by_reason[EXIT_REASON_SLOTS];
	struct port_count ports[MAX_TRACKED_PORTS];
	unsigned int nr_ports;
	uint64_t other_ports;		/* I/O exits beyond the tracked ports */
	uint64_t reflections;
	uint64_t iret_returns;		/* window path (counted at entry) */
	uint64_t exit_returns;		/* private path, returned by the OUT */
	uint64_t fallbacks;
	uint64_t fallback_by_reason[FALLBACK_NR];
	uint64_t handler_failures;	/* fault reports from the stubs */
	uint64_t window_unfinished;	/* reads while a window handler ran */
	uint64_t pm_user_reads;		/* reads served by the userspace device */
	uint64_t unknown_io;
	uint64_t unknown_mmio;
};

/*
 * State kept by the VMM (never in guest memory) while a private-path
 * reflection runs: the restore uses only this.
 */
struct reflection_state {
	bool active;
	struct kvm_regs regs;		/* interrupted state, RIP at the IN */
	struct kvm_sregs2 sregs;	/* with the PAE PDPTRs the CPU holds */
	uint64_t next_rip;		/* RIP after the IN */
	uint8_t size;			/* access size */
	uint8_t mode;			/* PVSMM_MODE_* entered */
	uint64_t generation;		/* of the registration it runs for */
	/* The last window reflection, checked at the next one. */
	uint64_t window_area_gpa;	/* 0: none pending */
	uint64_t window_sequence;
};

/* A point in a vCPU's life: clock plus all counters. */
struct vcpu_snapshot {
	bool taken;
	uint64_t ns;
	struct exit_counters counters;
	uint64_t kvm_stats[KVM_STATS_MAX];
};

struct vm;
struct pm1;

struct vcpu {
	struct vm *vm;
	unsigned int index;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	atomic_bool thread_started;

	struct exit_counters counters;
	struct kvm_stats_reader stats;

	struct vcpu_snapshot bench_begin;
	struct vcpu_snapshot bench_end;
	struct vcpu_snapshot start;
	struct vcpu_snapshot finish;

	struct reflection_state refl;
	uint64_t reflection_seq;	/* reflections on this vCPU so far */
};

/* PML4 entries the window path filled, at most (then: private path). */
#define MAX_WINDOW_CLAIMS	256

/* The VM-wide registration (PVSMM_MSR_REGISTER), owned by registration.c. */
struct registration {
	pthread_mutex_t lock;
	uint64_t msr_value;		/* last value written (read back) */
	bool valid;			/* desc is a validated copy */
	struct pvsmm_descriptor desc;
	uint64_t generation;		/* bumped whenever desc changes */
	uint64_t writes;
	uint64_t rejected;
	uint64_t disabled;		/* turned off after a handler fault */
	/* The private PAE PDPTEs, read once when the descriptor was
	 * validated: what KVM gets at each entry in PAE mode. */
	uint64_t pae_pdptes[4];
	/* The window path's PML4 entries (GPAs), cleared when it ends. */
	unsigned int nr_claims;
	uint64_t claims[MAX_WINDOW_CLAIMS];
	uint64_t claims_cleared;
};

struct vm {
	const struct vmm_options *opts;
	int kvm_fd;
	int vm_fd;
	int vcpu_mmap_size;

	uint8_t *ram;
	uint64_t ram_size;
	uint8_t *rom;

	struct kvm_cpuid2 *supported_cpuid;
	struct vcpu vcpus[VMM_MAX_VCPUS];
	unsigned int nr_vcpus;

	struct registration reg;
	struct pio_table pio;		/* the port map: who owns which port */
	struct pm1 *pm1;		/* PM1 registers, carry interrupt */
	bool has_stats_fd;

	atomic_bool stopping;
	atomic_bool dump_on_stop;	/* a signal stopped us: say where */
	atomic_int exit_code;		/* -1 until someone stops the VM */
	uint64_t start_ns;
	uint64_t end_ns;
};

#endif /* PVSMM_VMM_H */
