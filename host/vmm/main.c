// SPDX-License-Identifier: MIT
/*
 * pvsmm-vmm: a small VMM on /dev/kvm that runs pvsmm's firmware and its
 * PM timer self-test/benchmark in one of four PM timer modes.
 * main.c: command line, then create, run, report.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmm.h"
#include "acpi.h"
#include "linux_load.h"
#include "pm1.h"
#include "stats.h"
#include "vcpu.h"
#include "vm.h"
#include "vm_stop.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: " VMM_NAME " --firmware FILE [options]\n"
"  --firmware FILE     firmware image, exactly %u bytes, mapped read-only\n"
"                      at 0x%x (reset vector at its end)\n"
"  --kernel FILE       boot this Linux bzImage (boot protocol 2.12+) after\n"
"                      the firmware's registration, instead of its\n"
"                      self-test; the kernel gets ACPI tables (PM timer at\n"
"                      --pm-port, PM1 at 0x600, SCI IRQ 9), an e820 map and\n"
"                      COM1 (use console=ttyS0); APs start by INIT/SIPI\n"
"  --initrd FILE       initramfs for --kernel\n"
"  --append CMDLINE    kernel command line for --kernel (default empty)\n"
"  --vcpus N           vCPUs, 1..%u (default 1)\n"
"  --mem MiB           guest RAM from address 0, %u..%u (default 64; a\n"
"                      Debian kernel and initrd want 256)\n"
"  --pmtimer MODE      how PM timer reads are served (default user):\n"
"                        user          exit to this VMM's device\n"
"                        reflect-user  this VMM reflects them into the\n"
"                                      guest's registered handler\n"
"                        kernel-emu    in-kernel device (patched KVM)\n"
"                        reflect       KVM reflects them (patched KVM)\n"
"  --pm-port PORT      PM timer counter port (default 0x%x)\n"
"  --reads N           self-test: bench PM timer reads per vCPU (default\n"
"                      100000)\n"
"  --check-reads N     self-test: reads checked against kvmclock (default\n"
"                      1000)\n"
"  --guest-mode long|pae|32\n"
"                      self-test: the paging mode of its check and bench\n"
"                      phases (default long), so that reflection enters\n"
"                      the handler's 64-bit, PAE or 2-level entry\n"
"  --window            reflect-user and reflect: allow the window path\n"
"                      (IRETQ, no second exit) for 64-bit contexts whose\n"
"                      PML4 slot %u is free; only for guests whose layout\n"
"                      leaves that slot to the hypervisor (x86-64 Linux);\n"
"                      the CPUID leaf then reports PVSMM_FEATURE_WINDOW\n"
"  --return auto|exit  ABI version 1 spelling: auto = --window, exit =\n"
"                      the private path only (the default)\n"
"  --fault-test N      reflect-user, testing: enter the handler for vCPU\n"
"                      0's Nth reflection with RFLAGS.TF set, so that its\n"
"                      first instruction traps (#DB) into the firmware's\n"
"                      exception stub, which reports the fault\n"
"  --stats FILE        also write the PVSMM-STATS JSON to FILE\n"
"  --help              this text\n"
"Exit status: 0 guest passed (self-test) or powered off (ACPI S5),\n"
"1 guest failed, 2 setup error (arguments, firmware, kernel, KVM), 3 VM\n"
"error (triple fault, unexpected exit), 4 guest reset (reboot).\n"
"At exit one line 'PVSMM-STATS {json}' goes to stdout.\n",
		PVSMM_FW_ROM_SIZE, PVSMM_FW_ROM_GPA, VMM_MAX_VCPUS,
		VMM_MIN_MEM_MIB, VMM_MAX_MEM_MIB, PVSMM_PM_TIMER_DEFAULT_PORT,
		PVSMM_WINDOW_SLOT);
}

/* Parses a whole decimal/0x-hex number in [min, max]. */
static uint64_t parse_number(const char *opt, const char *arg, uint64_t min,
			     uint64_t max)
{
	char *end;

	errno = 0;
	if (!arg[0] || arg[0] == '-')
		goto bad;
	unsigned long long v = strtoull(arg, &end, 0);
	if (errno || *end || v < min || v > max)
		goto bad;
	return v;
bad:
	vmm_die(EXIT_SETUP_ERROR, "%s must be a number in %llu..%llu, not '%s'",
		opt, (unsigned long long)min, (unsigned long long)max, arg);
}

static enum pmtimer_mode parse_mode(const char *arg)
{
	static const struct { const char *name; enum pmtimer_mode mode; }
	modes[] = {
		{ "user", PMTIMER_USER },
		{ "reflect-user", PMTIMER_REFLECT_USER },
		{ "kernel-emu", PMTIMER_KERNEL_EMU },
		{ "reflect", PMTIMER_REFLECT },
	};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(arg, modes[i].name))
			return modes[i].mode;
	vmm_die(EXIT_SETUP_ERROR,
		"--pmtimer must be user, reflect-user, kernel-emu or reflect, not '%s'",
		arg);
}

