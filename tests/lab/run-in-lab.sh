#!/bin/bash
# Runs a shell command inside the nested KVM lab and returns its status.
#
# The lab (see ../shared/LAB.md in the workplace notes) is Debian's own
# kernel booted under QEMU/TCG with emulated AMD SVM + nested paging, so
# kvm-amd loads there and /dev/kvm works.  L1's root is a small initramfs:
# static busybox, the KVM modules (Debian's stock ones or our patched
# build), and pvsmm's binaries under /pvsmm.
#
# Usage: tests/lab/run-in-lab.sh [options] -- COMMAND
#   --icount          deterministic time: -icount shift=0,sleep=off, so one
#                     L1 nanosecond is one guest instruction
#   --modules KIND    stock (Debian's kvm modules) or patched (build/kvm/patched)
#   --smp N           L1 vCPUs (default 1: with --icount, L1 with 2 vCPUs
#                     was seen to hang at boot)
#   --mem MIB         L1 memory (default 2048)
#   --timeout SEC     wall-clock limit for the whole boot (default 600)
#   --log FILE        full console log (default build/lab/last-console.log)
#   --add SRC:DEST    extra file copied into the initramfs at DEST
#   --add-binary SRC:DEST  a dynamic executable at DEST, with the shared
#                     libraries ldd names for it at their own paths
#   --with-qemu       Debian's own qemu-system-x86_64 in L1 too (binary,
#                     its shared libraries, the firmware it loads; ~20 MB
#                     more initramfs), the stock-QEMU anchor for L2 guests
# COMMAND runs under /bin/sh in L1 with cwd /pvsmm and /pvsmm on PATH.  Its
# output is printed here; the script exits with its status, or 125 when the
# lab itself failed (no result, timeout, or a kernel splat in L1's log).
# PVSMM_LAB_QEMU=PATH boots L1 with another QEMU than Debian's (with
# Debian's firmware), e.g. to try a fix to QEMU's TCG.  PVSMM_LAB_CPU
# replaces the CPU model (default EPYC,+svm,+npt), e.g. to add la57.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kver=${PVSMM_KVER:-6.1.0-57-amd64}
icount=0 modules=stock smp=1 mem=2048 timeout_s=600 with_qemu=0
log=$top/build/lab/last-console.log
extra=()
binaries=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
die() { echo "run-in-lab: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	--icount) icount=1 ;;
	--modules) modules=${2:?}; shift ;;
	--smp) smp=${2:?}; shift ;;
	--mem) mem=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--log) log=${2:?}; shift ;;
	--add) extra+=("${2:?}"); shift ;;
	--add-binary) binaries+=("${2:?}"); shift ;;
	--with-qemu) with_qemu=1 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	*) echo "run-in-lab: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ $# -gt 0 ] || { echo "run-in-lab: no command given (see --help)" >&2; exit 2; }
command=$*

kernel=/boot/vmlinuz-$kver
moddir=/lib/modules/$kver/kernel
[ -r "$kernel" ] || die "$kernel missing: run 'make deps' (linux-image-$kver)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"
[ -x /bin/busybox ] || die "/bin/busybox missing: run 'make deps' (busybox-static)"

case $modules in
stock) kvm_dir=$moddir/arch/x86/kvm ;;
patched) kvm_dir=$top/build/kvm/patched ;;
*) die "--modules must be stock or patched, not '$modules'" ;;
esac
for m in kvm.ko kvm-amd.ko; do
	[ -r "$kvm_dir/$m" ] || die "$kvm_dir/$m missing (patched modules: 'make kvm-modules')"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-lab.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,modules,pvsmm,results}
cp /bin/busybox "$root/bin/busybox"
cp "$moddir/../virt/lib/irqbypass.ko" "$moddir/drivers/crypto/ccp/ccp.ko" \
	"$root/modules/" 2>/dev/null ||
	cp "$moddir/virt/lib/irqbypass.ko" "$moddir/drivers/crypto/ccp/ccp.ko" "$root/modules/"
cp "$kvm_dir/kvm.ko" "$kvm_dir/kvm-amd.ko" "$root/modules/"

# pvsmm's own binaries, whatever has been built so far.
for f in build/host/pvsmm-vmm build/firmware/pvsmm-fw.bin tests/lab/guest-runs.sh; do
	[ -e "$top/$f" ] && cp "$top/$f" "$root/pvsmm/"
