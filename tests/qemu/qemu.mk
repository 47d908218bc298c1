# SPDX-License-Identifier: MIT
# pvsmm for KVM users (included by the top-level Makefile):
#
#   make optionrom    build/firmware/pvsmm.rom (legacy BIOS guests)
#   make shim         build/host/libpvsmm-preload.so (stock QEMU)
#   make qemu-check   stock Debian QEMU in the nested lab: tests/qemu/check.py

.PHONY: optionrom shim qemu-check

optionrom: | deps
	$(MAKE) -C firmware/optionrom

shim: | deps
	$(MAKE) -C host/qemu-shim

qemu-check: optionrom shim kvm-modules
	tests/qemu/check.py
