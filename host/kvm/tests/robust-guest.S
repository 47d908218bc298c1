/* SPDX-License-Identifier: MIT */
/*
 * Guest code for kvm-robust-test.c: 64-bit code that the test copies into
 * guest memory (identity mapped, CPL 0), and the reflection handlers it
 * registers (copied to the handler page, mapped at PVSMM_WINDOW_BASE).
 * Everything here is position independent inside its blob; the addresses
 * it uses are the test's fixed guest-physical layout (robust-layout.h).
 */
#include "robust-layout.h"

	.intel_syntax noprefix
	.section .rodata
	.code64

/* ---------------------------------------------------------------------
 * The guest program: entry points, IDT handlers.  Copied to G_CODE.
 * ------------------------------------------------------------------- */
	.globl guest_start, guest_end, guest_reader, guest_reader_in
	.globl guest_register, guest_fuzz, guest_rereg
	.globl guest_exc_stubs, guest_nmi, guest_irq
	.balign 16
guest_start:

/*
 * reader: rcx reads of the PM timer at port r14d, each checked against
 * this vCPU's previous value and against the last value any vCPU
 * published (monotonic modulo 2^24, one tick of slack between clock
 * sources), counted in the stats block at rbp; an OUT to P_PROGRESS every
 * r15 reads (0: never), an OUT to P_DONE at the end.  Registers the loop
 * keeps: rcx, rbp, r13, r14, r15, r10, r8 -- a reflection that did not
 * restore them all breaks the exact counts the test checks.
 */
guest_reader:
	mov r13d, G_DATA
	mov r8d, [rbp + ST_LAST]
	xor r10d, r10d
1:	mov r9d, [r13 + D_GLOBAL_LAST]
	mov edx, r14d
guest_reader_in:
	in eax, dx
	inc qword ptr [rbp + ST_READS]
	mov [rbp + ST_LAST], eax

	/* This vCPU: back = (last - now) mod 2^24. */
	mov edi, r8d
	sub edi, eax
	and edi, 0xffffff
	cmp edi, 0x800000
	jae 2f
	cmp rdi, [rbp + ST_MAX_BACK]
	jbe 3f
	mov [rbp + ST_MAX_BACK], rdi
3:	cmp edi, 1
	jbe 2f
	inc qword ptr [rbp + ST_OWN_BACK]
	mov [rbp + ST_BAD_NOW], eax
	mov [rbp + ST_BAD_PREV], r8d
2:	mov r8d, eax

	/* All vCPUs: the value published before this read started. */
	mov edi, r9d
	sub edi, eax
	and edi, 0xffffff
	cmp edi, 0x800000
	jae 2f
	cmp rdi, [rbp + ST_MAX_BACK]
	jbe 3f
	mov [rbp + ST_MAX_BACK], rdi
3:	cmp edi, 1
	jbe 2f
	inc qword ptr [rbp + ST_GLOBAL_BACK]
	mov [rbp + ST_BAD_NOW], eax
	mov [rbp + ST_BAD_PREV], r9d
2:
	/* Publish it if it is newer than the last published value. */
	mov r11d, eax
4:	mov edi, r11d
	sub edi, r9d
	and edi, 0xffffff
	jz 5f
	cmp edi, 0x800000
	jae 5f
	mov eax, r9d
	lock cmpxchg [r13 + D_GLOBAL_LAST], r11d
	je 5f
	mov r9d, eax
	jmp 4b
5:
	test r15, r15
	jz 6f
	inc r10
	cmp r10, r15
	jb 6f
	xor r10d, r10d
	mov eax, r11d
	out P_PROGRESS, eax
6:	dec rcx
	jnz 1b
	out P_DONE, al
7:	hlt
	jmp 7b

/* register: WRMSR PVSMM_MSR_REGISTER with rsi, then reader. */
guest_register:
	mov rax, rsi
	mov rdx, rsi
	shr rdx, 32
	push rcx
	mov ecx, L_MSR_REGISTER
	wrmsr
	pop rcx
	jmp guest_reader

/*
 * rereg: rcx times, WRMSR PVSMM_MSR_REGISTER with each of the 4 values at
 * rsi, flipping bit 0 of the dword at r8 (the magic of a descriptor) after
 * each; then with the first value again.
 */
guest_rereg:
	mov rbx, rcx