/*
 * The PM timer must not shadow one of the VMM's own ports, nor a device
 * KVM serves in the kernel (those reads would never reach the timer).
 */
static void check_pm_port(uint16_t port)
{
	static const struct { uint16_t first, last; } taken[] = {
		{ 0x20, 0x21 }, { 0xa0, 0xa1 }, { 0x4d0, 0x4d1 },  /* 8259s */
		{ 0x40, 0x43 }, { 0x61, 0x61 },			   /* PIT */
		{ 0x60, 0x60 }, { 0x64, 0x64 }, { 0x70, 0x71 },
		{ 0x80, 0x80 }, { 0x92, 0x92 }, { 0xcf8, 0xcff },
		{ ACPI_PM1_EVT_PORT, ACPI_PM1_EVT_PORT + ACPI_PM1_EVT_LEN - 1 },
		{ ACPI_PM1_CNT_PORT, ACPI_PM1_CNT_PORT + ACPI_PM1_CNT_LEN - 1 },
	};

	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (port >= taken[i].first && port <= taken[i].last)
			vmm_die(EXIT_SETUP_ERROR,
				"--pm-port 0x%x collides with a platform device",
				port);
	if ((port >= PVSMM_SERIAL_PORT && port < PVSMM_SERIAL_PORT + 8) ||
	    port == PVSMM_DEBUG_EXIT_PORT || port == PVSMM_MARKER_PORT ||
	    port == PVSMM_DEFAULT_RETURN_PORT)
		vmm_die(EXIT_SETUP_ERROR,
			"--pm-port 0x%x collides with one of the VMM's own ports",
			port);
}

static void parse_args(int argc, char **argv, struct vmm_options *o)
{
	enum { OPT_FIRMWARE = 1, OPT_VCPUS, OPT_MEM, OPT_PMTIMER, OPT_PM_PORT,
	       OPT_READS, OPT_CHECK_READS, OPT_RETURN, OPT_STATS, OPT_KERNEL,
	       OPT_INITRD, OPT_APPEND, OPT_GUEST_MODE, OPT_WINDOW, OPT_FAULT_TEST,
	       OPT_HELP };
	static const struct option longopts[] = {
		{ "firmware", required_argument, NULL, OPT_FIRMWARE },
		{ "vcpus", required_argument, NULL, OPT_VCPUS },
		{ "mem", required_argument, NULL, OPT_MEM },
		{ "pmtimer", required_argument, NULL, OPT_PMTIMER },
		{ "pm-port", required_argument, NULL, OPT_PM_PORT },
		{ "reads", required_argument, NULL, OPT_READS },
		{ "check-reads", required_argument, NULL, OPT_CHECK_READS },
		{ "return", required_argument, NULL, OPT_RETURN },
		{ "stats", required_argument, NULL, OPT_STATS },
		{ "kernel", required_argument, NULL, OPT_KERNEL },
		{ "initrd", required_argument, NULL, OPT_INITRD },
		{ "append", required_argument, NULL, OPT_APPEND },
		{ "guest-mode", required_argument, NULL, OPT_GUEST_MODE },
		{ "window", no_argument, NULL, OPT_WINDOW },
		{ "fault-test", required_argument, NULL, OPT_FAULT_TEST },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};

	*o = (struct vmm_options){
		.nr_vcpus = 1,
		.mem_mib = 64,
		.mode = PMTIMER_USER,
		.pm_port = PVSMM_PM_TIMER_DEFAULT_PORT,
		.reads_per_vcpu = 100000,
		.check_reads = 1000,
		.guest_mode = PVSMM_MODE_LONG,
	};

	opterr = 0;	/* we print our own one-line errors */
	for (;;) {
		int prev = optind;
		int c = getopt_long(argc, argv, "", longopts, NULL);

		if (c == -1)
			break;
		switch (c) {
		case OPT_FIRMWARE:
			o->firmware_path = optarg;
			break;
		case OPT_VCPUS:
			o->nr_vcpus = (unsigned int)parse_number("--vcpus",
					optarg, 1, VMM_MAX_VCPUS);
			break;
		case OPT_MEM:
			o->mem_mib = parse_number("--mem", optarg,
					VMM_MIN_MEM_MIB, VMM_MAX_MEM_MIB);
			break;
		case OPT_PMTIMER:
			o->mode = parse_mode(optarg);
			break;
		case OPT_PM_PORT:
			o->pm_port = (uint16_t)parse_number("--pm-port", optarg,
							    0, 0xffff);
			break;
		case OPT_READS:
			o->reads_per_vcpu = parse_number("--reads", optarg, 0,
							 UINT64_MAX);
			break;
		case OPT_CHECK_READS:
			o->check_reads = parse_number("--check-reads", optarg,
						      0, UINT64_MAX);
			break;
		case OPT_RETURN:
			if (!strcmp(optarg, "auto"))
				o->window = true;
			else if (!strcmp(optarg, "exit"))
				o->window = false;
			else
				vmm_die(EXIT_SETUP_ERROR,
					"--return must be auto or exit, not '%s'",
					optarg);
			break;
		case OPT_WINDOW:
			o->window = true;
			break;
		case OPT_FAULT_TEST:
			o->fault_test = parse_number("--fault-test", optarg, 1,
						     UINT64_MAX);
			break;
		case OPT_GUEST_MODE:
			if (!strcmp(optarg, "long"))
				o->guest_mode = PVSMM_MODE_LONG;
			else if (!strcmp(optarg, "pae"))
				o->guest_mode = PVSMM_MODE_PAE;
			else if (!strcmp(optarg, "32"))
				o->guest_mode = PVSMM_MODE_32;
			else
				vmm_die(EXIT_SETUP_ERROR,
					"--guest-mode must be long, pae or 32, not '%s'",
					optarg);
			break;
		case OPT_STATS:
			o->stats_path = optarg;
			break;
		case OPT_KERNEL:
			o->kernel_path = optarg;
			break;
		case OPT_INITRD:
			o->initrd_path = optarg;
			break;
		case OPT_APPEND:
			o->cmdline = optarg;
			break;
		case OPT_HELP:
			usage(stdout);
			exit(0);
		default: {
			const char *word = argv[optind > prev ? optind - 1 : prev];

			if (optopt >= OPT_FIRMWARE && optopt <= OPT_HELP)
				vmm_die(EXIT_SETUP_ERROR,
					strchr(word, '=') ?
					"option '%s' takes no value (see --help)" :
					"option '%s' needs a value (see --help)",
					word);
			vmm_die(EXIT_SETUP_ERROR,
				"unknown option '%s' (see --help)", word);
		}
		}
	}
	if (optind < argc)
		vmm_die(EXIT_SETUP_ERROR, "unexpected argument '%s' (see --help)",
			argv[optind]);
	if (!o->firmware_path)
		vmm_die(EXIT_SETUP_ERROR, "--firmware FILE is required (see --help)");
	if (o->kernel_path && o->guest_mode != PVSMM_MODE_LONG)
		vmm_die(EXIT_SETUP_ERROR,
			"--guest-mode is for the self-test; a kernel picks its own mode");
	if (!o->kernel_path && (o->initrd_path || o->cmdline))
		vmm_die(EXIT_SETUP_ERROR, "%s needs --kernel (see --help)",
			o->initrd_path ? "--initrd" : "--append");
	check_pm_port(o->pm_port);
}

