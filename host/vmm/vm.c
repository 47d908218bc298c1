// SPDX-License-Identifier: MIT
/* VM creation: /dev/kvm, capabilities, memory, in-kernel devices. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm.h"
#include "cmos.h"
#include "debug_exit.h"
#include "guest_mem.h"
#include "irq.h"
#include "linux_load.h"
#include "marker.h"
#include "platform_io.h"
#include "pm1.h"
#include "pm_port.h"
#include "registration.h"
#include "serial.h"

#define RAM_SLOT		0
#define ROM_SLOT		1
/* Where KVM may put the real-mode TSS on Intel; below the firmware ROM. */
#define KVM_TSS_GPA		0xfffbd000u

void vm_load_firmware(const char *path, uint8_t *image)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		vmm_die(EXIT_SETUP_ERROR, "cannot open firmware '%s': %s",
			path, strerror(errno));
	if (fstat(fd, &st) < 0)
		vmm_die(EXIT_SETUP_ERROR, "cannot stat firmware '%s': %s",
			path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		vmm_die(EXIT_SETUP_ERROR, "firmware '%s' is not a regular file",
			path);
	if (st.st_size != PVSMM_FW_ROM_SIZE)
		vmm_die(EXIT_SETUP_ERROR,
			"firmware '%s' is %lld bytes; it must be exactly %u",
			path, (long long)st.st_size, PVSMM_FW_ROM_SIZE);

	size_t done = 0;
	while (done < PVSMM_FW_ROM_SIZE) {
		ssize_t n = read(fd, image + done, PVSMM_FW_ROM_SIZE - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			vmm_die(EXIT_SETUP_ERROR, "cannot read firmware '%s': %s",
				path, n < 0 ? strerror(errno) : "short read");
		done += (size_t)n;
	}
	close(fd);
}

static int check_extension(struct vm *vm, long cap)
{
	int r = ioctl(vm->vm_fd >= 0 ? vm->vm_fd : vm->kvm_fd,
		      KVM_CHECK_EXTENSION, cap);
	return r < 0 ? 0 : r;
}

static void require_cap(struct vm *vm, long cap, const char *name)
{
	if (!check_extension(vm, cap))
		vmm_die(EXIT_SETUP_ERROR, "this KVM lacks %s, which is needed",
			name);
}

#define REQUIRE_CAP(vm, cap) require_cap(vm, cap, #cap)

static void *map_anonymous(uint64_t size, const char *what)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		vmm_die(EXIT_SETUP_ERROR, "cannot map %s (%llu bytes): %s",
			what, (unsigned long long)size, strerror(errno));
	return p;
}

static void set_memslot(struct vm *vm, uint32_t slot, uint32_t flags,
			uint64_t gpa, uint64_t size, void *host)
{
	struct kvm_userspace_memory_region region = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)host,
	};

	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_SET_USER_MEMORY_REGION slot %u: %s",
			slot, strerror(errno));
}

static void serial_set_irq(void *ctx, bool level)
{
	irq_set_line(ctx, SERIAL_IRQ, level);
}

/*
 * The machine's port devices, each claiming its own ports in vm->pio.
 * The PM timer's port first: the port map is searched in this order.
 */
static void create_devices(struct vm *vm)
{
	pm_port_register(vm);
	serial_register(&vm->pio);
	serial_connect_irq(serial_set_irq, vm);
	vm->pm1 = pm1_create(vm);
	cmos_register(&vm->pio);
	debug_exit_register(&vm->pio);
	marker_register(&vm->pio);
	platform_io_register(&vm->pio);
}

static void write_bootinfo(struct vm *vm)
{
	struct pvsmm_bootinfo bi = {
		.magic = PVSMM_BOOTINFO_MAGIC,
		.nr_vcpus = vm->nr_vcpus,
		.ram_size = vm->ram_size,
		.reads_per_vcpu = vm->opts->reads_per_vcpu,
		.check_reads = vm->opts->check_reads,
		.pm_timer_port = vm->opts->pm_port,
		.flags = (uint16_t)(vm->opts->guest_mode <<
				    PVSMM_BOOTINFO_MODE_SHIFT),
	};
	void *dst = guest_ram_ptr(vm, PVSMM_BOOTINFO_GPA, sizeof(bi));

	if (vm->opts->kernel_path)
		linux_load(vm, &bi);

	memcpy(dst, &bi, sizeof(bi));
}

static const char *mode_option(enum pmtimer_mode mode)
{
	return mode == PMTIMER_KERNEL_EMU ? "kernel-emu" : "reflect";
}

static void enable_kernel_cap(struct vm *vm, uint32_t cap, const char *name,
			      const uint64_t args[4])
{
	struct kvm_enable_cap ec = { .cap = cap };

	memcpy(ec.args, args, sizeof(ec.args));
	if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &ec) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_ENABLE_CAP %s failed: %s",
			name, strerror(errno));
}

