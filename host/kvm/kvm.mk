# SPDX-License-Identifier: MIT
#
# Targets for the patched KVM modules; the top-level Makefile includes this.
#
#   make kvm-modules     build/kvm/patched/{kvm,kvm-amd,kvm-intel}.ko and
#                        build/kvm/kvm-api-test (~1 min on 2 cores, incremental)
#   make kvm-checkpatch  checkpatch.pl --strict on the series (must be clean)
#   make kvm-lab-check   the API test and pvsmm-vmm's patched-KVM modes in
#                        one lab boot (add KVM_LAB_ARGS=--icount for counts)

.PHONY: kvm-modules kvm-checkpatch kvm-lab-check

kvm-modules:
	host/kvm/build.sh

kvm-checkpatch:
	host/kvm/checkpatch.sh

kvm-lab-check: kvm-modules
	host/kvm/tests/lab-check.sh $(KVM_LAB_ARGS)
