#!/bin/busybox sh
# /init of the L2 guests (amd64 and i386 alike): mount what gtod-bench
# reads, run it with the settings given on the kernel command line, power
# off.  Settings (words of /proc/cmdline, all optional):
#   gtod_calls=N     gettimeofday() calls in the timed loop
#   gtod_mono=N      clock reads per CPU in the monotonicity test
#   gtod_marker=PORT bracket the loop with pvsmm-vmm's bench marker OUTs
#   gtod_settle=MS   pause after each GUEST-MARK line
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

args=""
for word in $(cat /proc/cmdline); do
	case $word in
	gtod_calls=*) args="$args --calls ${word#*=}" ;;
	gtod_mono=*) args="$args --mono-iters ${word#*=}" ;;
	gtod_marker=*) args="$args --marker-port ${word#*=}" ;;
	gtod_settle=*) args="$args --settle-ms ${word#*=}" ;;
	esac
done

echo "GUEST-BOOTED $(uname -m) $(uname -r) cpus=$(nproc)"
# shellcheck disable=SC2086
/bin/gtod-bench $args
echo "GUEST-DONE rc=$?"
# -f: straight to the kernel's ACPI power-off (PM1a_CNT), which ends the VMM.
poweroff -f
