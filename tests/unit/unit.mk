# SPDX-License-Identifier: MIT
#
# The unit tests (tests/unit), included by the top-level Makefile:
#
#   make unit    builds build/tests/unit-tests and runs every suite through
#                tests/unit/run.sh; closes with "N passed, M failed"
#
# The binary links the VMM's pure pieces (no /dev/kvm) and the firmware's
# own tick math (build/firmware/pm_math.o), so that both are checked
# against one reference.

UNIT_BUILD   := $(BUILD)/tests
UNIT_CFLAGS  := $(CFLAGS) -D_GNU_SOURCE -iquote host/vmm -iquote tests/unit
UNIT_SRCS    := $(wildcard tests/unit/*.c) \
		$(addprefix host/vmm/,pm_ticks.c descriptor.c insn.c e820.c \
				      acpi.c linux_boot.c)
UNIT_HDRS    := $(wildcard tests/unit/*.h host/vmm/*.h include/pvsmm/*.h)

.PHONY: unit

$(UNIT_BUILD)/unit-tests: $(UNIT_SRCS) $(UNIT_HDRS) firmware
	@mkdir -p $(UNIT_BUILD)
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRCS) $(BUILD)/firmware/pm_math.o

unit: $(UNIT_BUILD)/unit-tests host
	tests/unit/run.sh $(BUILD)