static void setup_pmtimer_mode(struct vm *vm)
{
	const struct vmm_options *o = vm->opts;

	switch (o->mode) {
	case PMTIMER_USER:
		break;
	case PMTIMER_REFLECT_USER:
		registration_setup_user(vm);
		break;
	case PMTIMER_KERNEL_EMU:
		if (!check_extension(vm, KVM_CAP_PVSMM_PMTIMER))
			vmm_die(EXIT_SETUP_ERROR,
				"--pmtimer=%s needs KVM_CAP_PVSMM_PMTIMER; this KVM lacks it (load the patched kvm modules)",
				mode_option(o->mode));
		enable_kernel_cap(vm, KVM_CAP_PVSMM_PMTIMER,
				  "KVM_CAP_PVSMM_PMTIMER",
				  (uint64_t[4]){ o->pm_port, 0, 0, 0 });
		break;
	case PMTIMER_REFLECT: {
		int version = check_extension(vm, KVM_CAP_PVSMM_REFLECT);

		if (!version)
			vmm_die(EXIT_SETUP_ERROR,
				"--pmtimer=%s needs KVM_CAP_PVSMM_REFLECT; this KVM lacks it (load the patched kvm modules)",
				mode_option(o->mode));
		if (version != PVSMM_ABI_VERSION)
			vmm_die(EXIT_SETUP_ERROR,
				"KVM_CAP_PVSMM_REFLECT reports ABI version %d; this VMM speaks %d",
				version, PVSMM_ABI_VERSION);
		uint64_t flags = o->window ? PVSMM_CAP_WINDOW : 0;
		enable_kernel_cap(vm, KVM_CAP_PVSMM_REFLECT,
				  "KVM_CAP_PVSMM_REFLECT",
				  (uint64_t[4]){ o->pm_port, 1,
						 PVSMM_DEFAULT_RETURN_PORT,
						 flags });
		break;
	}
	}
}

void vm_create(struct vm *vm, const struct vmm_options *opts,
	       const uint8_t *firmware)
{
	memset(vm, 0, sizeof(*vm));
	vm->opts = opts;
	vm->vm_fd = -1;
	vm->nr_vcpus = opts->nr_vcpus;
	vm->ram_size = opts->mem_mib << 20;
	atomic_init(&vm->stopping, false);
	atomic_init(&vm->dump_on_stop, false);
	atomic_init(&vm->exit_code, -1);
	pthread_mutex_init(&vm->reg.lock, NULL);

	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		vmm_die(EXIT_SETUP_ERROR,
			"cannot open /dev/kvm: %s (is KVM available and the kvm module loaded?)",
			strerror(errno));
	int api = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);
	if (api < 0)
		vmm_die(EXIT_SETUP_ERROR, "/dev/kvm is not a KVM device: %s",
			strerror(errno));
	if (api != KVM_API_VERSION)
		vmm_die(EXIT_SETUP_ERROR, "KVM API version %d, expected %d",
			api, KVM_API_VERSION);

	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_CREATE_VM: %s", strerror(errno));

	REQUIRE_CAP(vm, KVM_CAP_USER_MEMORY);
	REQUIRE_CAP(vm, KVM_CAP_READONLY_MEM);
	REQUIRE_CAP(vm, KVM_CAP_IRQCHIP);
	REQUIRE_CAP(vm, KVM_CAP_PIT2);
	REQUIRE_CAP(vm, KVM_CAP_EXT_CPUID);
	REQUIRE_CAP(vm, KVM_CAP_MP_STATE);
	REQUIRE_CAP(vm, KVM_CAP_ADJUST_CLOCK);	/* KVM_GET_CLOCK */
	REQUIRE_CAP(vm, KVM_CAP_IMMEDIATE_EXIT);
	vm->has_stats_fd = check_extension(vm, KVM_CAP_BINARY_STATS_FD) > 0;

	int max_vcpus = check_extension(vm, KVM_CAP_MAX_VCPUS);
	if (max_vcpus > 0 && (unsigned int)max_vcpus < opts->nr_vcpus)
		vmm_die(EXIT_SETUP_ERROR, "this KVM allows only %d vCPUs",
			max_vcpus);

	vm->vcpu_mmap_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vm->vcpu_mmap_size < (int)sizeof(struct kvm_run))
		vmm_die(EXIT_SETUP_ERROR, "KVM_GET_VCPU_MMAP_SIZE: %s",
			strerror(errno));

	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, (unsigned long)KVM_TSS_GPA) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_SET_TSS_ADDR: %s",
			strerror(errno));
	if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_CREATE_IRQCHIP: %s",
			strerror(errno));
	/*
	 * SPEAKER_DUMMY: KVM then also serves port 0x61 (speaker gate, PIT
	 * channel 2 output), which kernels poll to calibrate the TSC and to
	 * check the PM timer's rate against the PIT.
	 */
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };
	if (ioctl(vm->vm_fd, KVM_CREATE_PIT2, &pit) < 0)
		vmm_die(EXIT_SETUP_ERROR, "KVM_CREATE_PIT2: %s",
			strerror(errno));

	vm->ram = map_anonymous(vm->ram_size, "guest RAM");
	/*
	 * Huge pages where the host allows them: a booting kernel touches
	 * tens of MiB, and every first touch of a 4 KiB page is a nested
	 * page fault (costly when KVM itself runs nested, as in the lab).
	 * Only advice: failure changes nothing but speed.
	 */
	madvise(vm->ram, vm->ram_size, MADV_HUGEPAGE);
	set_memslot(vm, RAM_SLOT, 0, 0, vm->ram_size, vm->ram);

	vm->rom = map_anonymous(PVSMM_FW_ROM_SIZE, "firmware ROM");
	memcpy(vm->rom, firmware, PVSMM_FW_ROM_SIZE);
	set_memslot(vm, ROM_SLOT, KVM_MEM_READONLY, PVSMM_FW_ROM_GPA,
		    PVSMM_FW_ROM_SIZE, vm->rom);

	irq_setup_routing(vm);
	create_devices(vm);

	write_bootinfo(vm);
	setup_pmtimer_mode(vm);
}

