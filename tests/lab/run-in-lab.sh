#!/bin/bash
# Runs a shell command inside the nested KVM lab and returns its status.
#
# The lab (README.md, "Where it runs") is Debian's own
# kernel ("L1") booted under an emulator that offers hardware
# virtualization, so KVM loads there and /dev/kvm works:
#   --cpu amd    (default) QEMU/TCG with emulated AMD SVM + nested paging;
#                L1 loads kvm-amd
#   --cpu intel  Bochs (the lab's own build, tests/lab/bochs/, "make
#                bochs-lab") as an Intel Skylake-X with VMX, EPT, VPID and
#                virtual NMIs; L1 loads kvm-intel.  Bochs has no -kernel:
#                the kernel and initramfs go on a small grub ISO
#                (grub-mkrescue).  About 70 M instructions/s here, ~100 s
#                to L1's /init.
# L1's root is a small initramfs: static busybox, the KVM modules (Debian's
# stock ones or our patched build), and pvsmm's binaries under /pvsmm.
#
# Usage: tests/lab/run-in-lab.sh [options] -- COMMAND
#   --cpu amd|intel   which virtualization L1 gets (default amd)
#   --kvm-param P=V   a parameter of kvm-amd / kvm-intel, e.g. npt=0,
#                     ept=0, unrestricted_guest=0 (repeatable)
#   --icount          deterministic time: -icount shift=0,sleep=off, so one
#                     L1 nanosecond is one guest instruction.  Under Bochs
#                     time is always instruction-driven (clock sync=none),
#                     with or without it: the TSC counts instructions and
#                     the model's TSC runs at 3.5 GHz, so the timers run at
#                     3.5e9 instructions per emulated second too and one
#                     L1 nanosecond is 3.5 instructions
#   --modules KIND    stock (Debian's kvm modules), patched (build/kvm/patched),
#                     installed (those that this host's modprobe resolves for
#                     the kernel: `modprobe -S KVER --show-depends`, so after
#                     make install DKMS's updates/dkms/, else Debian's), or
#                     none (COMMAND loads what it wants: the resolved chain
#                     of installed, and Debian's own, lie under
#                     /modules/installed and /modules/stock, each with an
#                     order file)
#   --kernel FILE     another image of the kernel to boot (e.g. re-signed)
#   --secure-boot VARS  (--cpu amd) UEFI with Secure Boot instead of SeaBIOS:
#                     Debian's OVMF built with it (OVMF_CODE_4M.secboot.fd,
#                     SMM), VARS a writable copy of a variable store with
#                     Secure Boot on (e.g. OVMF_VARS_4M.snakeoil.fd), which
#                     keeps what L1 writes (efivarfs) for the next boot.
#                     The kernel must be signed by a key in its db
#   --kernel-series S the Debian kernel series L1 boots: 6.1 (default) or
#                     6.12 (tools/kver.sh S; patched modules from
#                     build/kvm/6.12/patched); also $PVSMM_KSERIES.
#                     PVSMM_KVER still names the kernel itself
#   --smp N           L1 vCPUs (default 1: with --icount, L1 with 2 vCPUs
#                     was seen to hang at boot; --cpu intel: 1 only)
#   --mem MIB         L1 memory (default 2048, --cpu intel 1024)
#   --timeout SEC     wall-clock limit for the whole boot (default 600,
#                     --cpu intel 1800)
#   --log FILE        full console log (default build/lab/last-console.log;
#                     --cpu intel: Bochs's log in FILE.bochs)
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
# Debian's firmware), e.g. to try a fix to QEMU's TCG.
# PVSMM_LAB_BOCHS=PATH runs another Bochs than build/bochs-lab/bochs, e.g.
# Debian's /usr/bin/bochs-bin (2.7: it leaks NMI blocking between VMCSs,
# see tests/lab/bochs/README.md).
# PVSMM_LAB_CPU replaces QEMU's CPU model (default EPYC,+svm,+npt), e.g. to
# add la57.
# PVSMM_LAB_MONITOR=SOCKET gives QEMU's HMP monitor on that Unix socket, so
# that a lab that hangs can be looked at from here while it is stuck
# (info lapic, info registers: where L1 is, and whether its timer is armed).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
kseries=${PVSMM_KSERIES:-6.1}
icount=0 modules=stock smp=1 mem='' timeout_s='' with_qemu=0 cpu=amd
kernel='' sb_vars=''
log=$top/build/lab/last-console.log
extra=()
binaries=()
kvm_params=()

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
die() { echo "run-in-lab: $*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	--cpu) cpu=${2:?}; shift ;;
	--kvm-param) kvm_params+=("${2:?}"); shift ;;
	--icount) icount=1 ;;
	--modules) modules=${2:?}; shift ;;
	--kernel-series) kseries=${2:?}; shift ;;
	--kernel) kernel=${2:?}; shift ;;
	--secure-boot) sb_vars=${2:?}; shift ;;
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

