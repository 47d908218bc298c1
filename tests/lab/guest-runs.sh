#!/bin/sh
# Runs inside L1 (busybox sh): one pvsmm-vmm run per argument, each
# argument "ID MODE VCPUS READS CHECK_READS [VMM OPTIONS...]" (one word list,
# quoted).  Each run's output is framed so that pylib/pvsmmlab/lab.py can take
# it apart: "=== RUN ID" ... "=== END ID rc=N".
for spec in "$@"; do
	# shellcheck disable=SC2086
	set -- $spec
	id=$1 mode=$2 vcpus=$3 reads=$4 check=$5
	shift 5
	echo "=== RUN $id"
	pvsmm-vmm --firmware /pvsmm/pvsmm-fw.bin --pmtimer="$mode" \
		--vcpus "$vcpus" --reads "$reads" --check-reads "$check" "$@" 2>&1
	echo "=== END $id rc=$?"
done
