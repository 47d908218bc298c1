// SPDX-License-Identifier: MIT
/*
 * pmcheck: the timed gettimeofday() loop of the L2 guest of tests/qemu/.
 *
 * --calls calls, timed with RDTSC and bracketed by two one-byte writes to
 * --marker-port through /dev/port (1, then 2): the shim prints KVM's
 * counters at each, so the exits of the loop itself can be told apart
 * from the boot's.  (/dev/port, not OUT from user mode after iopl():
 * under the lab's nested SVM the TSS I/O bitmap check faults.)
 *
 * Prints:  PMCHECK {"calls":N,"cycles_per_call":N}
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static unsigned long opt(int argc, char **argv, const char *name,
			 unsigned long dflt)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return strtoul(argv[i + 1], NULL, 0);
	return dflt;
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static void marker(int fd, unsigned long port, unsigned char value)
{
	if (fd >= 0 && pwrite(fd, &value, 1, (off_t)port) != 1)
		perror("pmcheck: /dev/port");
}

int main(int argc, char **argv)
{
	unsigned long calls = opt(argc, argv, "--calls", 2000);
	unsigned long mport = opt(argc, argv, "--marker-port", 0);
	int fd = mport ? open("/dev/port", O_WRONLY) : -1;
	struct timeval tv;
	uint64_t t0, t1;

	marker(fd, mport, 1);
	t0 = rdtsc();
	for (unsigned long i = 0; i < calls; i++)
		gettimeofday(&tv, NULL);
	t1 = rdtsc();
	marker(fd, mport, 2);

	printf("PMCHECK {\"calls\":%lu,\"cycles_per_call\":%.0f}\n", calls,
	       calls ? (double)(t1 - t0) / calls : 0.0);
	return 0;
}
