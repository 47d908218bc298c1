#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The firmwares' private regions against the host's rules: each firmware
# builds its region under plain QEMU (no pvsmm host, nothing registered),
# QEMU dumps the guest's RAM, and build/tests/region-check validates the
# region with the VMM's own descriptor validation (host/vmm/descriptor.c: W^X,
# supervisor-only, 4 KiB leaves and no NX in the 32-bit tables, the
# per-vCPU areas at their GPAs, GDT/IDT, loops).
#
#   wx-selftest   the self-test image (its region at PVSMM_FW_PRIVATE_GPA)
#   wx-optionrom  the option ROM's test image under SeaBIOS (q35, 4 vCPUs;
#                 its region where SeaBIOS's PMM put it, from the ROM's
#                 line; no VGA, so that SeaBIOS copies INT 10h to COM1)
#   rom-initrd    the same under -kernel/-initrd; rom-initrd-e820: Linux's
#                 E820 map reserves it, and the initrd lies below it
#   wx-uefi       the UEFI driver's test image under OVMF (q35), loaded
#                 from the UEFI shell's startup.nsh; the region where
#                 OVMF's AllocatePages put it, from the driver's line
#   wx-uefi-rom   the same image as a PCI option ROM (pvsmm-test-efi.rom,
#                 romfile= of a virtio-rng device): OVMF loads it by
#                 itself, with no ESP and no boot variable
# (The driver's builder, firmware/uefi/region.h, is also validated by the
# VMM's unit tests, tests/unit/desc.c.)
#
# Usage: firmware/region-check.sh   (from the repository root)
set -eu

OUT=build/firmware
QEMU=${QEMU:-qemu-system-x86_64}
make -s -C firmware all
make -s -C firmware/optionrom test-image
make -s -C firmware/uefi test-image
make -s build/tests/region-check

fail=0
# dump NAME PATTERN QEMU-ARGS...: boots, waits for the serial line with
# PATTERN to end, dumps the first 256 MiB of RAM to $OUT/NAME.ram, quits.
dump() {
	name=$1 pattern=$2
	shift 2
	log=$OUT/$name.log sock=$OUT/$name.sock
	rm -f "$log" "$sock" "$OUT/$name.ram"
	"$QEMU" -nographic -vga none -no-reboot -m 256 -serial "file:$log" \
		-monitor "unix:$sock,server,nowait" "$@" >/dev/null 2>&1 &
	pid=$!
	python3 - "$log" "$sock" "$pattern" "$OUT/$name.ram" <<'PY' || kill "$pid"
import os, socket, sys, time
log, sock, pattern, ram = sys.argv[1:]
deadline = time.time() + 300
while time.time() < deadline:
    # The whole line: the serial port writes it a byte at a time, and a
    # VM stopped mid-line leaves region_base a truncated address.
    text = open(log, errors="replace").read() if os.path.exists(log) else ""
    at = text.find(pattern)
    if at >= 0 and "\n" in text[at:]:
        break
    time.sleep(0.2)
else:
    sys.exit("no '%s' on the serial line" % pattern)
s = socket.socket(socket.AF_UNIX)
s.connect(sock)
s.sendall(b"stop\npmemsave 0 0x10000000 %s\nquit\n" % ram.encode())
s.settimeout(60)
try:
    while s.recv(4096):
        pass
except OSError:
    pass
PY
	wait "$pid" || true
	rm -f "$sock"
}

check() {
	name=$1 base=$2
	if [ -s "$OUT/$name.ram" ] &&
	   out=$(build/tests/region-check "$OUT/$name.ram" "$base"); then
		echo "PASS $name: $out"
		rm -f "$OUT/$name.ram"
	else
		echo "FAIL $name: ${out:-no dump} (log $OUT/$name.log)"
		fail=1
	fi
}

# region_base LOG: the region's GPA from the firmware's "N vCPU areas at
# BASE" line (the first), 0 if there is none.
region_base() {
	base=$(tr -d '\r' <"$1" |
		sed -n 's/.*vCPU areas at \(0x\)\{0,1\}\([0-9a-fA-F]*\).*/0x\2/p' |
		head -n 1)
	echo "${base:-0}"
}

base=$(sed -n 's/^%define PVSMM_FW_PRIVATE_GPA *//p' include/pvsmm/abi.inc)
dump wx-selftest PVSMM-SELFTEST -bios "$OUT/pvsmm-fw.bin"
check wx-selftest "$base"

dump wx-optionrom "vCPU areas at" -machine q35 -smp 4 \
	-option-rom "$OUT/pvsmm-rom-test.rom"
check wx-optionrom "$(region_base "$OUT/wx-optionrom.log")"

