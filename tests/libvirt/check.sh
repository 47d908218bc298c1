#!/bin/sh
# SPDX-License-Identifier: MIT
# The domain XML of host/libvirt/ against Debian 12's libvirt 9.0, with
# libvirt's own tools and no KVM: the schema (virt-xml-validate), then the
# QEMU command line libvirt would start (virsh domxml-to-native, through
# the embedded QEMU driver, so that no daemon runs): the firmware's ROM,
# the shim's environment and ACPI (the PM timer's) must all be there.
#   pvsmm-shim.xml  SeaBIOS: the legacy option ROM (-option-rom)
#   pvsmm-ovmf.xml  OVMF: the UEFI driver's PCI ROM on a virtio RNG
#                   (romfile=, through <qemu:override>)
#   pvsmm-accel.xml the patched QEMU through the wrapper qemu-pvsmm
#
# The embedded driver wants the user libvirt-qemu that Debian's
# libvirt-daemon-system creates; without that package the conversion runs
# in a private mount namespace whose passwd and group name it.  The
# domain's type becomes 'qemu' there, since this machine need not have
# /dev/kvm: libvirt then writes -accel tcg, the rest is the same.
#
# Usage: tests/libvirt/check.sh   (as root; prints "libvirt: N passed, M failed")
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
pass=0 fail=0
check() {
	if [ "$2" = 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1${3:+: $3}"
		fail=$((fail + 1))
	fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/etc"
cp /etc/passwd "$work/passwd"
cp /etc/group "$work/group"
getent passwd libvirt-qemu >/dev/null ||
	echo 'libvirt-qemu:x:64055:64055::/var/lib/libvirt:/usr/sbin/nologin' >>"$work/passwd"
getent group libvirt-qemu >/dev/null || echo 'libvirt-qemu:x:64055:' >>"$work/group"
getent group kvm >/dev/null || echo 'kvm:x:64056:' >>"$work/group"
# to_native XML: the command line libvirt would run for it (type qemu).
to_native() {
	sed "s/<domain type='kvm'/<domain type='qemu'/" "$1" >"$work/domain.xml"
	unshare -m sh -c '
		mount --bind "$1/passwd" /etc/passwd &&
		mount --bind "$1/group" /etc/group &&
		virsh -q -c "qemu:///embed?root=$1/root" domxml-to-native \
			qemu-argv "$1/domain.xml"' sh "$work" 2>&1
}
# acpi_off ARGV: true when the command line turns ACPI off (libvirt 9.0
# writes -no-acpi; later ones write acpi=off in -machine).
acpi_off() {
	case " $1 " in
	*" -no-acpi "* | *",acpi=off"*) return 0 ;;
	*) return 1 ;;
	esac
}
has() {
	case " $argv " in
	*"$2"*) check "$1" 0 ;;
	*) check "$1" 1 "no '$2' in: $argv" ;;
	esac
}
# domain XML ROM-CHECK ROM-TEXT: what every domain must give QEMU, and
# its firmware's ROM, as the command line writes it.
domain() {
	xml=$top/host/libvirt/$1
	out=$(virt-xml-validate "$xml" domain 2>&1)
	check "virt-xml-validate: $1 is a valid domain" $? "$out"
	argv=$(to_native "$xml")
	check "$1: virsh domxml-to-native: libvirt accepts it" $? "$argv"
	has "$1: the shim preloaded" \
		" LD_PRELOAD=/usr/local/lib/pvsmm/libpvsmm-preload.so "
	has "$1: the shim reflects q35's PM timer port" " PVSMM_PORTS=0x608 "
	has "$1: $2" "$3"
	case " $argv " in
	*" -machine pc-q35-"*) ! acpi_off "$argv"
		check "$1: ACPI on (the PM timer exists) on q35" $? "$argv" ;;
	*) check "$1: ACPI on (the PM timer exists) on q35" 1 \
		"no q35 machine in: $argv" ;;
	esac
	# The same domain without <acpi/>: this check must see ACPI off
	# there, or libvirt refuse the domain (UEFI needs ACPI).
	sed "/<acpi\/>/d" "$xml" >"$work/no-acpi.xml"
	out=$(to_native "$work/no-acpi.xml")
	case $out in
	*"UEFI requires ACPI"*) check "$1: without <acpi/>, libvirt refuses it" 0 ;;
	*) acpi_off "$out"
	   check "$1: without <acpi/>, the check sees ACPI off" $? "$out" ;;
	esac
}
domain pvsmm-shim.xml "the option ROM" \
	" -option-rom /usr/local/share/pvsmm/pvsmm.rom "
domain pvsmm-ovmf.xml "the UEFI driver's PCI ROM" \
	'"romfile":"/usr/local/share/pvsmm/pvsmm-efi.rom"}'
# ... on the RNG device (one -device JSON object, the ROM in it).
rng=$(printf '%s\n' "$argv" | tr ' ' '\n' | grep '"driver":"virtio-rng-pci"' | grep '"id":"ua-pvsmm-rng"')
case $rng in
*'"romfile":"/usr/local/share/pvsmm/pvsmm-efi.rom"'*) check "pvsmm-ovmf.xml: the ROM is the RNG's" 0 ;;
*) check "pvsmm-ovmf.xml: the ROM is the RNG's" 1 "RNG device: ${rng:-none}" ;;
esac
has "pvsmm-ovmf.xml: OVMF as the firmware" \
	'"filename":"/usr/share/OVMF/OVMF_CODE_4M.fd"'

