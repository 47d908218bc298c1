/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_HOST_TESTS_DESC_H
#define PVSMM_HOST_TESTS_DESC_H

/* Descriptor validation and the private-table walker (desc.c). */
void test_descriptor(void);

#endif
