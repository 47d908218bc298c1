# SPDX-License-Identifier: MIT
# The Intel lab (included by the top-level Makefile): kvm-intel in L1 under
# the lab's own Bochs, an emulated Skylake-X with VMX, EPT, VPID, virtual
# NMIs and APICv (tests/lab/run-in-lab.sh --cpu intel, tests/lab/bochs/).
#
#   make bochs-lab         build/bochs-lab/bochs: trixie's Bochs 3.0 source
#                          package with tests/lab/bochs/*.patch (~3 min)
#   make lab-tools         build/lab/l0-check: the lab CPU's own check
#   make intel-check       the fixed subset that `make check` runs, each
#                          suite smaller than on kvm-amd (INTEL_SUBSET
#                          below; ~11 min on 2 cores)
#   make check-intel-full  the full suites on kvm-intel: check.py stock and
#                          patched, the patched modes with ept=0 and with
#                          unrestricted_guest=0, the selftests (with their
#                          ept=0 pass; the 6.12 series' too, smaller),
#                          Linux boots with ept=1 and ept=0 (~45 min)
#   make intel-probe       build/intel-probe/: the real-Intel-host probe
#
# Every Bochs run is niced; run one lab at a time on a 2-core machine.

.PHONY: bochs-lab lab-tools intel-check check-intel-full

bochs-lab: | deps
	tests/lab/bochs/build.sh

lab-tools: $(BUILD)/lab/l0-check

$(BUILD)/lab/l0-check: tests/lab/l0-check.c | deps
	@mkdir -p $(@D)
	$(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<

INTEL := --cpu intel
# The subset: registration and every self-test mode at 1 and 4 vCPUs
# (check.py, 20,000 reads a run), the patched modes in every guest paging
# mode and the window at 1 vCPU (lab-check.sh), the same with ept=0 and with unrestricted_guest=0
# (5,000 reads), every KVM selftest of the series, smaller, and Debian's
# kernel booted through pvsmm-vmm --kernel (guest-boot.sh, kvm-clock; a
# boot that stalls fails: tests/lab/bochs/0003-* fixed the lab's stall).
# The 6.12 series on kvm-intel: the patched modes in every paging mode and
# the window, under Debian's 6.12 kernel.

intel-check: all kvm-modules kvm-modules-6.12 bochs-lab lab-tools guest-images
	tests/lab/check.py $(INTEL) --modules patched --reads 20000
	host/kvm/tests/lab-check.sh $(INTEL) --icount --log $(BUILD)/lab/intel-api.log
	host/kvm/tests/lab-check.sh $(INTEL) --kernel-series 6.12 --icount \
		--log $(BUILD)/lab/intel-api-6.12.log
	host/kvm/tests/lab-check.sh $(INTEL) --kvm-param ept=0 --reads 5000 \
		--log $(BUILD)/lab/intel-api-ept0.log
	host/kvm/tests/lab-check.sh $(INTEL) --kvm-param unrestricted_guest=0 --reads 5000 \
		--log $(BUILD)/lab/intel-api-ug0.log
	host/kvm/tests/selftests-check.sh $(INTEL) --small
	tests/lab/guest-boot.sh $(INTEL) --modes user --log $(BUILD)/lab/intel-guest.log

check-intel-full: all kvm-modules kvm-modules-6.12 bochs-lab lab-tools guest-images
	tests/lab/check.py $(INTEL) --modules stock --timeout 2400
	tests/lab/check.py $(INTEL) --modules patched --timeout 2400
	host/kvm/tests/lab-check.sh $(INTEL) --icount --log $(BUILD)/lab/intel-api.log
	host/kvm/tests/lab-check.sh $(INTEL) --icount --vcpus 4 --log $(BUILD)/lab/intel-api-4.log
	host/kvm/tests/lab-check.sh $(INTEL) --kvm-param ept=0 --log $(BUILD)/lab/intel-api-ept0.log
	host/kvm/tests/lab-check.sh $(INTEL) --kvm-param unrestricted_guest=0 \
		--log $(BUILD)/lab/intel-api-ug0.log
	host/kvm/tests/selftests-check.sh $(INTEL)
	host/kvm/tests/selftests-check.sh $(INTEL) --kernel-series 6.12 --small
	tests/lab/guest-boot.sh $(INTEL) --modules patched --modes "user reflect" \
		--l1-timeout 20 --log $(BUILD)/lab/intel-guest.log
	tests/lab/guest-boot.sh $(INTEL) --kvm-param ept=0 --modes user \
		--l1-timeout 30 --log $(BUILD)/lab/intel-guest-ept0.log

# For the real Intel host where `pvsmm-vmm --kernel` hangs in the guest's
# decompressor: everything tools/intel-host-probe/probe.sh needs, static,
# in one folder (tools/intel-host-probe/README.md).
.PHONY: intel-probe
PROBE := $(BUILD)/intel-probe
intel-probe: all guest-images
	@mkdir -p $(PROBE)
	$(CC) -static -O2 -Wall -Wextra -Werror -o $(PROBE)/memtype-probe \
		tools/intel-host-probe/memtype-probe.c
	cp tools/intel-host-probe/probe.sh tools/intel-host-probe/README.md \
		$(BUILD)/host/pvsmm-vmm $(BUILD)/firmware/pvsmm-fw.bin \
		$(BUILD)/guest/amd64/vmlinuz $(BUILD)/guest/amd64/initrd.gz $(PROBE)/
	@echo "$(PROBE): run ./probe.sh there on the Intel host"
