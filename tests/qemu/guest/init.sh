#!/bin/busybox sh
# /init of the L2 guest of tests/qemu/: report the clocksource, run the
# gettimeofday loop (pmcheck) and the agreement probe (pmprobe.ko), report
# the clocksource again and any clocksource complaint, power off.
#   pmcheck_calls=N pmcheck_pairs=N pmcheck_marker=PORT
#   pmcheck_s3=N: suspend to RAM first, the RTC waking the guest N
#   seconds later, so that all of the above runs after an S3 resume
#   pmcheck_migrate=N: first a window of N seconds in which the host
#   migrates the guest, clockstep checking that its time does not step
#   pmcheck_kexec=1: at the end, instead of powering off, boot the same
#   kernel again by kexec (from /kexec, l2-kexec.cpio.gz), this command line
#   without pmcheck_kexec, which then runs all of the above once more
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
calls=2000 pairs=2000 marker=0 s3=0 migrate=0 kexec=0
for word in $(cat /proc/cmdline); do
	case $word in
	pmcheck_calls=*) calls=${word#*=} ;;
	pmcheck_pairs=*) pairs=${word#*=} ;;
	pmcheck_marker=*) marker=${word#*=} ;;
	pmcheck_s3=*) s3=${word#*=} ;;
	pmcheck_migrate=*) migrate=${word#*=} ;;
	pmcheck_kexec=*) kexec=${word#*=} ;;
	esac
done
if [ "$s3" != 0 ]; then
	alarm=/sys/class/rtc/rtc0/wakealarm
	# No suspend without its wake alarm: the guest would sleep for good.
	if echo 0 >$alarm && echo "+$s3" >$alarm && echo "L2-S3 suspending" &&
	   echo mem >/sys/power/state; then
		echo "L2-S3 resumed"
	else
		echo "L2-S3 failed"
	fi
fi
[ "$migrate" = 0 ] || /bin/clockstep --seconds "$migrate"
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
echo "L2-CLOCKSOURCE before $(cat $cs)"
/bin/pmcheck --calls "$calls" --marker-port "$marker"
# The port as the kernel found it in the FADT (PM_TMR_BLK).
port=$(sed -n 's/^ *\([0-9a-f]*\)-[0-9a-f]* : ACPI PM_TMR$/0x\1/p' /proc/ioports)
insmod /pmprobe.ko port="$port" pairs="$pairs" 2>/dev/null
dmesg | sed -n 's/.*\(PMPROBE {.*\)$/\1/p'
echo "L2-CLOCKSOURCE after $(cat $cs)"
# The watchdog's verdicts, if any ("Marking clocksource ... as unstable").
dmesg | grep -i 'clocksource' | grep -iE 'unstable|skew|watchdog' |
	sed 's/^/L2-CLOCKSOURCE-WARNING /'
if [ "$kexec" != 0 ]; then
	echo "L2-KEXEC"
	/kexec/kexec /kexec/vmlinuz /kexec/initrd.gz \
		"$(sed 's/ *pmcheck_kexec=[^ ]*//' /proc/cmdline)"
	echo "L2-KEXEC failed"
fi
echo "L2-DONE"
poweroff -f
