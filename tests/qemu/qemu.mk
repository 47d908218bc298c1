# SPDX-License-Identifier: MIT
# pvsmm for KVM users (included by the top-level Makefile):
#
#   make optionrom    build/firmware/pvsmm.rom (legacy BIOS guests)
#   make uefi         build/firmware/pvsmm.efi (UEFI guests, gnu-efi)
#   make shim         build/host/libpvsmm-preload.so (stock QEMU)
#   make qemu-pvsmm   build/qemu-pvsmm/qemu-system-x86_64: Debian 13's QEMU
#                     10.0 with host/qemu/*.patch (-accel kvm,pvsmm=on), a
#                     full x86_64 emulator (TCG and KVM), and its qtest
#   make qemu-lab     build/qemu-lab/qemu-system-x86_64: Debian 12's QEMU
#                     7.2 with tests/lab/qemu/*.patch, the L0 of the OVMF runs
#   make qemu-check   pvsmm with QEMU in the nested lab (tests/qemu/check.py):
#                     stock Debian QEMU with the ROM and the shim, the
#                     patched QEMU (accel*), OVMF (ovmf*); part of
#                     check-full
#   make qemu-check-quick  the stock-QEMU modes only (stock, seabios*,
#                     apparmor-*: libvirt's AppArmor profile, virt-aa-helper
#                     of the libvirt deps): no QEMU to build, part of make check

.PHONY: optionrom uefi shim qemu-pvsmm qemu-lab qemu-check qemu-check-quick

optionrom: | deps-build
	$(MAKE) -C firmware/optionrom

uefi: | deps-build
	@tools/install-deps.sh uefi
	$(MAKE) -C firmware/uefi

shim: | deps-build
	$(MAKE) -C host/qemu-shim

qemu-pvsmm: | deps-lab
	host/qemu/build.sh

qemu-lab: | deps-lab
	host/qemu/build.sh --lab

qemu-check: optionrom uefi shim qemu-pvsmm qemu-lab kvm-modules
	@tools/install-deps.sh libvirt
	tests/qemu/check.py

qemu-check-quick: optionrom shim kvm-modules
	@tools/install-deps.sh libvirt
	tests/qemu/check.py --quick