/*
 * SIGINT/SIGTERM stop the VM like a failure, so that an interrupted run
 * still prints its report.  The signals are blocked in every thread and
 * taken here with sigwait, where any call is safe.
 */
static void *signal_thread(void *arg)
{
	struct vm *vm = arg;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	while (sigwait(&set, &sig) == 0) {
		vmm_warn("%s: stopping the VM", strsignal(sig));
		/* A run that had to be stopped probably hung: show where. */
		atomic_store(&vm->dump_on_stop, true);
		vm_request_stop(vm, EXIT_RUNTIME_ERROR);
	}
	return NULL;
}

static void start_signal_thread(struct vm *vm)
{
	sigset_t set;
	pthread_t thread;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* Before any other thread exists, so they all inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	int err = pthread_create(&thread, NULL, signal_thread, vm);
	if (err)
		vmm_die(EXIT_SETUP_ERROR, "pthread_create: %s", strerror(err));
	pthread_detach(thread);
}

int main(int argc, char **argv)
{
	static struct vm vm;
	static uint8_t firmware[PVSMM_FW_ROM_SIZE];
	struct vmm_options opts;
	FILE *stats_file = NULL;

	parse_args(argc, argv, &opts);
	vm_load_firmware(opts.firmware_path, firmware);
	if (opts.kernel_path)
		linux_check_files(&opts);
	if (opts.stats_path) {
		stats_file = fopen(opts.stats_path, "w");
		if (!stats_file)
			vmm_die(EXIT_SETUP_ERROR, "cannot write --stats '%s': %s",
				opts.stats_path, strerror(errno));
	}

	vm_create(&vm, &opts, firmware);
	start_signal_thread(&vm);
	vcpus_create(&vm);
	pm1_start(vm.pm1);	/* after the signal mask: it inherits it */
	vcpus_start(&vm);
	vcpus_join(&vm);
	pm1_stop(vm.pm1);

	int status = atomic_load(&vm.exit_code);
	if (status < 0)
		status = EXIT_RUNTIME_ERROR;	/* all threads ended, no verdict */
	stats_report(&vm, status, stats_file);
	if (stats_file && fclose(stats_file) != 0)
		vmm_warn("cannot close --stats '%s'", opts.stats_path);
	return status;
}
