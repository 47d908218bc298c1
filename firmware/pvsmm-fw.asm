; SPDX-License-Identifier: MIT
;
; pvsmm-fw.asm -- the pvsmm self-test firmware image (64 KiB, flat binary).
;
; Loaded read-only at PVSMM_FW_ROM_GPA; the reset vector sits at the last
; 16 bytes (0xfffffff0).  Assembled as one unit: each piece is a file of
; its own, %included here.
;
;	reset.asm	real mode -> 32-bit protected mode, the GDT
;	boot.asm	32-bit -> long mode (BSP builds, APs wait)
;	mtrr.asm	memory types: write-back RAM, as a BIOS leaves them
;	paging.asm	boot identity map, the 32-bit test modes' tables
;	private.asm	the handler's private region: blob, GDT/IDT, the
;			long/PAE/2-level address spaces, the descriptor
;	main.asm	BSP/AP flow in long mode, bootinfo
;	serial.asm	COM1 output
;	exceptions.asm	IDT: report faults instead of triple-faulting
;	register.asm	kvmclock, handler install, descriptor, registration
;	hcheck.asm	local handler check (the BSP plays host once)
;	selftest.asm	check and bench phases, the summary
;	selftest32.asm	the same phases in the 32-bit guest modes
;	linux.asm	hand-over to a Linux kernel (x86 boot protocol)
;	handler.asm	the reflection handler: 64-bit and 32-bit entries and
;			their exception stubs (position-independent blob)
;	pm_math.asm	the time math shared by handler, self-test and tests
;	qemu.asm	test image only (-DPVSMM_FW_QEMU_TEST): AP start-up by
;			SIPI and q35's PM timer, for plain QEMU
;
; Only addresses inside the image are 0xffffxxxx; in 64-bit code such
; operands are RIP-relative (default rel), low-memory ones are [abs ...].

%include "abi.inc"
%include "fwdefs.inc"
%include "pm_math.asm"

	org	PVSMM_FW_ROM_GPA
	section	.text	start=PVSMM_FW_ROM_GPA
	section	.rodata	follows=.text
%assign RESET_VECTOR_GPA	PVSMM_FW_ROM_GPA + PVSMM_FW_ROM_SIZE - 16
	section	.reset	start=RESET_VECTOR_GPA

	section	.text
	default	rel

%include "reset.asm"		; first: the reset vector jumps to IP 0
%include "serial.asm"		; defines the PUTS/PUTDEC macros used below
%include "boot.asm"
%include "mtrr.asm"
%include "paging.asm"
%include "private.asm"
%include "main.asm"
%include "exceptions.asm"
%include "register.asm"
%include "hcheck.asm"
%include "selftest.asm"
%include "selftest32.asm"
%include "linux.asm"
%include "handler.asm"
%ifdef PVSMM_FW_QEMU_TEST
%include "qemu.asm"		; test image only
%endif

; The reset vector: CS base 0xffff0000, IP 0xfff0, real mode.
	section	.reset
	bits	16
reset_vector:
	; JMP rel16 from IP 0xfff3 to IP 0 (reset_entry16): wraps within CS.
	db	0xe9
	dw	(0 - (RESET_VECTOR_GPA - PVSMM_FW_ROM_GPA + 3)) & 0xffff
	times	16 - ($ - $$) db 0xf4	; hlt: never executed
