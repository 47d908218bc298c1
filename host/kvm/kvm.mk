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
#
# The same for the series on Debian's 6.12 (host/kvm/patches-6.12/, Debian
# 12's security suite, installed on demand by deps-lab-6.12):
#   make kvm-modules-6.12 kvm-checkpatch-6.12 kvm-lab-check-6.12
#        kvm-selftests-6.12 kvm-fuzz-6.12 lab-check-patched-6.12
#   make check-6.12      all of them but lab-check-patched-6.12 (part of
#                        make check)

.PHONY: kvm-modules kvm-checkpatch kvm-lab-check kvm-fuzz kvm-selftests kvm-stress \
	deps-lab-6.12 kvm-modules-6.12 kvm-checkpatch-6.12 kvm-lab-check-6.12 \
	kvm-selftests-6.12 kvm-fuzz-6.12 lab-check-patched-6.12 check-6.12

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

deps-lab-6.12:
	@tools/install-deps.sh lab-6.12

kvm-modules-6.12: | deps-lab-6.12
	host/kvm/build.sh --kernel-series 6.12

kvm-checkpatch-6.12: kvm-modules-6.12
	host/kvm/checkpatch.sh --kernel-series 6.12

kvm-lab-check-6.12: all kvm-modules-6.12
	host/kvm/tests/lab-check.sh --kernel-series 6.12 $(KVM_LAB_ARGS)

kvm-selftests-6.12: kvm-modules-6.12
	host/kvm/tests/selftests-check.sh --kernel-series 6.12 $(KVM_SELFTESTS_ARGS)

# The fuzzed sources are those of the 6.1 series byte for byte as long as
# the two series agree on them; kvm-fuzz covers both then, and only a 6.12
# tree that differs is fuzzed again.
FUZZED := arch/x86/kvm/pvsmm_desc.h tools/testing/selftests/kvm/lib/x86_64/pvsmm_model.c
kvm-fuzz-6.12: kvm-modules kvm-modules-6.12
	@same=1; for f in $(FUZZED); do \
		cmp -s $(BUILD)/kvm/src/$$f $(BUILD)/kvm/6.12/src/$$f || same=0; done; \
	if [ $$same = 1 ]; then \
		echo "kvm-fuzz-6.12: the fuzzed sources are the 6.1 series' byte for byte (make kvm-fuzz)"; \
	else host/kvm/tests/fuzz.sh --kernel-series 6.12; fi

lab-check-patched-6.12: all kvm-modules-6.12 lab-tools | deps-lab
	PVSMM_KSERIES=6.12 tests/lab/check.py --modules patched

check-6.12: kvm-checkpatch-6.12 kvm-lab-check-6.12 kvm-selftests-6.12 kvm-fuzz-6.12