case $kseries in
6.1) patched_dir=$top/build/kvm/patched ;;
6.12) patched_dir=$top/build/kvm/6.12/patched ;;
*) echo "run-in-lab: --kernel-series must be 6.1 or 6.12, not '$kseries'" >&2; exit 2 ;;
esac
kver=${PVSMM_KVER:-}	# Debian's kernel (tools/kver.sh) unless set
[ -n "$kver" ] || kver=$("$top/tools/kver.sh" "$kseries") ||
	{ echo "run-in-lab: no kernel version: run 'make deps'" >&2; exit 125; }

case $cpu in
amd) vendor=kvm-amd ; : "${mem:=2048}" "${timeout_s:=600}" ;;
intel) vendor=kvm-intel ; : "${mem:=1024}" "${timeout_s:=1800}" ;;
*) echo "run-in-lab: --cpu must be amd or intel, not '$cpu'" >&2; exit 2 ;;
esac
for p in "${kvm_params[@]}"; do
	[[ $p =~ ^[a-z_][a-z0-9_]*=[A-Za-z0-9_,.-]+$ ]] ||
		{ echo "run-in-lab: --kvm-param wants NAME=VALUE, not '$p'" >&2; exit 2; }
done
for n in "$smp" "$mem" "$timeout_s"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] ||
		{ echo "run-in-lab: --smp, --mem and --timeout want a positive number, not '$n'" >&2; exit 2; }
done

[ -n "$kernel" ] || kernel=/boot/vmlinuz-$kver
moddir=/lib/modules/$kver/kernel
[ -r "$kernel" ] || die "$kernel missing: run 'make deps' (linux-image-$kver)"
sb_code=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
if [ -n "$sb_vars" ]; then
	[ "$cpu" = amd ] || die "--secure-boot: the AMD lab (QEMU) only"
	[ -r "$sb_code" ] || die "$sb_code missing: run 'make deps' (ovmf)"
	[ -w "$sb_vars" ] || die "--secure-boot: '$sb_vars' is not a writable file"
fi
[ -x /bin/busybox ] || die "/bin/busybox missing: run 'make deps' (busybox-static)"
if [ "$cpu" = amd ]; then
	command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"
else
	bochs=${PVSMM_LAB_BOCHS:-$top/build/bochs-lab/bochs}
	[ -x "$bochs" ] || die "$bochs missing: run 'make bochs-lab' (the Intel lab's Bochs)"
	[ "$smp" = 1 ] || die "--cpu intel: L1 has one CPU (the lab's Bochs is built without SMP)"
	for f in /usr/share/bochs/BIOS-bochs-latest /usr/share/vgabios/vgabios.bin; do
		[ -r "$f" ] || die "$f missing: run 'make deps' (bochsbios, vgabios)"
	done
	for t in grub-mkrescue xorriso; do
		command -v $t >/dev/null || die "$t missing: run 'make deps' (grub-pc-bin, grub-common, xorriso)"
	done
	[ -d /usr/lib/grub/i386-pc ] || die "/usr/lib/grub/i386-pc missing: run 'make deps' (grub-pc-bin)"
fi

case $modules in
stock|none) kvm_dir=$moddir/arch/x86/kvm ;;
patched) kvm_dir=$patched_dir ;;
installed) kvm_dir='' ;;
*) die "--modules must be stock, patched, installed or none, not '$modules'" ;;
esac
# A module as Debian installs it: NAME.ko (6.1) or compressed, NAME.ko.xz
# (6.12): busybox's insmod loads only plain ELF, so it is unpacked here.
module_file() {
	local f
	for f in "$1.ko" "$1.ko.xz"; do
		[ -r "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}
copy_module() {
	local src
	src=$(module_file "$1") || die "$1.ko missing"
	case $src in
	*.xz) xz -dc "$src" >"$2/$(basename "$1").ko" ;;
	*) cp "$src" "$2/" ;;
	esac
}
[ -z "$kvm_dir" ] || for m in kvm $vendor; do
	module_file "$kvm_dir/$m" >/dev/null ||
		die "$kvm_dir/$m.ko missing (patched modules: 'make kvm-modules')"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-lab.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,modules,pvsmm,results}
