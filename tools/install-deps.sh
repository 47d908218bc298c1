#!/bin/sh
# Installs the Debian 12 packages pvsmm needs, if any is missing.
# Everything comes from Debian: QEMU (the lab), Debian's kernel image,
# headers and source (pinned to one version through the metapackages, so
# rebuilt KVM modules load into the lab's kernel), busybox, nasm.
# For KVM users: dkms (make install), gnu-efi (the UEFI driver), ovmf.
# clang and its runtime libraries: libFuzzer for make kvm-fuzz.
# The real-Linux guests (tests/guest) add gcc-multilib (gtod-bench built
# with -m32, and the firmware's 32-bit time math test, which qemu-user runs
# where the kernel has no 32-bit support), gnuplot-nox (results/guest.png) and the i386 architecture:
# their i386 kernel and busybox are fetched with `apt-get download`.
set -eu

packages="gcc make libc6-dev python3 qemu-system-x86 nasm busybox-static cpio
	xz-utils patch linux-image-amd64 linux-headers-amd64 linux-source-6.1 perl
	gcc-multilib qemu-user gnuplot-nox
	dkms gnu-efi ovmf
	dpkg-dev meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev
	clang libclang-rt-14-dev"

missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
need_i386=0
dpkg --print-foreign-architectures | grep -qx i386 || need_i386=1
[ -z "$missing" ] && [ $need_i386 = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	[ -n "$missing" ] && echo "install-deps: missing Debian packages:$missing" >&2
	[ $need_i386 = 1 ] && echo "install-deps: the i386 architecture is not enabled" >&2
	echo "install-deps: run 'sudo make deps' (or apt-get install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ $need_i386 = 1 ]; then
	echo "install-deps: enabling the i386 architecture (for apt-get download)"
	dpkg --add-architecture i386
fi
apt-get update -qq
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
