/*
 * SPDX-License-Identifier: MIT
 *
 * pvsmm-vmm's DSDT.  iasl compiles it at build time (host/vmm/Makefile)
 * into build/host/vmm/dsdt.hex, a C array that acpi.c embeds; acpi.c
 * puts its own table header (OEM and creator fields as in every other
 * table) in front of the AML body.
 *
 * Nothing but \_S5: the kernel needs no device objects (the PM timer,
 * PM1 blocks and SCI are fixed hardware, described by the FADT), and \_S5
 * is what makes it offer ACPI poweroff: it writes SLP_TYPa (5, acpi.h's
 * ACPI_S5_SLP_TYP) with SLP_EN into PM1a_CNT, and the VMM's PM1 device
 * ends the VM.  tests/unit/acpi-check.sh disassembles the tables and
 * checks what the guest sees.
 */
DefinitionBlock ("", "DSDT", 2, "PVSMM ", "PVSMMVMM", 1)
{
    /* SLP_TYPa, SLP_TYPb, reserved, reserved */
    Name (_S5, Package (0x04) { 0x05, 0x05, Zero, Zero })
}
