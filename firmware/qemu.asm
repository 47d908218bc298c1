; SPDX-License-Identifier: MIT
;
; qemu.asm -- TEST-ONLY additions for plain QEMU (TCG), assembled only into
; build/firmware/pvsmm-fw-qemu.bin (-DPVSMM_FW_QEMU_TEST), never into the
; real image.
;
; pvsmm's VMM makes every vCPU runnable at reset; QEMU keeps the APs in
; wait-for-SIPI.  To exercise the multi-vCPU paths (AP wait, per-vCPU
; stacks, serial lock, done counter, summary) under TCG, the BSP here
; starts them the classic way: a real-mode trampoline at QEMU_TRAMP_GPA
; (SIPI vector = its page number) that joins boot_entry32 like the reset
; path does.  It also turns on q35's ACPI PM I/O block (ICH9 LPC PMBASE =
; 0x600, so the PM timer answers at 0x608) so that the bench loop reads a
; real, running counter.  Run by firmware/qemu-smoke.sh.

%define QEMU_TRAMP_GPA	0x1000		; free low page, below the bootinfo
%define APIC_MMIO	0xfee00000
%define APIC_SVR	0x0f0
%define APIC_ICR_LO	0x300
%define ICR_INIT_ALL	0x000c4500	; INIT, assert, all excluding self
%define ICR_SIPI_ALL	0x000c4600	; start-up, all excluding self
%define PCI_CFG_ADDR	0xcf8
%define PCI_CFG_DATA	0xcfc
%define ICH9_LPC	(0x80000000 | (0x1f << 11))	; 00:1f.0
%define ICH9_PMBASE	0x40
%define ICH9_ACPI_CNTL	0x44
%define ICH9_ACPI_EN	0x80

	bits	16
qemu_tramp:
	cli
	cld
	o32 lgdt [cs:qemu_tramp_gdt_desc - qemu_tramp]
	mov	eax, cr0
	and	eax, ~(CR0_CD | CR0_NW)
	or	eax, CR0_PE
	mov	cr0, eax
	jmp	dword SEL_CODE32:boot_entry32
qemu_tramp_gdt_desc:
	dw	gdt_end - gdt - 1
	dd	gdt
qemu_tramp_end:

	bits	64
; qemu_test_setup: BSP, long mode, before SH_READY.  Clobbers RAX, RCX,
; RDX, RSI, RDI.
qemu_test_setup:
	; PM timer: PMBASE then ACPI enable, through PCI configuration space.
	mov	edx, PCI_CFG_ADDR
	mov	eax, ICH9_LPC | ICH9_PMBASE
	out	dx, eax
	mov	edx, PCI_CFG_DATA
	mov	eax, 0x601
	out	dx, eax
	mov	edx, PCI_CFG_ADDR
	mov	eax, ICH9_LPC | ICH9_ACPI_CNTL
	out	dx, eax
	mov	edx, PCI_CFG_DATA
	mov	eax, ICH9_ACPI_EN
	out	dx, eax

	cmp	dword [abs SH_NR_VCPUS], 1
	jbe	.out
	lea	rsi, [qemu_tramp]
	mov	edi, QEMU_TRAMP_GPA
	mov	ecx, qemu_tramp_end - qemu_tramp
	rep movsb
	mov	edi, APIC_MMIO
	mov	dword [rdi + APIC_SVR], 0x1ff	; software-enable the APIC
	mov	dword [rdi + APIC_ICR_LO], ICR_INIT_ALL
	mov	dword [rdi + APIC_ICR_LO], ICR_SIPI_ALL | (QEMU_TRAMP_GPA >> 12)
	mov	dword [rdi + APIC_ICR_LO], ICR_SIPI_ALL | (QEMU_TRAMP_GPA >> 12)
	call	serial_lock
	PUTS	`pvsmm: QEMU TEST IMAGE: PM timer enabled, APs started by SIPI\n`
	call	serial_unlock
.out:
	ret
