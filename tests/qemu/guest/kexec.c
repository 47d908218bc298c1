// SPDX-License-Identifier: MIT
/*
 * kexec: boot another kernel from the running one, the L2 guest of
 * tests/qemu/ having no kexec-tools:
 *
 *     kexec KERNEL INITRD COMMAND-LINE
 *
 * kexec_file_load(2) loads the bzImage (the kernel builds the boot
 * parameters, the e820 map the firmware gave this kernel included), then
 * reboot(LINUX_REBOOT_CMD_KEXEC) jumps to it.  Returns only on failure.
 */
#include <fcntl.h>
#include <linux/reboot.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int kernel, initrd;

	if (argc != 4) {
		fprintf(stderr, "usage: kexec KERNEL INITRD COMMAND-LINE\n");
		return 2;
	}
	kernel = open(argv[1], O_RDONLY);
	initrd = open(argv[2], O_RDONLY);
	if (kernel < 0 || initrd < 0) {
		perror("kexec: open");
		return 1;
	}
	/* The command line's length counts its terminating NUL. */
	if (syscall(SYS_kexec_file_load, kernel, initrd, strlen(argv[3]) + 1,
		    argv[3], 0UL)) {
		perror("kexec: kexec_file_load");
		return 1;
	}
	sync();
	syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
		LINUX_REBOOT_CMD_KEXEC, NULL);
	perror("kexec: reboot");
	return 1;
}
