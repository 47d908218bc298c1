# SPDX-License-Identifier: GPL-2.0
#
# What host/kvm/build.sh, checkpatch.sh and dev-tree.sh take from Debian's
# linux-source-<series> tarball (sourced by all three, so the trees agree).
#
# The kernel series is $kseries (the scripts' --kernel-series, else
# $PVSMM_KSERIES, else 6.1):
#   6.1    linux-source-6.1, the series in patches/, output under build/kvm
#   6.12   linux-source-6.12, the series in patches-6.12/, output under
#          build/kvm/6.12
#   kvm_members        the modules' sources, and every other file the
#                      kernel patches of the series touch (documentation,
#                      MAINTAINERS), so that the series applies whole
#   selftest_members   the KVM selftests with what they build from: the
#                      kselftest harness, tools/include, tools/arch/x86,
#                      tools/lib/rbtree.c, tools/build/Build.include and
#                      scripts/subarch.include; for 6.12 also the KVM
#                      uAPI headers that its selftests need newer than
#                      Debian 12's linux-libc-dev (6.1) has ($selftest_uapi,
#                      installed by build.sh with headers_install.sh)
# Paths are relative to the top of the kernel tree.  Needs $here (host/kvm)
# and $root (the repository) set by the caller.
# shellcheck shell=bash disable=SC2034,SC2154
kseries=${kseries:-${PVSMM_KSERIES:-6.1}}
case $kseries in
6.1) patch_dir=$here/patches out=$root/build/kvm ;;
6.12) patch_dir=$here/patches-6.12 out=$root/build/kvm/6.12 ;;
*) echo "unknown kernel series '$kseries' (6.1 or 6.12)" >&2; exit 2 ;;
esac
SRC_TAR=${SRC_TAR:-/usr/src/linux-source-$kseries.tar.xz}
src_prefix=linux-source-$kseries
kvm_members="arch/x86/kvm virt/kvm virt/lib arch/x86/include/asm/kvm_host.h
	Documentation/virt/kvm MAINTAINERS"
selftest_members="tools/testing/selftests/kvm tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h
	tools/include tools/arch/x86/include tools/lib/rbtree.c
	tools/build/Build.include scripts/subarch.include"
selftest_uapi=
if [ "$kseries" != 6.1 ]; then
	selftest_uapi="include/uapi/linux/kvm.h include/uapi/linux/kvm_para.h
	arch/x86/include/uapi/asm/kvm.h arch/x86/include/uapi/asm/kvm_para.h"
	selftest_members="$selftest_members $selftest_uapi"
fi

# extract_members DIR MEMBER...: the members, at their paths under DIR.
extract_members() {
	local dir=$1 m
	shift
	tar -xJf "$SRC_TAR" -C "$dir" --strip-components=1 \
		$(for m in "$@"; do echo "$src_prefix/$m"; done)
}
