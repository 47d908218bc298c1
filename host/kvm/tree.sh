# SPDX-License-Identifier: GPL-2.0
#
# What host/kvm/build.sh and host/kvm/dev-tree.sh take from Debian's
# linux-source-6.1 tarball (sourced by both, so the two trees agree):
#   kvm_members        the modules' sources, and every other file the
#                      kernel patches of the series touch (documentation,
#                      MAINTAINERS), so that the series applies whole
#   selftest_members   the KVM selftests with what they build from: the
#                      kselftest harness, tools/include, tools/arch/x86,
#                      tools/lib/rbtree.c, tools/build/Build.include and
#                      scripts/subarch.include
# Paths are relative to the top of the kernel tree.
# shellcheck shell=bash disable=SC2034
SRC_TAR=${SRC_TAR:-/usr/src/linux-source-6.1.tar.xz}
src_prefix=linux-source-6.1
kvm_members="arch/x86/kvm virt/kvm virt/lib arch/x86/include/asm/kvm_host.h
	Documentation/virt/kvm MAINTAINERS"
selftest_members="tools/testing/selftests/kvm tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h
	tools/include tools/arch/x86/include tools/lib/rbtree.c
	tools/build/Build.include scripts/subarch.include"

# extract_members DIR MEMBER...: the members, at their paths under DIR.
extract_members() {
	local dir=$1 m
	shift
	tar -xJf "$SRC_TAR" -C "$dir" --strip-components=1 \
		$(for m in "$@"; do echo "$src_prefix/$m"; done)
}