1:	xor r12d, r12d
2:	mov rax, [rsi + r12 * 8]
	mov rdx, rax
	shr rdx, 32
	mov ecx, L_MSR_REGISTER
	wrmsr
	xor dword ptr [r8], 1
	inc r12
	cmp r12, 4
	jb 2b
	dec rbx
	jnz 1b
	mov rax, [rsi]
	mov rdx, rax
	shr rdx, 32
	mov ecx, L_MSR_REGISTER
	wrmsr
	out P_DONE, al
3:	hlt
	jmp 3b

/*
 * fuzz: for i in 0 .. rcx-1, WRMSR PVSMM_MSR_REGISTER with the value at
 * [rsi + 8 * i] and then with 0, so that no registration stays; whether
 * the first WRMSR raised #GP goes to the byte at [rdi + i].
 */
guest_fuzz:
	mov r13d, G_DATA
	mov rbx, rcx
	xor r12d, r12d
1:	mov qword ptr [r13 + D_GP_FLAG], 0
	mov rax, [rsi + r12 * 8]
	mov rdx, rax
	shr rdx, 32
	mov ecx, L_MSR_REGISTER
	wrmsr
	mov rax, [r13 + D_GP_FLAG]
	mov [rdi + r12], al
	xor eax, eax
	xor edx, edx
	wrmsr
	inc r12
	cmp r12, rbx
	jb 1b
	out P_DONE, al
7:	hlt
	jmp 7b

/*
 * Exception stubs, 16 bytes apart, vectors 0..31: normalize the frame to
 * [vector][error code][rip]... and go to exc_common.
 */
	.macro EXC vec
	.balign 16
	.if (\vec == 8 || (\vec >= 10 && \vec <= 14) || \vec == 17 || \vec == 21 || \vec == 29 || \vec == 30)
	.else
	push 0
	.endif
	push \vec
	jmp exc_common
	.endm

	.balign 16
guest_exc_stubs:
	.irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	EXC \v
	.endr

/*
 * A #GP on WRMSR (the fuzzer's reserved bits) is skipped and flagged.
 * Anything else is logged (vector, RIP, RSP) and halts for good.
 */
exc_common:
	push rax
	push rbx
	mov ebx, G_DATA
	cmp qword ptr [rsp + 16], 13
	jne 1f
	mov rax, [rsp + 32]
	cmp word ptr [rax], 0x300f
	jne 1f
	add qword ptr [rsp + 32], 2
	mov qword ptr [rbx + D_GP_FLAG], 1
	pop rbx
	pop rax
	add rsp, 16
	iretq
1:	mov rax, [rsp + 16]
	mov [rbx + D_EXC_VEC], rax
	mov rax, [rsp + 32]
	mov [rbx + D_EXC_RIP], rax
	mov rax, [rsp + 56]
	mov [rbx + D_EXC_RSP], rax
	lock inc qword ptr [rbx + D_EXC_COUNT]
2:	hlt
	jmp 2b

/* NMI (IST 1): log the interrupted RIP. */
	.balign 16
guest_nmi:
	push rax
	push rbx
	mov ebx, G_DATA
	mov rax, [rsp + 16]
	mov [rbx + D_NMI_RIP], rax
	lock inc qword ptr [rbx + D_NMI_COUNT]
	pop rbx
	pop rax
	iretq

/* The interrupt the test injects (vector V_IRQ): log the interrupted RIP. */
	.balign 16
guest_irq:
	push rax
	push rbx
	mov ebx, G_DATA
	mov rax, [rsp + 16]
	mov [rbx + D_IRQ_RIP], rax
	lock inc qword ptr [rbx + D_IRQ_COUNT]
	pop rbx
	pop rax
	iretq

guest_end:

/* ---------------------------------------------------------------------
 * SMM handler, copied to SMBASE + 0x8000 (16-bit code): report, RSM.
 * ------------------------------------------------------------------- */
	.globl smm_start, smm_end
	.code16
smm_start:
	mov al, 0x53
	out P_SMI, al
	rsm
smm_end:
	.code64

/* ---------------------------------------------------------------------
 * Reflection handlers.  Entry: RDI = save area, RSP = private stack,
 * IF = 0; PVSMM_RETURN_IRET: preserve everything but RAX and return with
 * IRETQ; PVSMM_RETURN_EXIT: result to the save area, OUT to return_port.
 * ------------------------------------------------------------------- */

