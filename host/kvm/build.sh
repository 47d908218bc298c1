#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build kvm.ko, kvm-amd.ko and kvm-intel.ko with the pvsmm series applied,
# out of tree, from Debian's linux-source-6.1 against the installed headers
# of the lab kernel.  Called by the top-level Makefile as "make kvm-modules".
#
#   host/kvm/build.sh [--kernel-series 6.1|6.12] [--stock] [--check]
#                     [--no-selftests] [--module-version V] [-j N]
#
#   --kernel-series  which Debian kernel and which series (tree.sh): 6.1
#             (default; patches/, build/kvm) or 6.12 (patches-6.12/,
#             build/kvm/6.12); also $PVSMM_KSERIES
#   --stock   build the unpatched modules into build/kvm/stock/ (comparison)
#   --check   only extract, install the ABI header and apply the series
#             (no compilation): verifies that the series applies
#   --no-selftests  the modules only (DKMS)
#   --module-version V  tag the three modules with MODULE_VERSION(V).  DKMS
#             needs it: it refuses to replace a kernel module whose version
#             equals its own, and the kernel's kvm modules and an untagged
#             build both have none.  It also lets an operator see with
#             modinfo which KVM a host runs.
#
# Outputs (relative to the repository root; for 6.12 under build/kvm/6.12):
#   build/kvm/src/       the patched source tree (arch/x86/kvm, virt/kvm,
#                        tools/testing/selftests/kvm, ...)
#   build/kvm/patched/   kvm.ko kvm-amd.ko kvm-intel.ko (debug info stripped)
#   build/kvm/selftests/x86_64/pvsmm_*  the series' KVM selftests, static
#                        (they run in the lab's busybox initramfs)
#
# Rebuilding is incremental: the tree is regenerated in a staging directory
# and only files whose contents changed are copied over, so kbuild
# recompiles only what an edit to the series really touches.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
JOBS=${JOBS:-2}
variant=patched
check_only=0
selftests=1
modversion=
usage="usage: $0 [--kernel-series 6.1|6.12] [--stock] [--check] [--no-selftests] [--module-version V] [-j N]"