# Under -kernel/-initrd (a 40 MB initrd) the region is a permanent PMM
# allocation as without, and QEMU's boot ROM loads the initrd below it
# (below the top of RAM that E801 reports, which SeaBIOS lowers below its
# reservations; optionrom/region.asm): the region as above, then in the
# map Linux prints, a reserved entry must hold the region and the initrd
# must end below it.
ird=$OUT/rom-initrd.img
head -c 40000000 /dev/zero >"$ird"
kernel=/boot/vmlinuz-$(tools/kver.sh)
dump rom-initrd "vCPU areas at" -machine q35 -smp 4 \
	-option-rom "$OUT/pvsmm-rom-test.rom" -kernel "$kernel" -initrd "$ird"
check rom-initrd "$(region_base "$OUT/rom-initrd.log")"
log=$OUT/rom-initrd-e820.log
rm -f "$log"
"$QEMU" -nographic -vga none -no-reboot -m 256 -serial "file:$log" \
	-monitor none -machine q35 -smp 4 -option-rom "$OUT/pvsmm-rom-test.rom" \
	-kernel "$kernel" -initrd "$ird" -append console=ttyS0 >/dev/null 2>&1 &
pid=$!
i=0
until grep -q "RAMDISK:\|(boot from disk)" "$log" 2>/dev/null ||
      [ $i -ge 1500 ]; do
	i=$((i + 1))
	sleep 0.2
done
kill "$pid" 2>/dev/null || true
wait "$pid" || true
rm -f "$ird"
percpu=$(sed -n 's/^%define PVSMM_REGION_PERCPU *//p' include/pvsmm/abi.inc)
# This boot's own region (the ROM prints it here too).
e820_base=$(region_base "$log")
if python3 - "$log" "${e820_base:-0}" "$((percpu + 4 * 4096))" <<'PY'; then
import re, sys
text = open(sys.argv[1], errors="replace").read()
base, size = int(sys.argv[2], 16), int(sys.argv[3])
m = {(int(a, 16), int(b, 16) + 1): t for a, b, t in re.findall(
    r"BIOS-e820: \[mem (0x[0-9a-f]+)-(0x[0-9a-f]+)\] (\w+)", text)}
rd = re.search(r"RAMDISK: \[mem (0x[0-9a-f]+)-(0x[0-9a-f]+)\]", text)
held = [(s, e) for (s, e), t in m.items()
        if t == "reserved" and s <= base and base + size <= e]
ok = bool(base and held and rd and int(rd.group(2), 16) < base)
print("%s rom-initrd-e820: region [%#x, %#x) in reserved %s, %s" % (
    "PASS" if ok else "FAIL", base, base + size,
    " ".join("[%#x, %#x)" % h for h in held) or "nothing",
    rd and rd.group(0)))
sys.exit(0 if ok else 1)
PY
	:
else
	echo "  (log $log)"
	fail=1
fi

ovmf=/usr/share/OVMF
esp=$OUT/wx-uefi-esp
rm -rf "$esp"
mkdir -p "$esp"
cp "$OUT/pvsmm-test.efi" "$esp/"
printf '%s\r\n' "fs0:" "load pvsmm-test.efi" >"$esp/startup.nsh"
cp "$ovmf/OVMF_VARS_4M.fd" "$OUT/wx-uefi-vars.fd"
# No NIC: OVMF would try PXE and HTTP boot, minutes of timeouts, before
# the shell that runs startup.nsh.
dump wx-uefi "vCPU areas at" -machine q35 -net none \
	-drive "if=pflash,format=raw,readonly=on,file=$ovmf/OVMF_CODE_4M.fd" \
	-drive "if=pflash,format=raw,file=$OUT/wx-uefi-vars.fd" \
	-drive "file=fat:rw:$esp,format=raw"
check wx-uefi "$(region_base "$OUT/wx-uefi.log")"

# The same driver as a PCI option ROM on a virtio-rng device, and nothing
# else: no ESP, no startup.nsh, no Driver#### variable, fresh variables.
# OVMF runs it while it enumerates PCI, before it connects its consoles,
# so its line comes again at ReadyToBoot: here when OVMF, finding nothing
# else to boot, starts its shell.
cp "$ovmf/OVMF_VARS_4M.fd" "$OUT/wx-uefi-vars.fd"
dump wx-uefi-rom "vCPU areas at" -machine q35 -net none \
	-drive "if=pflash,format=raw,readonly=on,file=$ovmf/OVMF_CODE_4M.fd" \
	-drive "if=pflash,format=raw,file=$OUT/wx-uefi-vars.fd" \
	-device "virtio-rng-pci,romfile=$OUT/pvsmm-test-efi.rom"
check wx-uefi-rom "$(region_base "$OUT/wx-uefi-rom.log")"

exit $fail
