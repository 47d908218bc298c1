#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Before make install replaces a host's KVM modules: may it, for kernel
# KVER?  Refuses, with the reason and what to do, rather than leave a
# host whose KVM does not load or silently is not ours:
#   - a kernel of another series than the one the series is written for
#     (Debian's 6.1: linux-source-6.1);
#   - no headers for KVER (DKMS builds against them);
#   - linux-source-6.1 of another package version than KVER's headers
#     (the modules would come from another kernel's source);
#   - kernel lockdown (Secure Boot) without DKMS's signing key enrolled:
#     the unsigned modules would not load, and no VM on the host would
#     start.
# Prints one line per refusal; exit status 0 when it may.
#
#   host/kvm/dkms/preflight.sh KVER
# PVSMM_LOCKDOWN, PVSMM_MOK_PUB: other files than the kernel's lockdown
# state and DKMS's public key (tests).
set -u
[ $# = 1 ] || { echo "usage: $0 KVER" >&2; exit 2; }
kver=$1
lockdown=${PVSMM_LOCKDOWN:-/sys/kernel/security/lockdown}
mok=${PVSMM_MOK_PUB:-/var/lib/dkms/mok.pub}
ok=0
refuse() {
	echo "install: refused for $kver: $*" >&2
	ok=1
}

case $kver in
6.1.*) ;;
*) refuse "the series is for Debian's 6.1 kernels, this is another; the host keeps its own KVM" ;;
esac
if [ ! -d "/lib/modules/$kver/build" ]; then
	refuse "no headers: apt-get install linux-headers-$kver"
else
	src=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
	hdr=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)
	if [ -z "$src" ]; then
		refuse "no kernel source: apt-get install linux-source-6.1=${hdr:-VERSION}"
	elif [ -n "$hdr" ] && [ "$src" != "$hdr" ]; then
		refuse "linux-source-6.1 is $src, the headers are $hdr: install the same version of both"
	fi
fi
if grep -q '\[integrity\]\|\[confidentiality\]' "$lockdown" 2>/dev/null; then
	if [ ! -e "$mok" ]; then
		refuse "kernel lockdown needs signed modules, and DKMS has no signing key ($mok) yet: create and enrol one as the README says (Secure Boot), then install"
	elif ! mokutil --test-key "$mok" 2>/dev/null | grep -q "already enrolled"; then
		refuse "kernel lockdown needs modules signed by an enrolled key: 'mokutil --import $mok', reboot, then install"
	fi
fi
exit $ok
