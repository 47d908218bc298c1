#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check, its lab part: make install and make uninstall as an
# operator runs them (in a mount namespace of their own, below), and what
# they leave tried on a Secure Boot host with kernel lockdown -- the lab's
# L1 (Debian's 6.1) booted by UEFI with Secure Boot on:
#
#   1. make install, over an earlier version registered with DKMS (which
#      it replaces): DKMS builds and signs for every installed 6.1 and
#      6.12 kernel; modinfo names DKMS's key as the signer of kvm,
#      kvm-amd and kvm-intel, and modprobe resolves them in updates/dkms.
#   2. Boot A, DKMS's key not enrolled: Debian's modules load, DKMS's are
#      refused (lockdown: what preflight.sh guards against).  L1 then
#      enrols the key, as mokutil and the firmware would: an append to the
#      firmware's db, signed with the KEK (the lab's stand-in for MOK:
#      without shim there is no MokList, and Debian's kernel trusts db's
#      certificates for modules through its platform keyring).
#   3. Boot B, key enrolled: DKMS's modules load, and pvsmm reflects.
#   4. make uninstall; modprobe resolves Debian's modules again.
#   5. Boot C: those load, and pvsmm's reflection is gone.
#
# The firmware is Debian's OVMF with Secure Boot and its snakeoil keys
# (PK, KEK and db: /usr/share/ovmf/PkKek-1-snakeoil.*, password
# "snakeoil"), so the kernel image is re-signed with that key.
#
# make install and make uninstall run for real, as root, but in a mount
# namespace of their own where /lib/modules, /usr/src, /var/lib/dkms and
# /var/cache are overlays on a scratch directory: this machine's own
# never change (its modprobe never sees the test's modules), DKMS's
# signing key made for the test goes with the rest, and nothing of it
# outlives the test, however it ends.  It refuses to run where
# pvsmm-kvm is installed, which would be replaced in what it tests.
#
#   host/kvm/dkms/lab-check.sh VERSION
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
top=$(cd "$(dirname "$0")/../../.." && pwd)
fail() { echo "dkms-lab-check: FAIL: $*" >&2; exit 1; }
say() { echo "dkms-lab-check: $*"; }

[ "$(id -u)" = 0 ] || fail "run it as root: it runs make install and make uninstall"
for t in dkms modprobe modinfo chattr openssl sbsign cert-to-efi-sig-list sign-efi-sig-list unshare; do
	command -v $t >/dev/null || fail "$t missing: run 'make deps'"
done
if [ -z "${PVSMM_DKMS_LAB_NS:-}" ]; then
	PVSMM_DKMS_LAB_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
[ -z "$(dkms status -m pvsmm-kvm 2>/dev/null)" ] ||
	fail "pvsmm-kvm is installed here (dkms status): 'make uninstall' first"
snakeoil=/usr/share/ovmf/PkKek-1-snakeoil
vars=/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd
for f in "$snakeoil.key" "$snakeoil.pem" "$vars"; do
	[ -r "$f" ] || fail "$f missing: run 'make deps' (ovmf)"
done
for f in build/host/pvsmm-vmm build/firmware/pvsmm-fw.bin; do
	[ -e "$top/$f" ] || fail "$f missing: run 'make'"
