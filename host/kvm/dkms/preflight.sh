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
#   - a running kernel of another package version than its headers
#     (an upgrade waiting for a reboot): the modules would not match;
#   - kernel lockdown (Secure Boot), or module.sig_enforce, without DKMS's
#     signing key enrolled: the unsigned modules would not load, and no
#     VM on the host would start.
# Prints one line per refusal; exit status 0 when it may.
#
#   host/kvm/dkms/preflight.sh KVER
# PVSMM_LOCKDOWN, PVSMM_SIG_ENFORCE, PVSMM_MOK_PUB: other files than the
# kernel's lockdown state, its sig_enforce parameter and DKMS's public
# key (tests).
set -u
[ $# = 1 ] || { echo "usage: $0 KVER" >&2; exit 2; }
kver=$1
lockdown=${PVSMM_LOCKDOWN:-/sys/kernel/security/lockdown}
sig_enforce=${PVSMM_SIG_ENFORCE:-/sys/module/module/parameters/sig_enforce}
mok=${PVSMM_MOK_PUB:-/var/lib/dkms/mok.pub}
ok=0
refuse() {
	echo "install: refused for $kver: $*" >&2
	ok=1
}

case $kver in
6.1.*-amd64) ;;	# dkms.conf's BUILD_EXCLUSIVE_KERNEL
*) refuse "the series is for Debian's 6.1 kernels, this is another; the host keeps its own KVM" ;;
esac
if [ ! -d "/lib/modules/$kver/build" ]; then
	refuse "no headers: apt-get install linux-headers-$kver"
else
	installed() {
		dpkg-query -W -f='${Status} ${Version}\n' "$1" 2>/dev/null |
			sed -n 's/^install ok installed //p'
	}
	src=$(installed linux-source-6.1)
	hdr=$(installed "linux-headers-$kver")
	if [ -z "$hdr" ]; then
		refuse "its headers are not Debian's linux-headers-$kver: the matching source cannot be told"
	elif [ -z "$src" ]; then
		refuse "no kernel source: apt-get install linux-source-6.1=$hdr"
	elif [ "$src" != "$hdr" ]; then
		refuse "linux-source-6.1 is $src, the headers are $hdr: install the same version of both"
	fi
	# The running kernel says its package version in uname -v.
	if [ -n "$hdr" ] && [ "$kver" = "$(uname -r)" ]; then
		run=$(uname -v | sed -n 's/.* Debian \([^ ]*\) .*/\1/p')
		[ -z "$run" ] || [ "$run" = "$hdr" ] ||
			refuse "the running kernel is $run, its headers $hdr: reboot into the new kernel first"
	fi
fi
if grep -q '\[integrity\]\|\[confidentiality\]' "$lockdown" 2>/dev/null ||
   grep -q '^Y' "$sig_enforce" 2>/dev/null; then
	if [ ! -e "$mok" ]; then
		refuse "this kernel loads signed modules only (lockdown or sig_enforce), and DKMS has no signing key ($mok) yet: create and enrol one as the README says (Secure Boot), then install"
	elif ! mokutil --test-key "$mok" 2>/dev/null | grep -q "already enrolled"; then
		refuse "this kernel loads signed modules only (lockdown or sig_enforce), by an enrolled key: 'mokutil --import $mok', reboot, then install"
	fi
fi
exit $ok
