# SPDX-License-Identifier: MIT
# Installing pvsmm like a KVM user (included by the top-level Makefile):
#
#   make install      the patched KVM modules through DKMS, the option ROM,
#                     the UEFI driver and its PCI ROM (if built), the
#                     QEMU shim, and the patched QEMU with its libvirt
#                     wrapper qemu-pvsmm (if built: make qemu-pvsmm)
#                     under $(PREFIX) (default /usr/local)
#   make uninstall    all of it removed; the distribution's KVM in charge
#   make dkms-check   what make install refuses and where its kernel
#                     source comes from (check.sh); then, as root, make
#                     install and make uninstall, in a mount namespace
#                     whose module and DKMS trees are overlays (this
#                     machine's stay as they are), tried on a Secure Boot
#                     L1 in the lab (lab-check.sh)

PREFIX            ?= /usr/local
PVSMM_KVM_VERSION ?= 1.0
PVSMM_SHARE       := $(DESTDIR)$(PREFIX)/share/pvsmm
PVSMM_LIB         := $(DESTDIR)$(PREFIX)/lib/pvsmm
# dkms runs make itself (e.g. to learn the kernel's compiler); inherited
# MAKEFLAGS/MAKELEVEL would make those runs print "make[1]: Entering
# directory" into what dkms captures, so dkms starts from a clean slate.
DKMS_ENV          := env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS

.PHONY: install uninstall dkms-check

install: optionrom uefi shim
	host/kvm/dkms/preflight.sh $${KVER:-$$(uname -r)}
	@tools/install-deps.sh install
	install -D -m 0644 build/firmware/pvsmm.rom $(PVSMM_SHARE)/pvsmm.rom
	for f in pvsmm.efi pvsmm-efi.rom; do \
		if [ -e build/firmware/$$f ]; then \
			install -D -m 0644 build/firmware/$$f $(PVSMM_SHARE)/$$f; fi; \
	done
	install -D -m 0755 build/host/libpvsmm-preload.so $(PVSMM_LIB)/libpvsmm-preload.so
	if [ -e build/qemu-pvsmm/qemu-system-x86_64 ]; then \
		install -D -m 0755 build/qemu-pvsmm/qemu-system-x86_64 \
			$(PVSMM_LIB)/qemu-system-x86_64; \
		sed 's|^qemu=.*|qemu=$${PVSMM_QEMU:-$(PREFIX)/lib/pvsmm/qemu-system-x86_64}|' \
			host/libvirt/qemu-pvsmm >$(PVSMM_LIB)/qemu-pvsmm; \
		chmod 0755 $(PVSMM_LIB)/qemu-pvsmm; fi
	$(DKMS_ENV) host/kvm/dkms/install.sh $(PVSMM_KVM_VERSION)

uninstall:
	$(DKMS_ENV) host/kvm/dkms/uninstall.sh $(PVSMM_KVM_VERSION)
	rm -f $(PVSMM_SHARE)/pvsmm.rom $(PVSMM_SHARE)/pvsmm.efi \
		$(PVSMM_SHARE)/pvsmm-efi.rom \
		$(PVSMM_LIB)/libpvsmm-preload.so \
		$(PVSMM_LIB)/qemu-system-x86_64 $(PVSMM_LIB)/qemu-pvsmm
	-rmdir $(PVSMM_SHARE) $(PVSMM_LIB) 2>/dev/null

# After all: the make install inside finds the ROM, the UEFI driver and
# the shim built, rather than building them beside a parallel make.
dkms-check: all | deps-lab
	@tools/install-deps.sh install
	host/kvm/dkms/check.sh
	host/kvm/dkms/lab-check.sh $(PVSMM_KVM_VERSION)
