# SPDX-License-Identifier: MIT
#
# pvsmm: paravirtual SMM-style reflection of PM timer reads for KVM.
#
#   make            firmware image and VMM (build/)
#   make demo       the exit/cost comparison in the nested KVM lab
#   make check      every test: unit, ABI mirror, command line, lab
#   make guest-demo Linux guests on acpi_pm: pvsmm modes vs stock QEMU
#   make stress     the long variants of the KVM robustness tests
#   make deps       the Debian packages everything needs (run as root)
#   make install    for KVM users: the patched KVM through DKMS, the
#                   option ROM and the QEMU shim (see the README)
#
# Everything is built under build/; nothing downloaded or built is tracked.

SHELL   := /bin/bash
BUILD   := build
CC      ?= cc
CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -Iinclude

.PHONY: all deps firmware host abi-inc abi-check unit unit32 firmware-check lab-check lab-check-patched guest-images guest-check guest-demo check stress demo clean

all: firmware host optionrom uefi shim

deps:
	@tools/install-deps.sh

firmware: | deps
	$(MAKE) -C firmware

host: | deps
	$(MAKE) -C host

# The NASM mirror of the C ABI headers is generated, committed (so the
# firmware reads like firmware) and checked by `make check`.
$(BUILD)/gen-abi-inc: tools/gen-abi-inc.c include/pvsmm/abi.h include/pvsmm/layout.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

abi-inc: $(BUILD)/gen-abi-inc
	$< >include/pvsmm/abi.inc

abi-check: $(BUILD)/gen-abi-inc
	@$< | diff -u include/pvsmm/abi.inc - || \
		{ echo "include/pvsmm/abi.inc is stale: run 'make abi-inc'" >&2; exit 1; }
	@echo "abi: include/pvsmm/abi.inc matches the C headers"

UNIT_SRCS := $(wildcard tests/unit/*.c) host/pm_ticks.c

$(BUILD)/unit-tests: $(UNIT_SRCS) tests/unit/test.h firmware | deps
	$(CC) $(CFLAGS) -o $@ $(UNIT_SRCS) $(BUILD)/firmware/pm_math.o

# The handler's 32-bit time math (firmware/pm_math.asm, elf32) against
# the 128-bit definition: ref-check holds tests/unit32/ref64.h to it, and
# the -m32 test holds the firmware's instructions to ref64.h.  qemu-i386
# runs the 32-bit test where the kernel cannot (no IA32 emulation).
UNIT32_HDRS := tests/unit32/ref64.h tests/unit32/vectors.h tests/unit/test.h

$(BUILD)/unit32-ref: tests/unit32/ref-check.c $(UNIT32_HDRS) include/pvsmm/abi.h
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/unit32-time: tests/unit32/time32.c $(UNIT32_HDRS) firmware | deps
	$(CC) $(CFLAGS) -m32 -o $@ $< $(BUILD)/firmware/pm_math32.o

unit32: $(BUILD)/unit32-ref $(BUILD)/unit32-time
	$(BUILD)/unit32-ref
	@if $(BUILD)/unit32-time 2>/dev/null; then :; \
	else echo "(32-bit binaries do not run here: qemu-i386)"; \
		qemu-i386 $(BUILD)/unit32-time; fi

unit: $(BUILD)/unit-tests host unit32
	$(BUILD)/unit-tests
	$(MAKE) -C host check

# The firmware under plain QEMU/TCG: boot, long mode, the handler's
# contract checked locally, 1 and 4 vCPUs, every guest mode; then the
# private regions of the self-test image and the option ROM, dumped from
# QEMU, validated by the VMM's rules (W^X and the page walk).
firmware-check: firmware host
	firmware/qemu-smoke.sh
	firmware/region-check.sh

lab-check: all
	tests/lab/check.py --modules stock

# The patched KVM (host/kvm): its series must stay checkpatch-clean, its
# API test and the self-test in every in-kernel mode must pass.
include host/kvm/kvm.mk

lab-check-patched: all kvm-modules
	tests/lab/check.py --modules patched

# Real Linux guests (tests/guest): Debian's kernel booted with
# clocksource=acpi_pm under pvsmm-vmm in every PM timer mode and under
# Debian's stock QEMU, 1 and 4 vCPUs, in one lab boot.  The images are
# built from Debian packages into build/guest.
guest-images: | deps
	tests/guest/build-guests.sh

# GUEST_ARGS: more options, e.g. GUEST_ARGS=--guests=amd64
guest-check: all kvm-modules guest-images
	tests/guest/check.py --modules patched $(GUEST_ARGS)

guest-demo: all kvm-modules guest-images optionrom shim
	tools/guest_compare.py --modules patched $(GUEST_ARGS)

# pvsmm with stock QEMU (option ROM, shim) and installing it (DKMS).
include tests/qemu/qemu.mk
include host/kvm/dkms/dkms.mk

check: abi-check unit firmware-check kvm-checkpatch kvm-fuzz lab-check kvm-lab-check kvm-robust \
	lab-check-patched guest-check qemu-check dkms-check

stress: kvm-stress

demo: all kvm-modules
	tools/compare.py

clean:
	rm -rf $(BUILD)
