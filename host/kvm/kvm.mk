# SPDX-License-Identifier: MIT
#
# Targets for the patched KVM modules; the top-level Makefile includes this.
#
#   make kvm-modules     build/kvm/patched/{kvm,kvm-amd,kvm-intel}.ko and the
#                        series' KVM selftests, build/kvm/selftests/x86_64/
#                        pvsmm_* (~1 min on 2 cores, incremental)
#   make kvm-checkpatch  checkpatch.pl --strict on the series (must be clean)
#   make kvm-lab-check   pvsmm-vmm's patched-KVM modes in one lab boot (add
#                        KVM_LAB_ARGS=--icount for counts)
#   make kvm-fuzz        the kernel's descriptor validation, fuzzed in
#                        userspace against the selftests' model
#                        (deterministic + libFuzzer, ASan/UBSan)
#   make kvm-selftests   the KVM selftests in the lab: npt=1 and npt=0 with
#                        one L1 CPU, the SMP time test with two (~4 min)
#   make kvm-stress      the long variants of both (make stress)
#
# KVM_SELFTESTS_ARGS: more options for the selftests, e.g. "--only time".

.PHONY: kvm-modules kvm-checkpatch kvm-lab-check kvm-fuzz kvm-selftests kvm-stress

kvm-modules: | deps-lab
	host/kvm/build.sh

kvm-checkpatch:
	host/kvm/checkpatch.sh

kvm-lab-check: all kvm-modules
	host/kvm/tests/lab-check.sh $(KVM_LAB_ARGS)

# The fuzzer compiles arch/x86/kvm/pvsmm_desc.h and the selftests' model
# of the patched tree.
kvm-fuzz: kvm-modules
	host/kvm/tests/fuzz.sh

kvm-selftests: kvm-modules
	host/kvm/tests/selftests-check.sh $(KVM_SELFTESTS_ARGS)

kvm-stress: kvm-modules
	host/kvm/tests/fuzz.sh --long
	host/kvm/tests/selftests-check.sh --long $(KVM_SELFTESTS_ARGS)
