/* SPDX-License-Identifier: MIT */
/* A tiny test harness: CHECK counts, the runner prints "N passed, M failed". */
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
