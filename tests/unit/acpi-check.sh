#!/bin/sh
# SPDX-License-Identifier: MIT
# What a guest sees in pvsmm-vmm's ACPI tables, read back the way an OS
# would: the tables (tests/unit/acpi_dump.c, from host/vmm/acpi.c and the
# DSDT compiled from host/vmm/dsdt.asl) disassembled by `iasl -d`, and
# the fields that make the PM timer, the PM1 blocks, the SCI and ACPI
# poweroff work compared with what they have always been.
# Usage: tests/unit/acpi-check.sh path/to/acpi-dump
set -u
dump=${1:?usage: $0 path/to/acpi-dump}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $*" >&2; }

if ! command -v iasl >/dev/null; then
	fail "iasl missing: run 'make deps' (acpica-tools)"
	echo "acpi: $passed passed, $failed failed"
	exit 1
fi
"$dump" "$tmp" 2 0x608 || fail "acpi-dump"
(cd "$tmp" && iasl -d FACP.dat DSDT.dat APIC.dat >iasl.log 2>&1) ||
	{ fail "iasl -d:"; sed 's/^/    /' "$tmp/iasl.log" >&2; }

# field FILE NAME VALUE: iasl's "NAME : VALUE" line in FILE.dsl.
field() {
	got=$(sed -n "s/^\(.*\]\)\{0,1\} *$2 : \(.*\)$/\2/p" "$tmp/$1.dsl" 2>/dev/null |
	      sed 's/ *$//' | head -n 1)
	if [ "$got" = "$3" ]; then ok; else fail "$1: $2 is '$got', want '$3'"; fi
}

field FACP "PM Timer Block Address" 00000608
field FACP "PM Timer Block Length" 04
field FACP "PM1A Event Block Address" 00000600
field FACP "PM1 Event Block Length" 04
field FACP "PM1A Control Block Address" 00000604
field FACP "PM1 Control Block Length" 02
field FACP "SCI Interrupt" 0009
field FACP "32-bit PM Timer (V1)" 0
field FACP "Signature" '"FACP"    [Fixed ACPI Description Table (FADT)]'
if grep -q '^DefinitionBlock ("", "DSDT", 2, "PVSMM ", "PVSMMVMM", 0x00000001)$' \
	"$tmp/DSDT.dsl" 2>/dev/null; then ok; else fail "DSDT: its DefinitionBlock"; fi
field APIC "Local Apic Address" FEE00000

# The extended (GAS) PM timer and PM1a blocks: the address after the
# block's "[Generic Address Structure]" header.  gas NAME VALUE
gas() {
	got=$(sed -n "/$1 : \[Generic Address Structure\]/,/Address :/s/^.*\] *Address : \(.*\)$/\1/p" \
		"$tmp/FACP.dsl" | sed 's/ *$//' | head -n 1)
	if [ "$got" = "$2" ]; then ok; else fail "FACP: $1 address is '$got', want '$2'"; fi
}
gas "PM Timer Block" 0000000000000608
gas "PM1A Event Block" 0000000000000600
gas "PM1A Control Block" 0000000000000604

# \_S5 as the OS reads it: SLP_TYPa = SLP_TYPb = 5.
s5=$(sed 's,//.*,,' "$tmp/DSDT.dsl" 2>/dev/null | tr -d ' \t\n' |
     grep -o 'Name(_S5,Package(0x04){[^}]*})')
if [ "$s5" = 'Name(_S5,Package(0x04){0x05,0x05,Zero,Zero})' ]; then ok
else fail "DSDT: \\_S5 is '$s5'"; fi
# One Local APIC a vCPU.
n=$(grep -c 'Subtable Type : 00 \[Processor Local APIC\]' "$tmp/APIC.dsl" 2>/dev/null)
if [ "$n" = 2 ]; then ok; else fail "APIC: $n Local APICs, want 2"; fi

echo "acpi: $passed passed, $failed failed"
[ "$failed" = 0 ]
