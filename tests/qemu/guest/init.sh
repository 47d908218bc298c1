#!/bin/busybox sh
# /init of the L2 guest of tests/qemu/: report the clocksource, run the
# gettimeofday loop (pmcheck) and the agreement probe (pmprobe.ko), report
# the clocksource again and any clocksource complaint, power off.
#   pmcheck_calls=N pmcheck_pairs=N pmcheck_marker=PORT
#   pmcheck_s3=N: suspend to RAM first, the RTC waking the guest N
#   seconds later, so that all of the above runs after an S3 resume
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
calls=2000 pairs=2000 marker=0 s3=0
for word in $(cat /proc/cmdline); do
	case $word in
	pmcheck_calls=*) calls=${word#*=} ;;
	pmcheck_pairs=*) pairs=${word#*=} ;;
	pmcheck_marker=*) marker=${word#*=} ;;
	pmcheck_s3=*) s3=${word#*=} ;;
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
echo "L2-DONE"
poweroff -f
