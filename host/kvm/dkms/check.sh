#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: the DKMS package builds against the installed headers.
# dkms add + build + remove, with DKMS's source and module trees in a
# temporary directory, so that neither /usr/src, /var/lib/dkms nor
# /lib/modules change -- and a signing key DKMS creates for the occasion
# (it does so when none exists) is removed again.
#
#   host/kvm/dkms/check.sh VERSION
set -eu
[ $# = 1 ] || { echo "usage: $0 VERSION" >&2; exit 2; }
version=$1
top=$(cd "$(dirname "$0")/../../.." && pwd)
command -v dkms >/dev/null || { echo "dkms-check: dkms is missing: run 'make deps'" >&2; exit 1; }
kver=$("$top/tools/kver.sh")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pvsmm-dkms.XXXXXX")
keys=""
for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
	[ -e "$f" ] || keys="$keys $f"
done
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$keys" ] || rm -f $keys
	rm -rf "$tmp"
}
trap cleanup EXIT

trees="--sourcetree $tmp/src --dkmstree $tmp/dkms --installtree $tmp/modules"
mkdir -p "$tmp/src" "$tmp/dkms" "$tmp/modules"
"$top/host/kvm/dkms/stage.sh" "$version" "$tmp/src/pvsmm-kvm-$version"
# shellcheck disable=SC2086
dkms add -m pvsmm-kvm -v "$version" $trees >/dev/null
# shellcheck disable=SC2086
if ! dkms build -m pvsmm-kvm -v "$version" -k "$kver" $trees; then
	log=$tmp/dkms/pvsmm-kvm/$version/build/make.log
	[ -r "$log" ] && tail -n 30 "$log" >&2
	echo "dkms-check: FAILED to build pvsmm-kvm $version for $kver" >&2
	exit 1
fi
built=$tmp/dkms/pvsmm-kvm/$version/$kver/x86_64/module
for m in kvm kvm-amd kvm-intel; do
	ls "$built/$m.ko"* >/dev/null 2>&1 ||
		{ echo "dkms-check: $m.ko was not built" >&2; exit 1; }
done
# shellcheck disable=SC2086
dkms remove -m pvsmm-kvm -v "$version" --all $trees >/dev/null
echo "dkms-check: pvsmm-kvm $version builds with DKMS for $kver (kvm, kvm-amd, kvm-intel)"

# What make install refuses (preflight.sh): another series, a lockdown
# without an enrolled key.  And what it lets through: this kernel.
PVSMM_LOCKDOWN=/dev/null PVSMM_SIG_ENFORCE=/dev/null \
	"$top/host/kvm/dkms/preflight.sh" "$kver" ||
	{ echo "dkms-check: preflight refused $kver" >&2; exit 1; }
if "$top/host/kvm/dkms/preflight.sh" 6.12.0-1-amd64 2>/dev/null; then
	echo "dkms-check: preflight let a 6.12 kernel through" >&2
	exit 1
fi
echo "none [integrity] confidentiality" >"$tmp/lockdown"
if PVSMM_LOCKDOWN=$tmp/lockdown PVSMM_MOK_PUB=$tmp/no-key \
	"$top/host/kvm/dkms/preflight.sh" "$kver" 2>/dev/null; then
	echo "dkms-check: preflight let unsigned modules through under lockdown" >&2
	exit 1
fi
echo Y >"$tmp/sig_enforce"
if PVSMM_LOCKDOWN=/dev/null PVSMM_SIG_ENFORCE=$tmp/sig_enforce \
	PVSMM_MOK_PUB=$tmp/no-key "$top/host/kvm/dkms/preflight.sh" "$kver" 2>/dev/null; then
	echo "dkms-check: preflight let unsigned modules through under sig_enforce" >&2
	exit 1
fi
echo "dkms-check: make install refuses another series, and lockdown or sig_enforce without a key"