/*
 * The PM timer from the save area's kvmclock snapshot:
 *	ns = system_time + ((tsc - tsc_timestamp) << shift) * mul >> 32
 *	ticks = ns * 3579545 / 10^9 mod 2^24
 * Leaves the ticks in eax; clobbers rcx, rdx.
 */
	.macro PM_TICKS
	rdtsc
	shl rdx, 32
	or rax, rdx
	sub rax, [rdi + SA_PVCLOCK + 8]
	movsx ecx, byte ptr [rdi + SA_PVCLOCK + 28]
	test ecx, ecx
	js 81f
	shl rax, cl
	jmp 82f
81:	neg ecx
	shr rax, cl
82:	mov edx, [rdi + SA_PVCLOCK + 24]
	mul rdx
	shrd rax, rdx, 32
	add rax, [rdi + SA_PVCLOCK + 16]
	mov ecx, 3579545
	mul rcx
	mov ecx, 1000000000
	div rcx
	and eax, 0xffffff
	.endm

	/* Return by the method KVM chose; ticks in eax. */
	.macro RETURN
	cmp byte ptr [rdi + SA_RETURN_METHOD], L_RETURN_IRET
	jne 83f
	pop rdx
	pop rcx
	mov rdi, [rdi + SA_RDI]
	iretq
83:	mov [rdi + SA_RESULT], eax
	mov dx, [rdi + SA_RETURN_PORT]
	out dx, eax
84:	jmp 84b
	.endm

	/* Wreck every register the interrupted code keeps in the test. */
	.macro CLOBBER
	mov rbx, 0xbadbadbadbad
	mov rcx, rbx
	mov rdx, rbx
	mov rsi, rbx
	mov rbp, rbx
	mov r8, rbx
	mov r9, rbx
	mov r10, rbx
	mov r11, rbx
	mov r12, rbx
	mov r13, rbx
	mov r14, rbx
	mov r15, rbx
	.endm

	.macro HANDLER name
	.globl h_\name\()_start, h_\name\()_end
	.balign 16
h_\name\()_start:
	.endm
	.macro END_HANDLER name
h_\name\()_end:
	.endm

	/* A correct handler. */
	HANDLER good
	push rcx
	push rdx
	PM_TICKS
	inc qword ptr [rdi + SA_HANDLER_RUNS]
	RETURN
	END_HANDLER good

	/*
	 * Correct, but stops at an OUT to P_PROBE first (the test injects
	 * events or leaves KVM_RUN there).
	 */
	HANDLER probe
	push rcx
	push rdx
	out P_PROBE, al
	PM_TICKS
	inc qword ptr [rdi + SA_HANDLER_RUNS]
	RETURN
	END_HANDLER probe

	/*
	 * Correct value, but overwrites everything KVM wrote to the save
	 * area before returning (the fields its own return uses put back).
	 */
	HANDLER scribble
	push rcx
	push rdx
	PM_TICKS
	inc qword ptr [rdi + SA_HANDLER_RUNS]
	push qword ptr [rdi + SA_RDI]
	push qword ptr [rdi]
	mov rcx, 0xa5a5a5a5a5a5a5a5
	.irp off, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112
	mov [rdi + \off], rcx
	.endr
	/* Put back what RETURN below uses: method, port, RDI. */
	pop qword ptr [rdi]
	pop qword ptr [rdi + SA_RDI]
	RETURN
	END_HANDLER scribble

	/* PVSMM_RETURN_IRET: a bad CS in the IRETQ frame (#GP at IRETQ). */
	HANDLER frame
	push rcx
	push rdx
	PM_TICKS
	mov qword ptr [rdi + L_PERCPU_SIZE - 40 + 8], 0x1234
	RETURN
	END_HANDLER frame

	HANDLER ud
	CLOBBER
	ud2
	END_HANDLER ud

	/* #PF: 1 GiB is mapped neither by the guest nor by the window. */
	HANDLER pf
	CLOBBER
	mov eax, 0x40000000
	mov rax, [rax]
	END_HANDLER pf

	/* #GP: a non-canonical address. */
	HANDLER gp
	CLOBBER
	mov rax, 0x8000000000000000
	mov rax, [rax]
	END_HANDLER gp

	HANDLER de
	CLOBBER
	xor ecx, ecx
	div rcx
	END_HANDLER de

	HANDLER hang
	CLOBBER
1:	jmp 1b
	END_HANDLER hang

	HANDLER hlt
	CLOBBER
1:	hlt
	jmp 1b
	END_HANDLER hlt

	/* The handler's code continues at an MMIO address (no memslot). */
	HANDLER mmio
	CLOBBER
	mov rax, L_WINDOW_BASE + H_MMIO_VA_OFF
	jmp rax
	END_HANDLER mmio

	.section .note.GNU-stack, "", @progbits