done
kver=$("$top/tools/kver.sh" 6.1) || fail "no lab kernel: run 'make deps'"
kvers=$kver
kver612=$("$top/tools/kver.sh" 6.12 2>/dev/null) && kvers="$kvers $kver612"
db="db-d719b2cb-3d3a-4596-a3bc-dad00e67656f"	# EFI_IMAGE_SECURITY_DATABASE_GUID
make_pvsmm() { make -s -C "$top" "$@" PVSMM_KVM_VERSION="$version" DESTDIR="$work/dest"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-sb.XXXXXX")
# The overlays: what make install writes lands in $work.  Should this
# script be killed, the mounts end with its namespace.
overlaid=
trap 'for d in $overlaid; do umount "$d"; done; rm -rf "$work"' EXIT
for d in /lib/modules /usr/src /var/lib/dkms /var/cache; do
	o=$work/overlay/${d//\//_}
	mkdir -p "$o/upper" "$o/work"
	mount -t overlay pvsmm-dkms-check -o "lowerdir=$d,upperdir=$o/upper,workdir=$o/work" "$d" ||
		fail "cannot overlay $d (this test needs overlayfs and mount namespaces)"
	overlaid="$d $overlaid"
done

# The firmware's keys, the kernel signed with them, a variable store of
# our own (boots A and B share it: what A enrols, B finds).
openssl pkey -in "$snakeoil.key" -passin pass:snakeoil -out "$work/kek.key"
sbsign --key "$work/kek.key" --cert "$snakeoil.pem" \
	--output "$work/vmlinuz" "/boot/vmlinuz-$kver" 2>/dev/null
cp "$vars" "$work/vars.fd"

# 1. make install, as the README says, for the lab's kernel (not this
# machine's, which may be of no supported series), over an earlier
# version registered with DKMS, which it must replace.
old=0.9.$$
"$top/host/kvm/dkms/stage.sh" "$old" "/usr/src/pvsmm-kvm-$old"
dkms add -m pvsmm-kvm -v "$old" >/dev/null
make_pvsmm install KVER="$kver" || fail "make install failed"
[ -z "$(dkms status -m pvsmm-kvm -v "$old")" ] && [ ! -e "/usr/src/pvsmm-kvm-$old" ] ||
	fail "make install left the earlier pvsmm-kvm $old registered"
for k in $kvers; do
	grep -q ': installed' <<<"$(dkms status -m pvsmm-kvm -v "$version" -k "$k")" ||
		fail "make install did not install pvsmm-kvm for $k"
done
cn=$(openssl x509 -inform DER -in /var/lib/dkms/mok.pub -noout -subject -nameopt multiline |
	sed -n 's/^ *commonName *= //p')
[ -n "$cn" ] || fail "DKMS's key /var/lib/dkms/mok.pub has no common name"
for k in $kvers; do
	for m in kvm kvm_amd kvm_intel; do
		f=$(modinfo -k "$k" -n $m)
		case $f in */updates/dkms/*) ;; *) fail "$k: modprobe finds $m at $f, not DKMS's" ;; esac
		signer=$(modinfo -k "$k" -F signer $m)
		[ "$signer" = "$cn" ] || fail "$k: $f is signed by '$signer', not DKMS's key '$cn'"
		v=$(modinfo -k "$k" -F version $m)
		[ "$v" = "pvsmm-$version" ] || fail "$k: $f has version '$v', not pvsmm-$version"
	done
	say "$k: kvm, kvm_amd, kvm_intel pvsmm-$version from updates/dkms, signed by '$cn'"
done

# The enrolment: an authenticated append to db, as efivarfs takes it
# (attributes NV|BS|RT|TIME_BASED_AUTHENTICATED_WRITE|APPEND_WRITE, then
# the signed list).
openssl x509 -inform DER -in /var/lib/dkms/mok.pub -out "$work/dkms.pem"
cert-to-efi-sig-list -g 3d0b7a7e-7e3b-4c4c-9b4e-70766d6d0001 \
	"$work/dkms.pem" "$work/dkms.esl" >/dev/null
sign-efi-sig-list -a -k "$work/kek.key" -c "$snakeoil.pem" db \
	"$work/dkms.esl" "$work/dkms.auth" >/dev/null
{ printf '\x67\x00\x00\x00'; cat "$work/dkms.auth"; } >"$work/db-append"

# What L1 runs: PHASE is enrol (boot A), enrolled (B) or restored (C).
cat >"$work/l1.sh" <<L1
phase=\$1
fail() { echo "FAIL: \$*"; exit 1; }
mount -t securityfs none /sys/kernel/security
insmod /pvsmm/efivarfs.ko || fail "efivarfs does not load"
mount -t efivarfs none /sys/firmware/efi/efivars || fail "no efivarfs"
lockdown=\$(cat /sys/kernel/security/lockdown)
case \$lockdown in *"[integrity]"*|*"[confidentiality]"*) ;;
*) fail "no lockdown under Secure Boot: \$lockdown" ;; esac
echo "lockdown: \$lockdown"
load() {	# DIR: its modules in order, then /dev/kvm
	for m in \$(cat \$1/order); do
		insmod \$1/\$m.ko 2>/tmp/insmod.err ||
			{ echo "insmod \$m refused: \$(cat /tmp/insmod.err)"; return 1; }
	done
	[ -c /dev/kvm ]
}
unload() { for m in kvm_amd kvm ccp irqbypass; do rmmod \$m 2>/dev/null; done; :; }
reflect() {
	/pvsmm/pvsmm-vmm --firmware /pvsmm/pvsmm-fw.bin --pmtimer=reflect \
		--reads 1000 --check-reads 1000 >/tmp/vmm.out 2>&1
}
case \$phase in
enrol)
	grep -q /updates/dkms/kvm.ko /modules/installed/paths ||
		fail "modprobe does not resolve DKMS's kvm.ko: \$(cat /modules/installed/paths)"
	load /modules/installed && fail "DKMS's modules loaded with their key not enrolled"
	# Debian's Secure Boot kernel enforces module signatures (an unknown
	# key is rejected), lockdown alone restricts unsigned modules.
	dmesg | grep -qE "Loading of module with unavailable key is rejected|Lockdown: .*unsigned module loading is restricted" ||
		fail "DKMS's modules were refused, but not by lockdown: \$(dmesg | tail -3)"
	unload
	load /modules/stock || fail "Debian's modules do not load"
	unload
	echo "Debian's modules load; DKMS's are refused"
	# efivarfs makes variables the firmware needs immutable.
	chattr -i /sys/firmware/efi/efivars/$db || fail "chattr -i $db"
	dd if=/pvsmm/db-append of=/sys/firmware/efi/efivars/$db bs=65536 \
		conv=notrunc 2>/dev/null || fail "db append refused"
	echo "DKMS's key appended to db" ;;
enrolled)
	grep -q /updates/dkms/kvm.ko /modules/installed/paths || fail "not DKMS's kvm.ko"
	dmesg | grep -qF "Loaded X.509 cert '$cn" ||
		fail "the kernel did not load DKMS's key from db"
	load /modules/installed || fail "DKMS's modules refused with their key enrolled"
	reflect || { cat /tmp/vmm.out; fail "pvsmm's reflection does not work"; }
	grep PVSMM-SELFTEST /tmp/vmm.out
	echo "DKMS's modules load, and pvsmm reflects" ;;
restored)
	grep -q /updates/ /modules/installed/paths &&
		fail "after make uninstall modprobe still resolves \$(cat /modules/installed/paths)"
	load /modules/installed || fail "Debian's modules do not load after make uninstall"
	reflect && fail "pvsmm's reflection works with Debian's modules"
	grep -q "needs KVM_CAP_PVSMM_REFLECT" /tmp/vmm.out ||
		{ cat /tmp/vmm.out; fail "pvsmm-vmm failed for another reason than KVM's lack of pvsmm"; }
	echo "Debian's modules load after make uninstall; no reflection" ;;
esac
L1

boot() {	# NAME PHASE: one L1 boot under Secure Boot
	if ! "$top/tests/lab/run-in-lab.sh" --secure-boot "$work/vars.fd" \
		--kernel "$work/vmlinuz" --modules none --timeout 900 \
		--log "$top/build/lab/dkms-$1.log" \
		--add "$work/l1.sh:/pvsmm/sb-l1.sh" --add "$work/db-append:/pvsmm/db-append" \
		--add "/lib/modules/$kver/kernel/fs/efivarfs/efivarfs.ko:/pvsmm/efivarfs.ko" \
		--add-binary "$(command -v chattr):/bin/chattr" \
		-- sh /pvsmm/sb-l1.sh "$2" | sed "s/^/dkms-lab-check: boot $1: /"; then
		fail "boot $1 ($2) failed: see build/lab/dkms-$1.log"
	fi
}
# 2, 3.
boot A enrol
boot B enrolled

# 4. make uninstall.
make_pvsmm uninstall || fail "make uninstall failed"
[ -z "$(dkms status -m pvsmm-kvm 2>/dev/null)" ] || fail "make uninstall left pvsmm-kvm in DKMS"
[ ! -e "/usr/src/pvsmm-kvm-$version" ] || fail "make uninstall left /usr/src/pvsmm-kvm-$version"
for k in $kvers; do
	for m in kvm kvm_amd kvm_intel; do
		f=$(modinfo -k "$k" -n $m)
		case $f in */kernel/arch/x86/kvm/*) ;; *) fail "$k: after make uninstall modprobe finds $m at $f" ;; esac
	done
done
say "make uninstall: DKMS has no pvsmm-kvm, modprobe finds Debian's modules for $kvers"

# 5.
boot C restored
say "PASS: make install signs with DKMS's key; under Secure Boot its modules load only once the key is enrolled; make uninstall gives the distribution's modules back"