while [ $# -gt 0 ]; do
	case "$1" in
	--kernel-series) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		kseries=$2; shift ;;
	--stock) variant=stock ;;
	--check) check_only=1 ;;
	--no-selftests) selftests=0 ;;
	--module-version) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
		modversion=$2; shift
		case "$modversion" in ''|*[!A-Za-z0-9.+~_-]*)
			echo "--module-version: '$modversion' is not a version" >&2
			exit 2 ;;
		esac ;;
	-j) JOBS=$2; shift ;;
	-j*) JOBS=${1#-j} ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
	shift
done
# shellcheck source=tree.sh
. "$here/tree.sh"	# $kseries -> SRC_TAR, patch_dir, out
KVER=${KVER:-$("$root/tools/kver.sh" "$kseries")}	# Debian's kernel: tools/kver.sh
KDIR=${KDIR:-/lib/modules/$KVER/build}

if [ $variant = stock ]; then
	tree=$out/src-stock
else
	tree=$out/src
fi
stage=$out/stage-$variant
dest=$out/$variant
abi=$root/include/pvsmm/abi.h

[ -r "$SRC_TAR" ] || { echo "missing $SRC_TAR (linux-source-$kseries)" >&2; exit 1; }
[ -d "$KDIR" ] || { echo "missing $KDIR (linux-headers-$KVER)" >&2; exit 1; }

echo "  EXTRACT $SRC_TAR -> ${stage#$root/}"
rm -rf "$stage"
mkdir -p "$stage"
# shellcheck disable=SC2086
extract_members "$stage" $kvm_members $selftest_members

if [ $variant = patched ]; then
	# The ABI header is the project's single definition
	# (include/pvsmm/abi.h); it is installed verbatim, never copied into a
	# patch, so there is exactly one version of it.  The series refers to
	# it as <asm/pvsmm.h>.
	install -D -m 0644 "$abi" "$stage/arch/x86/include/uapi/asm/pvsmm.h"
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		echo "  PATCH   $p"
		patch -d "$stage" -p1 --batch --forward --quiet \
			< "$patch_dir/$p"
	done < "$patch_dir/series"
	find "$stage" -name '*.orig' -delete
	if ! cmp -s "$abi" "$stage/arch/x86/include/uapi/asm/pvsmm.h"; then
		echo "series modified asm/pvsmm.h: it must stay identical to include/pvsmm/abi.h" >&2
		exit 1
	fi
fi

# Out-of-tree build plumbing (not part of the series):
#  - the kvm Makefile refers to $(srctree), which is the headers tree here;
#  - trace.h includes ../../arch/x86/kvm/trace.h relative to an include dir;
#  - the patched asm/kvm_host.h must win over the installed headers: kbuild
#    puts $(LINUXINCLUDE) before ccflags-y, so prepend to LINUXINCLUDE
#    itself; <asm/pvsmm.h> exists only in this tree (appended).
mk=$stage/arch/x86/kvm/Makefile
sed -i -e 's|-I \$(srctree)/arch/x86/kvm|-I $(src)|' \
       -e "s|include \$(srctree)/virt/kvm/Makefile.kvm|include $tree/virt/kvm/Makefile.kvm|" "$mk"
grep -q 'include .*/virt/kvm/Makefile.kvm' "$mk"
cat >> "$mk" <<EOT

# pvsmm out-of-tree build (added by host/kvm/build.sh)
LINUXINCLUDE := -I$tree/arch/x86/include \$(LINUXINCLUDE) \\
		-I$tree/arch/x86/include/uapi -I$tree/include/trace
EOT
# Debian's 6.1 config has CONFIG_KVM_WERROR=y, its 6.12 config not: the
# 6.12 series is held to the same bar.
if [ "$kseries" != 6.1 ]; then
	echo 'ccflags-y += -Werror' >>"$mk"
fi
mkdir -p "$stage/include/trace"
if [ -n "$modversion" ]; then
	for m in kvm kvm-amd kvm-intel; do
		obj=pvsmm_version_${m//-/_}
		printf '// SPDX-License-Identifier: GPL-2.0\n#include <linux/module.h>\nMODULE_VERSION("%s");\n' \
			"$modversion" >"$stage/arch/x86/kvm/$obj.c"
		echo "$m-y += $obj.o" >>"$mk"
	done
fi

# Sync the staging tree into the build tree, keeping the timestamps of
# unchanged files so that kbuild's dependency tracking stays incremental.
mkdir -p "$tree"
(cd "$stage" && find . -type f) | while read -r f; do
	if ! cmp -s "$stage/$f" "$tree/$f"; then
		mkdir -p "$(dirname "$tree/$f")"
		cp "$stage/$f" "$tree/$f"
	fi
done
(cd "$stage" && find . -type d) | while read -r d; do mkdir -p "$tree/$d"; done
# Remove sources the series no longer has (objects are left to kbuild).
(cd "$tree" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.S' \
	-o -name '*.rst' -o -name Makefile -o -name MAINTAINERS \) ) | while read -r f; do
	[ -e "$stage/$f" ] || rm -f "$tree/$f"
done
rm -rf "$stage"

if [ $check_only = 1 ]; then
	echo "  OK      series applies (${tree#$root/})"
	exit 0
fi

echo "  MAKE    ${tree#$root/}/arch/x86/kvm (-j$JOBS)"
make -s -C "$KDIR" M="$tree/arch/x86/kvm" -j"$JOBS" modules

mkdir -p "$dest"
for m in kvm kvm-amd kvm-intel; do
	strip --strip-debug -o "$dest/$m.ko" "$tree/arch/x86/kvm/$m.ko"
done
echo "  DONE    ${dest#$root/}/{kvm,kvm-amd,kvm-intel}.ko"

[ $variant = patched ] && [ $selftests = 1 ] || exit 0

# The series' KVM selftests (tools/testing/selftests/kvm/x86_64/pvsmm_*),
# static, against the patched tree's uAPI: <asm/pvsmm.h> is
# include/pvsmm/abi.h, installed as for the modules; everything else comes
# from Debian's linux-libc-dev, which is "make headers_install" of the same
# source package.  The series changes no other uAPI header, and the one the
# selftests use most, <linux/kvm.h>, only grows; a different version is
# worth a note, not a failure.
libc_dev=$(dpkg-query -W -f='${Version}' linux-libc-dev 2>/dev/null || true)
source_ver=$(dpkg-query -W -f='${Version}' "linux-source-$kseries" 2>/dev/null || true)
[ "$libc_dev" = "$source_ver" ] ||
	echo "  NOTE    selftests use linux-libc-dev ${libc_dev:-(none)}${selftest_uapi:+ (the KVM uAPI from the tree)}, the tree is ${source_ver:-(unknown)}"
khdr=$out/selftests-khdr
install -D -m 0644 "$abi" "$khdr/asm/pvsmm.h"
# 6.12's selftests need KVM uAPI that 6.1's linux-libc-dev lacks (guest
# memfd, memory attributes, kvm_userspace_memory_region2): those headers
# come from the tree, prepared as "make headers_install" would (the
# headers' own scripts/headers_install.sh and unifdef).
for h in $selftest_uapi; do
	mkdir -p "$khdr/$(dirname "${h#*/uapi/}")"
	(cd "$KDIR" && scripts/headers_install.sh "$tree/$h" "$khdr/${h#*/uapi/}.new")
	if cmp -s "$khdr/${h#*/uapi/}.new" "$khdr/${h#*/uapi/}"; then
		rm -f "$khdr/${h#*/uapi/}.new"
	else
		mv -f "$khdr/${h#*/uapi/}.new" "$khdr/${h#*/uapi/}"
	fi
done
st=$tree/tools/testing/selftests/kvm
progs=$(sed -n 's|^TEST_GEN_PROGS_x86_64 += \(x86_64/pvsmm[a-z0-9_]*\)$|\1|p' "$st/Makefile")
[ -n "$progs" ] || { echo "selftests: no x86_64/pvsmm* in ${st#$root/}/Makefile" >&2; exit 1; }
echo "  MAKE    ${st#$root/} ($(echo $progs))"
make -s -C "$st" -j"$JOBS" OUTPUT="$out/selftests" EXTRA_CFLAGS=-static \
	KHDR_INCLUDES="-isystem $khdr" \
	$(for p in $progs; do echo "$out/selftests/$p"; done)
echo "  DONE    ${out#$root/}/selftests/x86_64/pvsmm_*"
