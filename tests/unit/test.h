/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' one harness.  CHECK counts into the running suite;
 * main.c runs each suite of suites.h and prints "SUITE: N passed, M failed"
 * for it -- the report format every suite of tests/unit/run.sh uses, which
 * adds them up into the closing "N passed, M failed".
 */
#ifndef PVSMM_TEST_H
#define PVSMM_TEST_H

#include <stdio.h>

extern unsigned long test_passed, test_failed;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			test_passed++;					\
		} else {						\
			test_failed++;					\
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

#endif
