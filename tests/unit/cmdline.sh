#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of pvsmm-vmm that need no /dev/kvm: every bad argument
# and unusable firmware file must give exit status 2 and exactly one error
# line on stderr; --help exits 0.
# Usage: tests/unit/cmdline.sh path/to/pvsmm-vmm
set -u
vmm=${1:?usage: $0 path/to/pvsmm-vmm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

fw=$tmp/fw.bin
head -c 65536 /dev/zero >"$fw"
head -c 65535 /dev/zero >"$tmp/short.bin"
: >"$tmp/unreadable.bin"
chmod 000 "$tmp/unreadable.bin"

# expect_error WHAT PATTERN ARGS...: status 2, one stderr line matching.
expect_error() {
	what=$1 pattern=$2
	shift 2
	"$vmm" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -q -- "$pattern" "$tmp/err" &&
	   grep -q '^pvsmm-vmm: ' "$tmp/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL $what: rc=$rc, $lines stderr line(s):" >&2
		sed 's/^/    /' "$tmp/err" >&2
	fi
}

expect_error "no arguments" "--firmware FILE is required"
expect_error "unknown option" "unknown option '--bogus'" --bogus
expect_error "missing value" "needs a value" --firmware
expect_error "value for a flag" "takes no value" --help=1
expect_error "stray argument" "unexpected argument 'x'" --firmware "$fw" x
expect_error "vcpus 0" "--vcpus must be" --firmware "$fw" --vcpus 0
expect_error "vcpus 17" "--vcpus must be" --firmware "$fw" --vcpus 17
expect_error "vcpus text" "--vcpus must be" --firmware "$fw" --vcpus two
expect_error "vcpus negative" "--vcpus must be" --firmware "$fw" --vcpus -1
expect_error "mem 0" "--mem must be" --firmware "$fw" --mem 0
expect_error "mem huge" "--mem must be" --firmware "$fw" --mem 99999
expect_error "bad mode" "--pmtimer must be" --firmware "$fw" --pmtimer=kernel
expect_error "bad return" "--return must be" --firmware "$fw" --return=fast
expect_error "bad guest mode" "--guest-mode must be" --firmware "$fw" --guest-mode=16
expect_error "guest mode with a kernel" "--guest-mode is for the self-test" \
	--firmware "$fw" --guest-mode pae --kernel "$fw"
expect_error "window takes no value" "takes no value" --firmware "$fw" --window=1
expect_error "port too big" "--pm-port must be" --firmware "$fw" --pm-port 0x10000
expect_error "port trailing junk" "--pm-port must be" --firmware "$fw" --pm-port 0x608x
expect_error "port on COM1" "collides" --firmware "$fw" --pm-port 0x3fd
expect_error "port on debug exit" "collides" --firmware "$fw" --pm-port 0xf4
expect_error "reads text" "--reads must be" --firmware "$fw" --reads many
expect_error "check-reads empty" "--check-reads must be" --firmware "$fw" --check-reads=
expect_error "missing firmware" "cannot open firmware" --firmware "$tmp/none.bin"
expect_error "short firmware" "65535 bytes; it must be exactly 65536" \
	--firmware "$tmp/short.bin"
expect_error "firmware is a directory" "not a regular file" --firmware "$tmp"
if [ "$(id -u)" != 0 ]; then	# root reads mode-000 files anyway
	expect_error "unreadable firmware" "cannot open firmware" \
		--firmware "$tmp/unreadable.bin"
fi
expect_error "initrd without kernel" "--initrd needs --kernel" \
	--firmware "$fw" --initrd "$fw"
expect_error "append without kernel" "--append needs --kernel" \
	--firmware "$fw" --append "console=ttyS0"
expect_error "missing kernel" "cannot open kernel" --firmware "$fw" \
	--kernel "$tmp/none"
expect_error "kernel not a bzImage" "not a bzImage" --firmware "$fw" \
	--kernel "$fw"
expect_error "kernel is a directory" "not a regular file" --firmware "$fw" \
	--kernel "$tmp"
expect_error "pm-port on PM1" "collides" --firmware "$fw" --pm-port 0x604
expect_error "pm-port on PCI" "collides" --firmware "$fw" --pm-port 0xcfc
expect_error "unwritable stats" "cannot write --stats" --firmware "$fw" \
	--stats "$tmp/no/such/dir/stats.json"

# No /dev/kvm: run where it is missing, or hide it in a private mount
# namespace when we may; otherwise this case cannot be run here.
if [ ! -e /dev/kvm ]; then
	expect_error "no /dev/kvm" "cannot open /dev/kvm" --firmware "$fw"
elif unshare --mount true 2>/dev/null; then
	unshare --mount sh -c "mount -t tmpfs none /dev &&
		exec \"$vmm\" --firmware \"$fw\"" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
	   grep -q "/dev/kvm" "$tmp/err"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL hidden /dev/kvm: rc=$rc" >&2
		sed 's/^/    /' "$tmp/err" >&2
	fi
else
	echo "note: /dev/kvm exists and cannot be hidden; its error case skipped"
fi

if "$vmm" --help >"$tmp/out" 2>"$tmp/err" && grep -q '^usage: pvsmm-vmm' "$tmp/out" &&
   [ ! -s "$tmp/err" ]; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
	echo "FAIL --help" >&2
fi

echo "cmdline: $passed passed, $failed failed"
[ "$failed" = 0 ]
