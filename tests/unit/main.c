// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "test.h"

unsigned long test_passed, test_failed;

void test_time(void);

int main(void)
{
	test_time();
	printf("unit: %lu passed, %lu failed\n", test_passed, test_failed);
	return test_failed ? 1 : 0;
}
