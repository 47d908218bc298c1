/* SPDX-License-Identifier: MIT */
/* The suites of the unit-test binary, in the order main.c runs them. */
#ifndef PVSMM_TEST_SUITES_H
#define PVSMM_TEST_SUITES_H

void test_time(void);	/* test_time.c: firmware and VMM tick math */
void test_vmm(void);	/* test_vmm.c: decoder, port table, PM ticks */
void test_descriptor(void); /* desc.c: the descriptor, the private tables */
void test_boot(void);	/* test_boot.c: e820, ACPI, boot protocol */
void test_stats(void);	/* test_stats.c: the JSON writer, PVSMM-STATS */

#endif