cp /bin/busybox "$root/bin/busybox"
# The modules in load order (kvm-amd depends on ccp; kvm-intel does not).
stock_chain() {	# DIR: Debian's modules, unpacked into DIR, and DIR/order
	local list="irqbypass kvm $vendor"
	mkdir -p "$1"
	copy_module "$moddir/virt/lib/irqbypass" "$1"
	if [ "$cpu" = amd ]; then
		copy_module "$moddir/drivers/crypto/ccp/ccp" "$1"
		list="irqbypass ccp kvm $vendor"
	fi
	copy_module "$moddir/arch/x86/kvm/kvm" "$1"
	copy_module "$moddir/arch/x86/kvm/$vendor" "$1"
	printf '%s\n' "$list" >"$1/order"
}
# What modprobe would load for $vendor on this host (its modules.dep for
# KVER): the files it names, unpacked into DIR, their paths in DIR/paths.
installed_chain() {
	local list='' path name
	mkdir -p "$1"
	: >"$1/paths"
	while read -r path; do
		name=$(basename "${path%.ko*}")
		copy_module "${path%.ko*}" "$1"
		echo "$path" >>"$1/paths"
		list="$list $name"
	done < <(modprobe -S "$kver" --show-depends "${vendor//-/_}" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p')
	[ -n "$list" ] || die "modprobe resolves no module for $vendor in $kver"
	printf '%s\n' "$list" >"$1/order"
}
case $modules in
none)
	stock_chain "$root/modules/stock"
	installed_chain "$root/modules/installed" ;;
installed)
	installed_chain "$root/modules"
	printf '%s\n' "${kvm_params[*]}" >"$root/modules/$vendor.params" ;;
*)
	stock_chain "$root/modules"
	# The patched build replaces Debian's kvm and vendor module.
	if [ "$modules" = patched ]; then
		copy_module "$kvm_dir/kvm" "$root/modules"
		copy_module "$kvm_dir/$vendor" "$root/modules"
	fi
	printf '%s\n' "${kvm_params[*]}" >"$root/modules/$vendor.params" ;;
esac

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
if [ -r /modules/order ]; then
	for m in $(cat /modules/order); do
		params=
		[ -r /modules/$m.params ] && params=$(cat /modules/$m.params)
		# shellcheck disable=SC2086
		insmod /modules/$m.ko $params || echo "LAB-ERROR insmod $m $params failed"
	done
	[ -c /dev/kvm ] || echo "LAB-ERROR /dev/kvm missing"
fi
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
# Bochs sends the serial port at its baud rate in emulated time: wait
# until the UART has sent everything (its tx count stands still).
if [ -e /modules/drain ]; then
	last=
	for _ in $(seq 100); do
		now=$(grep -m1 -o 'tx:[0-9]*' /proc/tty/driver/serial)
		[ "$now" = "$last" ] && break
		last=$now
		sleep 0.2
	done
fi
poweroff -f
INIT
chmod +x "$root/init"

[ "$cpu" = intel ] && : >"$root/modules/drain"
initrd=$work/initrd.cpio.gz
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd"
append="console=ttyS0 quiet loglevel=1 panic=-1 tsc=reliable"

