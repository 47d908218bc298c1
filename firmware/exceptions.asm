; SPDX-License-Identifier: MIT
;
; exceptions.asm -- a minimal long-mode IDT so that a fault is reported on
; the serial line (vector, error code, RIP, CR2) and through the debug-exit
; port (value 3) instead of silently triple-faulting.
;
; One exception is expected: the local handler check (hcheck.asm) runs the
; handler's private-path return, whose OUT is followed by UD2; with
; SH_SIM_EXPECT_UD set, #UD resumes the check instead.  RAX and RDX (the
; OUT's value and port) are kept for it in SH_EXC_RAX and SH_EXC_RDX.
;
; The gates point at ROM (reachable through the boot identity map); the
; table itself is built in RAM (SH_IDT) by the BSP before the APs start.

	bits	64

%define EXC_FAIL_CODE	3

	align	16
exc_stubs:
	EXC_REPORT_STUBS exc_common

; build_idt: 32 interrupt gates, selector SEL_CODE64, IST 0, DPL 0.
; Clobbers RAX, RCX, RDX, RDI.
build_idt:
	mov	edi, SH_IDT
	lea	rdx, [exc_stubs]
	mov	ecx, IDT_VECTORS
.gate:
	IDT_GATE_DWORDS [rdi], [rdi + 4], edx, SEL_CODE64, 0x8e00
	mov	rax, rdx
	shr	rax, 32
	mov	[rdi + 8], rax		; offset 63:32, reserved
	add	rdx, 16
	add	edi, 16
	loop	.gate
	ret

idt_desc:
	dw	IDT_VECTORS * 16 - 1
	dq	SH_IDT

; Frame: [rsp] vector, +8 error code, +16 RIP, +24 CS, +32 RFLAGS, +40 RSP.
exc_common:
	mov	[abs SH_EXC_RAX], rax
	mov	[abs SH_EXC_RDX], rdx
	cmp	qword [rsp], 6
	jne	.fatal
	cmp	qword [abs SH_SIM_EXPECT_UD], 0
	je	.fatal
	mov	qword [abs SH_SIM_EXPECT_UD], 0
	mov	rsp, [abs SH_SIM_RSP]
	jmp	hcheck_ud_resume

.fatal:
	; No serial lock: this vCPU may hold it already.  Garbled output
	; beats a deadlock.
	mov	rbp, rsp		; the print macros push: address via RBP
	mov	eax, 1
	cpuid
	shr	ebx, 24
	PUTS	`\npvsmm: EXCEPTION on vCPU `
	PUTDEC	rbx
	PUTS	" vector="
	PUTDEC	[rbp]
	PUTS	" error="
	PUTHEX	[rbp + 8]
	PUTS	" rip="
	PUTHEX	[rbp + 16]
	PUTS	" rsp="
	PUTHEX	[rbp + 40]
	mov	rax, cr2
	PUTS	" cr2="
	PUTHEX	rax
	PUTS	`\n`
	mov	eax, EXC_FAIL_CODE
	mov	edx, PVSMM_DEBUG_EXIT_PORT
	out	dx, eax
	jmp	park64
