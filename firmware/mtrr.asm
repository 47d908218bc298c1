; SPDX-License-Identifier: MIT
;
; mtrr.asm -- the memory types a BIOS sets up before anything else.
;
; At reset the MTRRs are disabled (IA32_MTRR_DEF_TYPE = 0), which makes
; *all* of memory uncacheable wherever the guest's memory types are
; honoured (KVM on Intel with non-coherent DMA, KVM before 6.11, other
; hypervisors); an emulator never cares.  So, as SeaBIOS and OVMF do, every
; vCPU that runs this firmware enables the MTRRs with write-back as the
; default type and one variable range that keeps the
; top GiB below 4 GiB (PCI/ROM/LAPIC/IOAPIC space) uncacheable.  Linux
; copies the BSP's MTRR state to the APs it starts itself.

%define MSR_MTRRCAP		0xfe
%define MSR_MTRR_PHYSBASE0	0x200
%define MSR_MTRR_PHYSMASK0	0x201
%define MSR_MTRR_DEF_TYPE	0x2ff
%define MTRR_TYPE_UC		0
%define MTRR_TYPE_WB		6
%define MTRR_DEF_ENABLE		(1 << 11)
%define MTRR_MASK_VALID		(1 << 11)
%define MMIO_HOLE_BASE		0xc0000000	; top GiB below 4 GiB
%define MMIO_HOLE_MASK_LO	0xc0000000	; 1 GiB: mask bits 31:30
%define DEFAULT_PHYS_BITS	36

	bits	32
; mtrr_setup32: 32-bit protected mode, any vCPU.  Clobbers EAX, ECX, EDX,
; ESI, EDI; preserves EBX.
mtrr_setup32:
	push	ebx
	mov	eax, 1
	cpuid
	bt	edx, 12			; CPUID.1:EDX.MTRR
	jnc	.out

	; MAXPHYADDR, for the upper half of the variable range's mask.
	mov	esi, DEFAULT_PHYS_BITS
	mov	eax, 0x80000000
	cpuid
	cmp	eax, 0x80000008
	jb	.have_bits
	mov	eax, 0x80000008
	cpuid
	movzx	esi, al
.have_bits:
	; EDI = mask bits 63:32 = (1 << (MAXPHYADDR - 32)) - 1
	lea	ecx, [esi - 32]
	mov	edi, 1
	shl	edi, cl
	dec	edi

	; Off while they change.
	mov	ecx, MSR_MTRR_DEF_TYPE
	xor	eax, eax
	xor	edx, edx
	wrmsr

	mov	ecx, MSR_MTRRCAP
	rdmsr
	test	al, al			; VCNT: variable ranges available
	jz	.enable
	mov	ecx, MSR_MTRR_PHYSBASE0
	mov	eax, MMIO_HOLE_BASE | MTRR_TYPE_UC
	xor	edx, edx
	wrmsr
	mov	ecx, MSR_MTRR_PHYSMASK0
	mov	eax, MMIO_HOLE_MASK_LO | MTRR_MASK_VALID
	mov	edx, edi
	wrmsr
.enable:
	mov	ecx, MSR_MTRR_DEF_TYPE
	mov	eax, MTRR_DEF_ENABLE | MTRR_TYPE_WB
	xor	edx, edx
	wrmsr
.out:
	pop	ebx
	ret
