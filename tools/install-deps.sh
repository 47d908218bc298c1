#!/bin/sh
# Installs the Debian 12 packages pvsmm needs, if any is missing.
# Everything comes from Debian: QEMU (the lab), Debian's kernel image,
# headers and source (pinned to one version through the metapackages, so
# rebuilt KVM modules load into the lab's kernel), busybox, nasm.
# For KVM users: dkms (make install), gnu-efi (the UEFI driver), ovmf.
set -eu

packages="gcc make libc6-dev python3 qemu-system-x86 nasm busybox-static cpio
	xz-utils patch linux-image-amd64 linux-headers-amd64 linux-source-6.1 perl
	dkms gnu-efi ovmf"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing Debian packages:$missing" >&2
	echo "install-deps: run 'sudo make deps' (or apt-get install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
