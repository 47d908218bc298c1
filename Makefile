# SPDX-License-Identifier: MIT
#
# pvsmm: paravirtual SMM-style reflection of PM timer reads for KVM.
#
#   make            firmware image and VMM (build/)
#   make demo       the exit/cost comparison in the nested KVM lab
#   make check      the tests that fit an hour on two cores: unit, ABI
#                   mirror, firmware, the lab (kvm-amd under QEMU, and a
#                   subset on kvm-intel under Bochs: tests/lab/intel.mk),
#                   real guests, stock QEMU with the ROM and the shim
#   make check-full make check, plus the QEMU builds and their modes
#                   (qemu-check), the Intel lab's full suites and the
#                   real guests under icount (guest-check-icount)
#   make guest-demo Linux guests on acpi_pm: pvsmm modes vs stock QEMU
#   make stress     the long variants of the KVM fuzzer and selftests
#   make deps       the Debian packages everything needs (run as root);
#                   deps-build: only what the build needs (a C compiler,
#                   nasm, iasl, python3), deps-lab: the nested lab's too
#   make install    for KVM users: the patched KVM through DKMS, the
#                   option ROM and the QEMU shim (see the README)
#
# Everything is built under build/; nothing downloaded or built is tracked.

SHELL   := /bin/bash
BUILD   := build
CC      ?= cc
CFLAGS  := -std=c11 -Wall -Wextra -Werror -O2 -Iinclude

.PHONY: all deps deps-build deps-unit deps-lab firmware host abi-inc abi-check unit firmware-check lab-check lab-check-patched guest-images guest-check guest-check-icount guest-demo libvirt-check check check-full stress demo clean

all: firmware host optionrom uefi shim

# Each target installs only the package set it needs (tools/install-deps.sh):
# building needs no lab.
deps:
	@tools/install-deps.sh all

deps-build:
	@tools/install-deps.sh build

deps-lab:
	@tools/install-deps.sh lab

firmware: | deps-build
	$(MAKE) -C firmware

host: | deps-build
	$(MAKE) -C host/vmm

# The NASM mirror of the C ABI headers is generated, committed (so the
# firmware reads like firmware) and checked by `make check`.
$(BUILD)/gen-abi-inc: tools/gen-abi-inc.c include/pvsmm/abi.h include/pvsmm/layout.h | deps-build
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

abi-inc: $(BUILD)/gen-abi-inc
	$< >include/pvsmm/abi.inc

abi-check: $(BUILD)/gen-abi-inc
	@$< | diff -u include/pvsmm/abi.inc - || \
		{ echo "include/pvsmm/abi.inc is stale: run 'make abi-inc'" >&2; exit 1; }
	@echo "abi: include/pvsmm/abi.inc matches the C headers"

include tests/unit/unit.mk

# The firmware under plain QEMU/TCG: boot, long mode, the handler's
# contract checked locally, 1 and 4 vCPUs, every guest mode; then the
# private regions of the self-test image, the option ROM and the UEFI
# driver, dumped from QEMU, validated by the VMM's rules (W^X and the page
# walk: firmware/region-check.sh).
firmware-check: firmware host | deps-lab
	firmware/qemu-smoke.sh
	firmware/region-check.sh

lab-check: all lab-tools | deps-lab
	tests/lab/check.py --modules stock

# The patched KVM (host/kvm): its series must stay checkpatch-clean, its
# API test and the self-test in every in-kernel mode must pass.
include host/kvm/kvm.mk

lab-check-patched: all kvm-modules lab-tools | deps-lab
	tests/lab/check.py --modules patched

# Real Linux guests (tests/guest): Debian's kernel booted with
# clocksource=acpi_pm under pvsmm-vmm in every PM timer mode and under
# Debian's stock QEMU, 1 and 4 vCPUs, in one lab boot.  The images are
# built from Debian packages into build/guest.
guest-images: | deps-lab
	tests/guest/build-guests.sh

# GUEST_ARGS: more options, e.g. GUEST_ARGS=--guests=amd64
guest-check: all kvm-modules guest-images | deps-lab
	tests/guest/check.py --modules patched $(GUEST_ARGS)

# The same for all three guests under icount, on the lab's own QEMU: every
# run deterministic, the multi-vCPU ones included, which Debian's QEMU
# can deadlock under icount (tests/lab/qemu/0004-*; not in every boot, so
# a pass on Debian's QEMU proves nothing).  Part of check-full.
guest-check-icount: all kvm-modules guest-images qemu-lab | deps-lab
	tests/guest/check.py --modules patched --icount --guests amd64,i386,i686 $(GUEST_ARGS)

# qemu-lab: the i386 guest's rows under stock QEMU and on nested paging
# need the lab's own QEMU as L0 (tests/guest/README.md).
guest-demo: all kvm-modules qemu-lab | deps-lab guest-images optionrom shim
	tools/guest_compare.py --modules patched $(GUEST_ARGS)

# pvsmm with stock QEMU (option ROM, shim) and installing it (DKMS).
include tests/qemu/qemu.mk
include host/kvm/dkms/dkms.mk
# The libvirt domain of host/libvirt/, with libvirt's own tools (no KVM).
libvirt-check:
	@tools/install-deps.sh libvirt
	tests/libvirt/check.sh

# The Intel lab: kvm-intel under Bochs (intel-check, check-intel-full).
include tests/lab/intel.mk

check: abi-check unit firmware-check kvm-checkpatch kvm-fuzz lab-check kvm-lab-check kvm-selftests \
	lab-check-patched check-6.12 guest-check qemu-check-quick libvirt-check dkms-check \
	intel-check

# What does not fit make check's hour on two cores: the QEMU builds and
# their modes (qemu-check), the Intel lab's full suites, the self-test's
# lab-check on the 6.12 series, the guests under icount.
check-full: check qemu-check check-intel-full lab-check-patched-6.12 guest-check-icount

stress: kvm-stress

demo: all kvm-modules kvm-modules-6.12 qemu-lab | deps-lab
	tools/compare.py --kernel-series 6.1,6.12

clean:
	rm -rf $(BUILD)