# The patched QEMU's domain: its emulator is the wrapper qemu-pvsmm.  For
# libvirt's capability probe the wrapper here runs Debian's QEMU (the
# patched one is not built by make check, and libvirt runs the emulator
# with its own environment); then the wrapper itself, given the command
# line libvirt wrote with -accel kvm, must add pvsmm=on and change
# nothing else.
xml=$top/host/libvirt/pvsmm-accel.xml
out=$(virt-xml-validate "$xml" domain 2>&1)
check "virt-xml-validate: pvsmm-accel.xml is a valid domain" $? "$out"
sed "s|^qemu=.*|qemu=/usr/bin/qemu-system-x86_64|" "$top/host/libvirt/qemu-pvsmm" >"$work/qemu-pvsmm"
chmod 755 "$work/qemu-pvsmm"
sed "s|<emulator>.*</emulator>|<emulator>$work/qemu-pvsmm</emulator>|" "$xml" >"$work/accel.xml"
argv=$(to_native "$work/accel.xml")
check "pvsmm-accel.xml: virsh domxml-to-native: libvirt accepts the wrapper" $? "$argv"
has "pvsmm-accel.xml: the wrapper is the emulator" " $work/qemu-pvsmm -name "
has "pvsmm-accel.xml: the option ROM" " -option-rom /usr/local/share/pvsmm/pvsmm.rom "
case " $argv " in
*LD_PRELOAD*) check "pvsmm-accel.xml: no shim" 1 "$argv" ;;
*) check "pvsmm-accel.xml: no shim" 0 ;;
esac
# What the wrapper runs: each argument on a line of its own.
printf '#!/bin/sh\nprintf "%%s\\n" "$@"\n' >"$work/print-args"
chmod 755 "$work/print-args"
kvm_argv=$(printf '%s\n' "$argv" | sed 's/ -accel tcg / -accel kvm /')
# qemu_args CMD [ARG]: runs CMD [ARG] with QEMU's arguments from
# libvirt's line, the environment assignments and the emulator left out.
qemu_args() {
	cmd=$1 arg=${2-}
	eval "set -- $kvm_argv"
	while [ $# -gt 0 ] && [ "${1#*=}" != "$1" ]; do
		shift
	done
	shift
	"$cmd" ${arg:+"$arg"} "$@"
}
wrapped=$(export PVSMM_QEMU="$work/print-args"
	qemu_args "$top/host/libvirt/qemu-pvsmm")
expected=$(qemu_args printf '%s\n' | sed 's/^kvm$/kvm,pvsmm=on/')
[ -n "$wrapped" ] && [ "$wrapped" = "$expected" ] && [ "$(printf '%s\n' "$wrapped" | grep -cx 'kvm,pvsmm=on')" = 1 ]
check "qemu-pvsmm: libvirt's -accel kvm becomes kvm,pvsmm=on, nothing else changes" $? "$wrapped"
wrapped=$(PVSMM_QEMU=$work/print-args PVSMM_ACCEL_PROPS=pvsmm=on,pvsmm-window=on \
	"$top/host/libvirt/qemu-pvsmm" -machine none -accel kvm -accel tcg | tr '\n' ' ')
[ "$wrapped" = "-machine none -accel kvm,pvsmm=on,pvsmm-window=on -accel tcg " ]
check "qemu-pvsmm: PVSMM_ACCEL_PROPS, and -accel tcg left alone" $? "$wrapped"
wrapped=$(PVSMM_QEMU=$work/print-args "$top/host/libvirt/qemu-pvsmm" \
	--accel kvm -accel kvm,pvsmm=off | tr '\n' ' ')
[ "$wrapped" = "--accel kvm,pvsmm=on -accel kvm,pvsmm=off " ]
check "qemu-pvsmm: --accel too; a pvsmm property already there is kept" $? "$wrapped"
# make install's copy runs the QEMU under PREFIX.
make -s -C "$top" -n install PREFIX=/opt/x 2>/dev/null | grep -q "qemu=\${PVSMM_QEMU:-/opt/x/lib/pvsmm/qemu-system-x86_64}"
check "make install: the wrapper names the QEMU under PREFIX" $?
out=$(PVSMM_QEMU=$work/no-such-qemu "$top/host/libvirt/qemu-pvsmm" -accel kvm 2>&1)
rc=$?
[ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	case $out in *"no patched QEMU at $work/no-such-qemu"*) true ;; *) false ;; esac
check "qemu-pvsmm: no patched QEMU, one clear line" $? "rc=$rc: $out"

# The AppArmor rules (host/libvirt/apparmor-libvirt-qemu) name the paths
# the XML uses.
for f in /usr/local/lib/pvsmm/libpvsmm-preload.so /usr/local/share/pvsmm/pvsmm.rom \
	 /usr/local/share/pvsmm/pvsmm-efi.rom; do
	grep -q "^  $f m\{0,1\}r,$" "$top/host/libvirt/apparmor-libvirt-qemu"
	check "AppArmor rule for $f" $?
done
for f in /usr/local/lib/pvsmm/qemu-pvsmm /usr/local/lib/pvsmm/qemu-system-x86_64; do
	grep -q "^  $f m\{0,1\}rix,$" "$top/host/libvirt/apparmor-libvirt-qemu"
	check "AppArmor rule to run $f" $?
done

echo "libvirt: $pass passed, $fail failed"
[ "$fail" = 0 ]
