#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Before make install replaces a host's KVM modules: may it, for kernel
# KVER?  Refuses, with the reason and what to do, rather than leave a
# host whose KVM does not load or silently is not ours:
#   - a kernel of another series than those the series is written for
#     (Debian's 6.1 and 6.12, amd64);
#   - no headers for KVER (DKMS builds against them);
#   - no linux-source-<series> of the headers' package version, installed,
#     cached or downloadable (source.sh): the modules would come from
#     another kernel's source;
#   - a running kernel of another package version than its headers
#     (an upgrade waiting for a reboot): the modules would not match;
#   - kernel lockdown (Secure Boot), or module.sig_enforce, without DKMS's
#     signing key enrolled: the unsigned modules would not load, and no
#     VM on the host would start.
# Prints one line per refusal; exit status 0 when it may.
#
#   host/kvm/dkms/preflight.sh KVER
#   host/kvm/dkms/preflight.sh --signed-only   exit status 0 when this
#       kernel loads signed modules only (install.sh's check of its result)
# PVSMM_LOCKDOWN, PVSMM_SIG_ENFORCE, PVSMM_MOK_PUB: other files than the
# kernel's lockdown state, its sig_enforce parameter and DKMS's public
# key (tests).
set -u
[ $# = 1 ] || { echo "usage: $0 KVER | --signed-only" >&2; exit 2; }
kver=$1
lockdown=${PVSMM_LOCKDOWN:-/sys/kernel/security/lockdown}
sig_enforce=${PVSMM_SIG_ENFORCE:-/sys/module/module/parameters/sig_enforce}
signed_only() {
	grep -q '\[integrity\]\|\[confidentiality\]' "$lockdown" 2>/dev/null ||
		grep -q '^Y' "$sig_enforce" 2>/dev/null
}
if [ "$kver" = --signed-only ]; then
	signed_only && exit 0
	exit 1
fi
# DKMS's certificate: mok_certificate in its framework.conf (the last
# setting wins, as when DKMS sources those files), else its default.
mok_default=/var/lib/dkms/mok.pub
mok_conf=$(cat /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf 2>/dev/null |
	sed -n 's/^[[:space:]]*mok_certificate=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' | tail -n 1)
mok=${PVSMM_MOK_PUB:-${mok_conf:-$mok_default}}
ok=0
refuse() {
	echo "install: refused for $kver: $*" >&2
	ok=1
}

if ! "$(dirname "$0")/source.sh" --series "$kver" >/dev/null 2>&1; then
	refuse "the series is for Debian's 6.1 and 6.12 amd64 kernels, this is another; the host keeps its own KVM"
elif [ ! -d "/lib/modules/$kver/build" ]; then
	refuse "no headers: apt-get install linux-headers-$kver"
else
	# Where the source of the headers' version comes from, or why none
	# does (source.sh's own words).
	why=$("$(dirname "$0")/source.sh" --fetch "$kver" 2>&1 >/dev/null) ||
		refuse "${why#pvsmm-kvm: "$kver": }"
	hdr=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null) || hdr=
	# The running kernel says its package version in uname -v.
	if [ -n "$hdr" ] && [ "$kver" = "$(uname -r)" ]; then
		run=$(uname -v | sed -n 's/.* Debian \([^ ]*\) .*/\1/p')
		[ -z "$run" ] || [ "$run" = "$hdr" ] ||
			refuse "the running kernel is $run, its headers $hdr: reboot into the new kernel first"
	fi
fi
if signed_only; then
	if [ ! -e "$mok" ]; then
		refuse "this kernel loads signed modules only (lockdown or sig_enforce), and DKMS has no signing key ($mok) yet: create and enrol one as the README says (Secure Boot), then install"
	elif ! mokutil --test-key "$mok" 2>/dev/null | grep -q "already enrolled"; then
		refuse "this kernel loads signed modules only (lockdown or sig_enforce), by an enrolled key: 'mokutil --import $mok', reboot, then install"
	fi
fi
exit $ok
