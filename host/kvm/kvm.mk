# SPDX-License-Identifier: MIT
#
# Targets for the patched KVM modules; the top-level Makefile includes this.
#
#   make kvm-modules     build/kvm/patched/{kvm,kvm-amd,kvm-intel}.ko and
#                        build/kvm/kvm-api-test (~1 min on 2 cores, incremental)
#   make kvm-checkpatch  checkpatch.pl --strict on the series (must be clean)
#   make kvm-lab-check   the API test and pvsmm-vmm's patched-KVM modes in
#                        one lab boot (add KVM_LAB_ARGS=--icount for counts)
#   make kvm-fuzz        the kernel's descriptor validation, fuzzed in
#                        userspace (deterministic + libFuzzer, ASan/UBSan)
#   make kvm-robust      kvm-robust-test in one lab boot: hostile guests,
#                        failing handlers, events, save/restore, SMP
#   make kvm-stress      the long variants of both (make stress)

.PHONY: kvm-modules kvm-checkpatch kvm-lab-check kvm-fuzz kvm-robust kvm-stress

kvm-modules: | deps-lab
	host/kvm/build.sh

kvm-checkpatch:
	host/kvm/checkpatch.sh

kvm-lab-check: kvm-modules
	host/kvm/tests/lab-check.sh $(KVM_LAB_ARGS)

# The fuzzer compiles arch/x86/kvm/pvsmm_desc.h of the patched tree.
kvm-fuzz: kvm-modules
	host/kvm/tests/fuzz.sh

kvm-robust: kvm-modules
	host/kvm/tests/robust-check.sh

kvm-stress: kvm-modules
	host/kvm/tests/fuzz.sh --long
	host/kvm/tests/robust-check.sh --long
