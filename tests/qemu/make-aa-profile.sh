#!/bin/sh
# SPDX-License-Identifier: MIT
# The AppArmor policy Debian 12's libvirt would load for pvsmm-shim.xml,
# for the lab's apparmor modes (tests/qemu/l1-run.sh): libvirt's own
# virt-aa-helper (package libvirt-daemon, tools/install-deps.sh's set
# libvirt) writes the domain's profile from the domain XML, against the
# profiles and abstractions of Debian's libvirt-daemon-system and apparmor
# packages, which are downloaded (apt-get download) and unpacked here, not
# installed: installing them would start libvirt's daemons and load
# policy into this machine.
#
# virt-aa-helper writes to /etc/apparmor.d/libvirt/ and loads what it wrote
# with /sbin/apparmor_parser: it runs in a mount namespace of its own,
# where /etc/apparmor.d is build/qemu/apparmor/etc/apparmor.d and
# apparmor_parser compiles the profile without loading it (this machine
# has no AppArmor; L1 loads it).  The domain is pvsmm-shim.xml as an
# operator adapts it: a UUID (libvirt makes one at define), and the lab's
# L2 disk (l2.iso, raw) in place of the qcow2 image.
#
# Output, under build/qemu/apparmor/: etc/apparmor.d (the tree for L1, the
# local abstraction empty), apparmor_parser, profile (the profile's name).
# Needs root (unshare, mount).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/qemu/apparmor
uuid=2b6ed4a0-6e2c-4c5b-9d33-7076736d6d01
profile=libvirt-$uuid
helper=/usr/lib/libvirt/virt-aa-helper
[ -x $helper ] || { echo "make-aa-profile: no $helper: tools/install-deps.sh libvirt" >&2; exit 1; }

mkdir -p "$out/debs"
for p in apparmor libvirt-daemon-system; do
	ls "$out/debs/${p}_"*.deb >/dev/null 2>&1 ||
		(cd "$out/debs" && apt-get download "$p" >/dev/null 2>"$out/apt.log") ||
		{ cat "$out/apt.log" >&2; exit 1; }
done
rm -rf "${out:?}/root" "${out:?}/etc" "${out:?}/sbin"
for d in "$out"/debs/*.deb; do dpkg-deb -x "$d" "$out/root"; done
mkdir -p "$out/etc" "$out/sbin"
cp -r "$out/root/etc/apparmor.d" "$out/etc/apparmor.d"
cp "$out/root/sbin/apparmor_parser" "$out/apparmor_parser"
# Debian's postinst creates the local abstraction (empty); the operator's
# rules go there (host/libvirt/README.md).
mkdir -p "$out/etc/apparmor.d/local/abstractions"
: >"$out/etc/apparmor.d/local/abstractions/libvirt-qemu"

# The apparmor_parser virt-aa-helper runs (-a FILE): compile, don't load.
cat >"$out/sbin/apparmor_parser" <<PARSER
#!/bin/sh
exec "$out/apparmor_parser" --skip-kernel-load --config-file=/dev/null "\$@" 2>>"$out/parser.log"
PARSER
chmod +x "$out/sbin/apparmor_parser"
: >"$out/parser.log"

sed -e "s|<name>pvsmm-guest</name>|&\n  <uuid>$uuid</uuid>|" \
	-e "s|type='qcow2'|type='raw'|" \
	-e "s|/var/lib/libvirt/images/pvsmm-guest.qcow2|/pvsmm/l2.iso|" \
	"$top/host/libvirt/pvsmm-shim.xml" >"$out/domain.xml"
grep -q "<uuid>$uuid</uuid>" "$out/domain.xml"
grep -q "/pvsmm/l2.iso" "$out/domain.xml"
# /sbin is /usr/sbin on Debian 12: the wrapper goes over it.
unshare -m sh -c "mount --bind '$out/etc/apparmor.d' /etc/apparmor.d &&
	mount -t overlay overlay -o 'lowerdir=$out/sbin:/usr/sbin' /usr/sbin &&
	$helper -c -u $profile <'$out/domain.xml'" 2>"$out/helper.log" || {
	cat "$out/helper.log" "$out/parser.log" >&2
	echo "make-aa-profile: virt-aa-helper failed" >&2
	exit 1
}
[ -s "$out/etc/apparmor.d/libvirt/$profile" ] &&
	[ -s "$out/etc/apparmor.d/libvirt/$profile.files" ] || {
	echo "make-aa-profile: virt-aa-helper wrote no profile" >&2
	exit 1
}
echo "$profile" >"$out/profile"
