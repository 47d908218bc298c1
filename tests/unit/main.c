// SPDX-License-Identifier: MIT
/*
 * The unit-test binary: runs every suite, or those named on the command
 * line, and prints one "SUITE: N passed, M failed" line for each.
 */
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "test.h"

unsigned long test_passed, test_failed;

static const struct {
	const char *name;
	void (*run)(void);
} suites[] = {
	{ "time", test_time },
	{ "vmm", test_vmm },
	{ "desc", test_descriptor },
	{ "boot", test_boot },
	{ "stats", test_stats },
};

static int wanted(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long failed = 0;

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		if (!wanted(suites[i].name, argc, argv))
			continue;
		test_passed = test_failed = 0;
		suites[i].run();
		printf("%s: %lu passed, %lu failed\n", suites[i].name,
		       test_passed, test_failed);
		failed += test_failed;
	}
	return failed ? 1 : 0;
}