done
# A dynamic executable at DEST in the initramfs, with every library ldd
# names for it at the same paths.
add_binary() {
	local src=$1 dest=$2
	[ -x "$src" ] || die "'$src' is not an executable"
	mkdir -p "$root/$(dirname "$dest")"
	cp "$src" "$root/$dest"
	ldd "$src" | grep -o '/[^ ]*' | sort -u | while read -r lib; do
		mkdir -p "$root/$(dirname "$lib")"
		cp -L "$lib" "$root/$lib"
	done
}

# Stock QEMU for L1: the binary and the few firmware files a -kernel boot
# of q35 loads (SeaBIOS, the option ROMs behind -kernel, the vapic ROM),
# into QEMU's default data directory.
if [ "$with_qemu" = 1 ]; then
	mkdir -p "$root/usr/share/qemu"
	add_binary "$(command -v qemu-system-x86_64)" /usr/bin/qemu-system-x86_64
	for f in bios-256k.bin kvmvapic.bin linuxboot_dma.bin linuxboot.bin \
		multiboot_dma.bin pvh.bin; do
		src=/usr/share/qemu/$f
		[ -e "$src" ] || src=/usr/share/seabios/$f
		[ -e "$src" ] || die "--with-qemu: QEMU's $f not found"
		cp -L "$src" "$root/usr/share/qemu/$f"
	done
fi
for spec in "${binaries[@]}"; do
	add_binary "${spec%%:*}" "${spec#*:}"
done
for spec in "${extra[@]}"; do
	src=${spec%%:*} dest=${spec#*:}
	[ -e "$src" ] || die "--add: '$src' does not exist"
	mkdir -p "$root/$(dirname "$dest")"
	cp -r "$src" "$root/$dest"
done
printf '%s\n' "$command" >"$root/pvsmm/lab-command.sh"

cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/pvsmm:/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# The messages of a healthy boot are not ours to show; errors still reach
# the console through the log check below.
echo 1 >/proc/sys/kernel/printk
# Boot-time notices (e.g. CPU vulnerability reports) are not ours: only what
# the kernel logs from here on is checked for splats.
dmesg >/tmp/dmesg.boot
for m in irqbypass ccp kvm kvm-amd; do
	insmod /modules/$m.ko || echo "LAB-ERROR insmod $m failed"
done
[ -c /dev/kvm ] || echo "LAB-ERROR /dev/kvm missing"
cd /pvsmm
echo "===LAB-BEGIN==="
sh /pvsmm/lab-command.sh
rc=$?
echo "===LAB-END rc=$rc==="
# A host kernel that oopsed, WARNed or found a lockdep problem fails the
# run whatever the command said.
if dmesg | tail -n +$(($(wc -l </tmp/dmesg.boot) + 1)) |
	grep -E "cut here|WARNING: CPU|BUG:|Oops|general protection fault|lockdep|possible recursive|Call Trace"; then
	echo "===LAB-SPLAT==="
fi
poweroff -f
INIT
chmod +x "$root/init"

initrd=$work/initrd.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"

qemu=(qemu-system-x86_64)
# Debian's QEMU finds SeaBIOS in /usr/share/seabios; tell another one.
[ -n "${PVSMM_LAB_QEMU:-}" ] &&
	qemu=("$PVSMM_LAB_QEMU" -L /usr/share/seabios -L /usr/share/qemu)
qemu+=(-machine q35 -cpu "${PVSMM_LAB_CPU:-EPYC,+svm,+npt}" -m "$mem" -smp "$smp"
	-nographic -nic none -no-reboot -kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 quiet loglevel=1 panic=-1 tsc=reliable")
[ "$icount" = 1 ] && qemu+=(-icount shift=0,sleep=off)

# Concurrent lab runs must not share a console file: each writes its own
# and publishes it as --log when done.
console=$work/console.log
set +e
timeout --foreground -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 |
	tr -d '\r' >"$console"
qemu_rc=${PIPESTATUS[0]}
set -e
mkdir -p "$(dirname "$log")"
cp "$console" "$log.tmp.$$" && mv -f "$log.tmp.$$" "$log"

sed -n '/===LAB-BEGIN===$/,/^===LAB-END rc=[0-9]*===$/p' "$console" | sed '1d;$d'
if grep -q '^===LAB-SPLAT===$' "$console"; then
	echo "run-in-lab: host kernel splat in L1 (see $log)" >&2
	exit 125
fi
rc=$(sed -n 's/^===LAB-END rc=\([0-9]*\)===$/\1/p' "$console")
if [ -z "$rc" ]; then
	grep -v '^qemu-system-x86_64: warning: TCG' "$console" | tail -n 30 >&2
	[ "$qemu_rc" = 124 ] && die "timed out after ${timeout_s}s (see $log)"
	die "no result from the lab (qemu exit $qemu_rc; see $log)"
fi
exit "$rc"
