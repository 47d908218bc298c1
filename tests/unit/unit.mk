# SPDX-License-Identifier: MIT
#
# The unit tests (tests/unit), included by the top-level Makefile:
#
#   make unit    builds build/tests/unit-tests and runs every suite through
#                tests/unit/run.sh; closes with "N passed, M failed"
#
# The binary links the VMM's pure pieces (no /dev/kvm) and the firmware's
# own tick math (build/firmware/pm_math.o), so that both are checked
# against one reference.

UNIT_BUILD   := $(BUILD)/tests
UNIT_CFLAGS  := $(CFLAGS) -D_GNU_SOURCE -iquote host/vmm \
		-iquote host/vmm/devices -iquote tests/unit \
		-iquote $(BUILD)/host/vmm	# dsdt.hex, from dsdt.asl
UNIT_SRCS    := $(filter-out tests/unit/test_shim.c tests/unit/fake_kvm.c \
			      tests/unit/acpi_dump.c tests/unit/region-check.c \
			      tests/unit/test_vcpu_dump.c,\
			    $(wildcard tests/unit/*.c)) \
		$(addprefix host/vmm/,pm_ticks.c descriptor.c insn.c e820.c \
				      acpi.c linux_boot.c pio_table.c io.c \
				      stats.c fallback.c kvm_stats.c util.c json.c \
				      devices/serial.c)
UNIT_HDRS    := $(wildcard tests/unit/*.h host/vmm/*.h host/vmm/devices/*.h \
			  include/pvsmm/*.h)

# The shim's tests: its ioctl() wrapper and pieces against a fake KVM
# (tests/unit/fake_kvm.c stands in for host/qemu-shim/real_libc.c).
SHIM_TEST_SRCS := tests/unit/test_shim.c tests/unit/fake_kvm.c \
		  $(addprefix host/qemu-shim/,pvsmm-preload.c config.c \
			cpuid_leaf.c epoch.c log.c pm_serve.c registry.c \
			rate_limit.c report.c s3_resume.c vcpu_load.c \
			user_copy.c) \
		  host/vmm/kvm_stats.c host/vmm/pm_ticks.c
SHIM_TEST_CFLAGS := $(CFLAGS) -D_GNU_SOURCE -iquote host/qemu-shim \
		    -iquote host/vmm -iquote tests/unit

.PHONY: unit

$(UNIT_BUILD)/unit-tests: $(UNIT_SRCS) $(UNIT_HDRS) firmware host
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRCS) $(BUILD)/firmware/pm_math.o -pthread

$(UNIT_BUILD)/shim-tests: $(SHIM_TEST_SRCS) $(wildcard host/qemu-shim/*.h) \
			  tests/unit/fake_kvm.h tests/unit/test.h
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(SHIM_TEST_CFLAGS) -o $@ $(SHIM_TEST_SRCS) -pthread

# The vCPU dump (vcpu_dump.c) against a hostile guest: its own binary,
# since the test defines ioctl() (a fake KVM for the vCPU).
DUMP_TEST_SRCS := tests/unit/test_vcpu_dump.c \
		  $(addprefix host/vmm/,vcpu_dump.c guest_mem.c util.c)

$(UNIT_BUILD)/dump-tests: $(DUMP_TEST_SRCS) $(UNIT_HDRS)
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) -o $@ $(DUMP_TEST_SRCS)

# The ACPI tables as files, for `iasl -d` (tests/unit/acpi-check.sh).
$(UNIT_BUILD)/acpi-dump: tests/unit/acpi_dump.c host/vmm/acpi.c host/vmm/acpi.h host
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) -o $@ tests/unit/acpi_dump.c host/vmm/acpi.c

# A firmware's private region in a RAM dump, by the VMM's rules
# (firmware/region-check.sh).
$(UNIT_BUILD)/region-check: tests/unit/region-check.c host/vmm/descriptor.c \
			    host/vmm/descriptor.h include/pvsmm/abi.h
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) -o $@ tests/unit/region-check.c host/vmm/descriptor.c

# The handler's 32-bit time math (firmware/pm_math.asm as elf32) against
# the 128-bit definition: time32-ref holds tests/unit/time32/ref64.h to
# it, the -m32 time32 holds the firmware's instructions to ref64.h (run.sh
# runs it under qemu-i386 where the kernel runs no 32-bit code).
TIME32_HDRS := $(wildcard tests/unit/time32/*.h) tests/unit/test.h \
	       tests/unit/ref128.h tests/unit/time_vectors.h include/pvsmm/abi.h

$(UNIT_BUILD)/time32-ref: tests/unit/time32/ref-check.c $(TIME32_HDRS)
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(CFLAGS) -o $@ $<

$(UNIT_BUILD)/time32: tests/unit/time32/time32.c $(TIME32_HDRS) firmware | deps-unit
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(CFLAGS) -m32 -o $@ $< $(BUILD)/firmware/pm_math32.o

# The C tick math as a library, for the Python one's test (ctypes).
$(UNIT_BUILD)/libpmticks.so: host/vmm/pm_ticks.c host/vmm/pm_ticks.h
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<

deps-unit:
	@tools/install-deps.sh unit

unit: $(UNIT_BUILD)/libpmticks.so $(UNIT_BUILD)/acpi-dump $(UNIT_BUILD)/unit-tests $(UNIT_BUILD)/shim-tests $(UNIT_BUILD)/dump-tests $(UNIT_BUILD)/time32-ref $(UNIT_BUILD)/time32 host shim | deps-unit
	tests/unit/run.sh $(BUILD)