# Concurrent lab runs must not share a console file: each writes its own
# and publishes it as --log when done.
console=$work/console.log
set +e
if [ "$cpu" = amd ]; then
	qemu=(qemu-system-x86_64)
	# Debian's QEMU finds SeaBIOS in /usr/share/seabios; tell another one.
	[ -n "${PVSMM_LAB_QEMU:-}" ] &&
		qemu=("$PVSMM_LAB_QEMU" -L /usr/share/seabios -L /usr/share/qemu)
	# shellcheck disable=SC2054 # commas inside QEMU's own arguments
	machine=q35
	[ -n "$sb_vars" ] && machine=q35,smm=on
	qemu+=(-machine "$machine" -cpu "${PVSMM_LAB_CPU:-EPYC,+svm,+npt}" -m "$mem" -smp "$smp"
		-nographic -nic none -no-reboot -kernel "$kernel" -initrd "$initrd"
		-append "$append")
	# Secure Boot: the variable store is writable only from SMM.
	# shellcheck disable=SC2054
	[ -n "$sb_vars" ] && qemu+=(-global driver=cfi.pflash01,property=secure,value=on
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$sb_code"
		-drive "if=pflash,format=raw,unit=1,file=$sb_vars")
	# shellcheck disable=SC2054
	[ "$icount" = 1 ] && qemu+=(-icount shift=0,sleep=off)
	[ -n "${PVSMM_LAB_MONITOR:-}" ] &&
		qemu+=(-monitor "unix:$PVSMM_LAB_MONITOR,server,nowait")
	timeout --foreground -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>&1 |
		tr -d '\r' >"$console"
	emu_rc=${PIPESTATUS[0]}
	emu=qemu
else
	# grub on a CD-ROM image: Bochs boots it with its own BIOS.  nokaslr
	# and mitigations=off: fewer instructions to boot and on every VM
	# entry (no L1D flush or VERW), the same layout every boot.
	mkdir -p "$work/iso/boot/grub"
	cp "$kernel" "$work/iso/boot/vmlinuz"
	mv "$initrd" "$work/iso/boot/initrd.gz"
	cat >"$work/iso/boot/grub/grub.cfg" <<GRUB
set timeout=0
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
menuentry l1 {
	linux /boot/vmlinuz $append nokaslr mitigations=off
	initrd /boot/initrd.gz
}
GRUB
	grub-mkrescue -o "$work/l1.iso" "$work/iso" >"$work/grub-mkrescue.log" 2>&1 ||
		{ cat "$work/grub-mkrescue.log" >&2; die "grub-mkrescue failed"; }
	# Instruction-driven time, whatever the host's speed (clock sync=none).
	# Bochs's TSC counts instructions and Linux takes the Skylake-X's TSC
	# as 3.5 GHz (from CPUID, uncalibrated); ips makes the PIT, HPET, ACPI
	# timer and CMOS (and so the LAPIC timer calibrated on them) run at the
	# same 3.5e9 instructions per second.  reset_on_triple_fault=0: a
	# triple fault in L1 stops Bochs instead of rebooting it.
	display="nogui" dbg=()
	bochs_help=$("$bochs" --help 2>&1)
	if [[ $bochs_help == *"-rc filename"* ]]; then
		# A build with the debugger (Debian's) waits for commands at the
		# start: give it "continue".  Debian's has no nogui, but RFB
		# without a client (listening on :5900).
		echo c >"$work/bochs.cmds"
		dbg=(-rc "$work/bochs.cmds")
		display='rfb, options="timeout=0"'
	fi
	cat >"$work/bochsrc" <<BOCHSRC
cpu: model=corei7_skylake_x, count=1, ips=3500000000, reset_on_triple_fault=0
memory: guest=$mem, host=$mem
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
display_library: $display
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path=$work/l1.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$work/serial.out
clock: sync=none, time0=1733280000
log: $work/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
BOCHSRC
	timeout --foreground -k 10 "$timeout_s" nice -n 10 \
		"$bochs" -q -f "$work/bochsrc" "${dbg[@]}" </dev/null >"$work/bochs.out" 2>&1
	emu_rc=$?
	: >"$console"
	[ -e "$work/serial.out" ] && tr -d '\r' <"$work/serial.out" >"$console"
	# Bochs's own log (errors, e.g. a failed VMX check) beside the console.
	mkdir -p "$(dirname "$log")"
	cp "$work/bochs.log" "$log.bochs" 2>/dev/null || :
	emu=bochs
fi
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
	{ grep -v '^qemu-system-x86_64: warning: TCG' "$console" || true; } | tail -n 30 >&2
	if [ "$emu" = bochs ]; then
		tail -n 5 "$work/bochs.out" >&2
		grep -E '^[0-9]+[pe]\[' "$work/bochs.log" 2>/dev/null | tail -n 10 >&2
	fi
	[ "$emu_rc" = 124 ] && die "timed out after ${timeout_s}s (see $log)"
	die "no result from the lab ($emu exit $emu_rc; see $log)"
fi
exit "$rc"
