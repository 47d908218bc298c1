; SPDX-License-Identifier: MIT
;
; reset.asm -- real mode: from the reset vector to 32-bit protected mode.
;
; Every vCPU starts here (pvsmm's VMM makes the APs runnable at reset, so
; there is no INIT/SIPI dance): CS selector 0xf000 with base 0xffff0000, so
; IP offsets 0..0xffff address the whole 64 KiB image.  DS has base 0, which
; cannot reach the ROM; all ROM data is therefore read through CS.
;
; The image is assembled with `org PVSMM_FW_ROM_GPA`; in 16-bit code a
; label's IP is its offset from the start of .text, which is the ROM base
; (ROMOFF below; same-section differences are plain numbers to NASM).
; This file must come first in .text: the reset vector jumps to IP 0.

%define ROMOFF(x)	((x) - $$)

	bits	16
reset_entry16:
	times	-(reset_entry16 - $$) db 0	; assert: at IP 0
	cli
	cld
	; Reset leaves CR0.CD/NW set (caches off); clear them while turning on
	; protection, since nothing here depends on uncached memory.
	o32 lgdt [cs:ROMOFF(gdt_desc)]
	mov	eax, cr0
	and	eax, ~(CR0_CD | CR0_NW)
	or	eax, CR0_PE
	mov	cr0, eax
	jmp	dword SEL_CODE32:boot_entry32

; The GDT lives in the ROM.  The Accessed bit is preset in every descriptor:
; otherwise the CPU would *write* the descriptor when loading a selector,
; and a write to the read-only image is an MMIO exit (or is dropped).
	align	8
gdt:
	dq	0				; null
	dq	0x00cf9b000000ffff		; 0x08: code32, base 0, 4 GiB
	dq	0x00cf93000000ffff		; 0x10: data, base 0, 4 GiB
	dq	0x00af9b000000ffff		; 0x18: code64 (L=1)
gdt_end:

; Loaded by `o32 lgdt` in real mode, so the full 32-bit base is used.
gdt_desc:
	dw	gdt_end - gdt - 1
	dd	gdt
