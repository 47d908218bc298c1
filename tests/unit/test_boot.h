/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_HOST_TESTS_BOOT_H
#define PVSMM_HOST_TESTS_BOOT_H

/* e820, ACPI, boot protocol and PM carry tests (boot.c). */
void test_boot(void);

#endif
