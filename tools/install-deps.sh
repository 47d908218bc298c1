#!/bin/sh
# Installs the Debian 12 packages that a set of pvsmm's targets needs, if
# any is missing.  Usage: tools/install-deps.sh SET...  (default: all)
#
#   build    firmware, VMM, shim and option ROM (what make install
#            builds, on a production host too): a C compiler, make, nasm,
#            iasl (the VMM's DSDT is ASL), python3 (the ROM checksum)
#   unit     the build set, and for the unit tests gcc-multilib and
#            qemu-user (the firmware's 32-bit time math is unit-tested as
#            a -m32 binary, run by qemu-i386 where the kernel cannot)
#   uefi     gnu-efi, for the UEFI driver (make uefi)
#   lab      the nested lab: QEMU, Debian's kernel image, headers and
#            source (pinned to one version through the metapackages, so
#            rebuilt KVM modules load into the lab's kernel), busybox;
#            the real-Linux guests (gtod-bench -m32 with the unit set's
#            gcc-multilib, gnuplot-nox for results/guest.png, and the i386
#            architecture: their i386 kernel and busybox come with
#            `apt-get download`);
#            OVMF; QEMU's build dependencies (make qemu-pvsmm, qemu-lab:
#            QEMU 10.0's also libslirp-dev for -netdev user, the venv and
#            pip's distlib for its configure, rsync; its meson >= 1.5 comes
#            unpacked from bookworm-backports, see host/qemu/build.sh);
#            clang and its runtime libraries (libFuzzer, make kvm-fuzz);
#            sbsigntool and efitools, to sign the lab's kernel and enrol
#            DKMS's key in its UEFI db for the Secure Boot test of make
#            install (host/kvm/dkms/lab-check.sh)
#   install  dkms, for make install and make dkms-check
#   libvirt  libvirt's client tools and its QEMU driver, to check the
#            domain XML of host/libvirt/ (make libvirt-check: no daemon
#            runs, the embedded driver converts the XML), and its
#            virt-aa-helper, which writes the domain's AppArmor profile
#            for the lab's apparmor modes (make qemu-check-quick,
#            tests/qemu/make-aa-profile.sh; Debian's apparmor and
#            libvirt-daemon-system packages come with `apt-get download`)
#   all      every set (make deps, make check)
#   lab-6.12 not part of all: Debian's 6.12 kernel for the port of the
#            series (host/kvm/build.sh --kernel-series 6.12), from
#            bookworm-security, which has no metapackage for it: the
#            candidate linux-source-6.12 and, pinned to its very version,
#            linux-image-<abi>-unsigned, linux-headers-<abi> (tools/kver.sh
#            6.12 checks that they match)
#
# The Intel lab (tests/lab/intel.mk, part of the lab set) builds its own
# Bochs (g++) and boots L1 from a CD (Bochs's BIOS and VGA BIOS, grub).
set -eu

build="gcc make libc6-dev nasm acpica-tools python3"
unit="gcc-multilib qemu-user"
uefi="gnu-efi"
lab="qemu-system-x86 busybox-static cpio xz-utils patch linux-image-amd64
	linux-headers-amd64 linux-source-6.1 perl gnuplot-nox ovmf
	dpkg-dev meson ninja-build libglib2.0-dev libpixman-1-dev libfdt-dev
	libslirp-dev python3-venv python3-pip rsync
	clang libclang-rt-14-dev sbsigntool efitools
	g++ bochsbios vgabios grub-pc-bin grub-common xorriso"
install="dkms"
libvirt="libvirt-clients libvirt-daemon libvirt-daemon-driver-qemu"

packages="" need_i386=0 lab612=0
[ $# -gt 0 ] || set -- all
for set in "$@"; do
	case $set in
	build) packages="$packages $build" ;;
	unit) packages="$packages $build $unit" ;;
	uefi) packages="$packages $uefi" ;;
	lab) packages="$packages $build $unit $lab" ;;
	install) packages="$packages $install" ;;
	libvirt) packages="$packages $libvirt" ;;
	all) packages="$packages $build $unit $uefi $lab $install $libvirt" ;;
	lab-6.12) packages="$packages $build $unit $lab"; lab612=1 ;;
	*) echo "install-deps: unknown set '$set' (build, unit, uefi, lab, install, libvirt, all, lab-6.12)" >&2
	   exit 2 ;;
	esac
	case $set in lab|all|lab-6.12)
		dpkg --print-foreign-architectures | grep -qx i386 || need_i386=1 ;;
	esac
done

# The 6.12 kernel: installed as one version, or resolved from the candidate
# linux-source-6.12 (after apt-get update, below).
lab612_pkgs() {
	v=$(apt-cache policy linux-source-6.12 2>/dev/null | sed -n 's/^ *Candidate: //p')
	case $v in ''|'(none)') echo "install-deps: no linux-source-6.12 candidate (bookworm-security in the apt sources?)" >&2; return 1 ;; esac
	abi=${v%%-*}+deb12-amd64
	echo "linux-source-6.12=$v linux-image-$abi-unsigned=$v linux-headers-$abi=$v"
}
lab612_missing=0
if [ $lab612 = 1 ] && ! "$(dirname "$0")/kver.sh" 6.12 >/dev/null 2>&1; then
	lab612_missing=1
fi

missing=""
for p in $packages; do
	case " $missing " in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && [ $need_i386 = 0 ] && [ $lab612_missing = 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	[ -n "$missing" ] && echo "install-deps: missing Debian packages:$missing" >&2
	[ $need_i386 = 1 ] && echo "install-deps: the i386 architecture is not enabled" >&2
	[ $lab612_missing = 1 ] && echo "install-deps: Debian's 6.12 kernel (image, headers, source of one version) is missing" >&2
	echo "install-deps: run 'sudo make deps' (or apt-get install them)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ $need_i386 = 1 ]; then
	echo "install-deps: enabling the i386 architecture (for apt-get download)"
	dpkg --add-architecture i386
fi
# A mirror caught mid-sync (or a stale proxy in front of one) serves an
# index of the wrong size, and apt-get update fails for that one index
# while the rest are fresh.  Try again; then go on with what did download,
# since the install below fails clearly if a package is really missing.
for try in 1 2 3; do
	apt-get -o Acquire::Retries=3 update -qq && break
	if [ $try = 3 ]; then
		echo "install-deps: apt-get update failed 3 times; going on with the indexes it did fetch" >&2
		break
	fi
	echo "install-deps: apt-get update failed (try $try of 3); again in $((try * 30)) s" >&2
	sleep $((try * 30))
done
if [ $lab612_missing = 1 ]; then
	missing="$missing $(lab612_pkgs)" || exit 1
fi
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
# shellcheck disable=SC2086
apt-get -o Acquire::Retries=3 install -y -qq --no-install-recommends $missing >/dev/null
