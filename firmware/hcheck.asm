; SPDX-License-Identifier: MIT
;
; hcheck.asm -- the local handler check: the BSP plays the host once per
; case and reflects a synthetic PM timer read into the installed handler,
; before registering it.  It runs everywhere (plain QEMU/TCG included), so
; the handler's entry/return contract is tested without a pvsmm host:
;
;  - it puts the window PDPT into slot PVSMM_WINDOW_SLOT of the boot PML4
;    (what the host's fast path does), fills save area 0 with a synthetic
;    pvclock and access, pushes an iretq frame on the private stack, loads
;    a known pattern into every register and jumps to handler_va with
;    RFLAGS = 0x2, RDI = the save area's window address;
;  - IRET cases: after the handler's iretq it checks RAX (value within the
;    ticks of the TSC before/after, merged by access size), every other
;    register, RFLAGS, RSP and handler_runs;
;  - EXIT cases (only without pvsmm's VMM, whose return port must not see
;    a stray OUT): the handler's OUT goes nowhere and its UD2 comes back
;    through #UD (exceptions.asm); save_area.result is checked.
;
; Afterwards the slot is emptied again, the TLB flushed and save area 0
; zeroed, so the host finds the boot PML4 and the save areas untouched.

	bits	64

%define HC_SA		PVSMM_FW_PERCPU_GPA	; save area 0, identity map
%define HC_SA_VA	(PVSMM_WINDOW_BASE + PVSMM_FW_WINDOW_PERCPU_OFFSET)
%define HC_FRAME	(HC_SA + PVSMM_PERCPU_SIZE - PVSMM_IRET_FRAME_SIZE)
%define HC_FRAME_VA	(HC_SA_VA + PVSMM_PERCPU_SIZE - PVSMM_IRET_FRAME_SIZE)
%define HC_RAX		0x8877665544332211	; interrupted RAX
%define HC_RDI		0x1020304050607080	; interrupted RDI
%define HC_RFLAGS	0x0c7			; CF PF ZF SF + bit 1
%define HC_PAT(n)	(0x5a00000000000000 + (n) * 0x0001000100010001)
%define HC_TSC_BACK	0x100000		; tsc_timestamp lies this far back
%define HC_SYSTEM_TIME	0x0000123456789abc	; ~5.5 h: ns * HZ passes 2^64
%define HC_MUL		0x9abcdef0
%define HC_REG(n)	(SH_SIM_REGS + (n) * 8)	; 0 rax 1 rbx 2 rcx 3 rdx 4 rsi
						; 5 rdi 6 rbp 7 rsp 8-15 r8-r15
						; 16 rflags
; Case table: size, return method, tsc_shift, direction.  Method 3 is
; unknown to the ABI: the handler must treat it like EXIT.  Direction OUT
; is not reflected today; the handler must then leave RAX alone.
%define HC_CASE_SIZE	4
hcheck_cases:
	db	4, PVSMM_RETURN_IRET, -1, PVSMM_DIR_IN
	db	2, PVSMM_RETURN_IRET, -1, PVSMM_DIR_IN
	db	1, PVSMM_RETURN_IRET, 0, PVSMM_DIR_IN
	db	4, PVSMM_RETURN_IRET, 2, PVSMM_DIR_IN
	db	2, PVSMM_RETURN_IRET, -5, PVSMM_DIR_IN
	db	4, PVSMM_RETURN_IRET, -1, PVSMM_DIR_OUT
	db	4, PVSMM_RETURN_EXIT, -1, PVSMM_DIR_IN
	db	2, PVSMM_RETURN_EXIT, 1, PVSMM_DIR_IN
	db	1, PVSMM_RETURN_EXIT, -1, PVSMM_DIR_IN
	db	4, 3, -1, PVSMM_DIR_IN
	db	2, PVSMM_RETURN_EXIT, -1, PVSMM_DIR_OUT
hcheck_cases_end:
%define HC_NCASES	((hcheck_cases_end - hcheck_cases) / HC_CASE_SIZE)

hcheck_handler_va:
	dq	PVSMM_WINDOW_BASE

; Known answers for the time math, so that a wrong pm_math in the image is
; caught too (the cases above only check the handler against the same
; macros).  Computed offline with the C definition (abi.h, Linux's
; pvclock_scale_delta, 128-bit ns * 3579545 / 10^9):
;	tsc_timestamp, system_time, mul, shift, tsc, expected ns, ticks
%macro HC_KAT 7
	dq	%1, %2
	dd	%3
	dd	%4
	dq	%5, %6
	dd	%7, 0
%endmacro
%define KAT_TS		0
%define KAT_ST		8
%define KAT_MUL		16
%define KAT_SHIFT	20
%define KAT_TSC		24
%define KAT_NS		32
%define KAT_TICKS	40
%define KAT_SIZE	48
hcheck_kat:
	HC_KAT 0x0000001234567890, 0x0000000000000000, 0x80000000, -1, 0x000000126ff14290, 0x000000000ee6b280, 0x0da7a6
	HC_KAT 0x00000fedcba98765, 0x0000123456789abc, 0x9abcdef0, 0, 0x00000feeeeeeeeee, 0x0000123506873fa3, 0x31989f
	HC_KAT 0x0000000000001000, 0x00000000ffffffff, 0xfedcba98, 2, 0x00000000f0001000, 0x00000004bbbbbbb9, 0x566362
	HC_KAT 0x7fffffff00000000, 0x0001000000000000, 0xffffffff, -5, 0x8000001000000000, 0x0001000087ffffff, 0x4955c2
	HC_KAT 0x00000000deadbeef, 0x0000000000000001, 0x00000001, 5, 0xffffffffdeadbeef, 0x00000000ffffffe1, 0xea96cc
	HC_KAT 0x0123456789abcdef, 0x7000000000000000, 0x12345678, -31, 0x0123456789abcdef, 0x7000000000000000, 0x788374
hcheck_kat_end:

; run_kat: returns EAX = number of failed vectors.  Clobbers RCX, RDX, RSI,
; RDI, R8, R9.
run_kat:
	push	rbp
	sub	rsp, PVSMM_PVCLOCK_SIZE
	mov	rbp, rsp		; a struct pvsmm_pvclock on the stack
	lea	rsi, [hcheck_kat]
	xor	r9d, r9d
.vector:
	mov	rax, [rsi + KAT_TS]
	mov	[rbp + PVSMM_PVCLOCK_tsc_timestamp], rax
	mov	rax, [rsi + KAT_ST]
	mov	[rbp + PVSMM_PVCLOCK_system_time], rax
	mov	eax, [rsi + KAT_MUL]
	mov	[rbp + PVSMM_PVCLOCK_tsc_to_system_mul], eax
	mov	al, [rsi + KAT_SHIFT]
	mov	[rbp + PVSMM_PVCLOCK_tsc_shift], al
	mov	rax, [rsi + KAT_TSC]
	PVSMM_PVCLOCK_NS rbp
	mov	r8, rax
	PVSMM_NS_TO_TICKS
	cmp	r8, [rsi + KAT_NS]
	jne	.bad
	cmp	eax, [rsi + KAT_TICKS]
	je	.ok
.bad:
	inc	r9d
	call	serial_lock
	PUTS	"pvsmm: pm_math known-answer test FAILED: ns="
	PUTHEX	r8
	PUTS	" ticks="
	PUTHEX	rax
	PUTS	" expected "
	PUTHEX	[rsi + KAT_NS]
	PUTS	`\n`
	call	serial_unlock
.ok:
	add	rsi, KAT_SIZE
	lea	rax, [hcheck_kat_end]
	cmp	rsi, rax
	jb	.vector
	mov	eax, r9d
	add	rsp, PVSMM_PVCLOCK_SIZE
	pop	rbp
	ret

; hcheck: BSP only, after install_handler.  Sets SH_HCHECK_FAIL.
hcheck:
	push	rbx
	push	r12
	push	r13
	push	r14
	mov	dword [abs BOOT_PML4 + PVSMM_WINDOW_SLOT * 8], \
		PVSMM_FW_WINDOW_PDPT_GPA | PTE_P | PTE_RW | PTE_A
	lea	r12, [hcheck_cases]
	xor	r13d, r13d		; cases run
	call	run_kat
	mov	r14d, eax		; cases failed (+ failed known answers)
.case:
	cmp	byte [r12 + 1], PVSMM_RETURN_IRET
	je	.run
	cmp	dword [abs SH_BOOTINFO_OK], 0
	jne	.skip			; under pvsmm's VMM: no stray OUT
.run:
	movzx	ebx, byte [r12]		; size
	movzx	ecx, byte [r12 + 1]	; method
	movsx	edx, byte [r12 + 2]	; shift
	movzx	esi, byte [r12 + 3]	; direction
	call	hcheck_one
	inc	r13
	test	eax, eax
	jz	.next
	inc	r14
	; EAX = what failed (1 + register slot, 100 value, 101 runs).
	call	serial_lock
	PUTS	"pvsmm: local handler check FAILED: size="
	movzx	ecx, byte [r12]
	PUTDEC	rcx
	PUTS	" method="
	movzx	ecx, byte [r12 + 1]
	PUTDEC	rcx
	PUTS	" shift="
	movsx	rcx, byte [r12 + 2]
	PUTSDEC	rcx
	PUTS	" direction="
	movzx	ecx, byte [r12 + 3]
	PUTDEC	rcx
	PUTS	" what="
	PUTDEC	rax
	PUTS	`\n`
	call	serial_unlock
.next:
.skip:
	add	r12, HC_CASE_SIZE
	lea	rax, [hcheck_cases_end]
	cmp	r12, rax
	jb	.case

	; Undo: empty the slot, flush, and leave save area 0 as we found it.
	mov	dword [abs BOOT_PML4 + PVSMM_WINDOW_SLOT * 8], 0
	mov	rax, cr3
	mov	cr3, rax
	xor	eax, eax
	mov	edi, HC_SA
	mov	ecx, PVSMM_PERCPU_SIZE / 8
	rep stosq

	mov	[abs SH_HCHECK_FAIL], r14d
	call	serial_lock
	PUTS	"pvsmm: local handler check: "
	PUTDEC	r13
	PUTS	" cases + "
	PUTDEC	(hcheck_kat_end - hcheck_kat) / KAT_SIZE
	PUTS	" known answers, "
	PUTDEC	r14
	PUTS	" failed"
	cmp	r13d, HC_NCASES
	je	.all
	PUTS	" (EXIT-path cases skipped under pvsmm's VMM)"
.all:
	PUTS	`\n`
	call	serial_unlock
	pop	r14
	pop	r13
	pop	r12
	pop	rbx
	ret

; hcheck_one: EBX = size, ECX = return method, EDX = tsc_shift,
; ESI = direction.
; Returns EAX = 0 if the case passed.  Clobbers RBX, RCX, RDX, RSI, RDI,
; R8-R11 (the handler is entered with every register overwritten).
hcheck_one:
	push	r12
	push	r13
	push	r14
	push	rbp
	push	r15

	; Save area: only the fields the handler may read matter.
	mov	edi, HC_SA
	mov	word [rdi + PVSMM_SAVE_port], PVSMM_PM_TIMER_DEFAULT_PORT
	mov	[rdi + PVSMM_SAVE_size], bl
	mov	[rdi + PVSMM_SAVE_direction], sil
	mov	[rdi + PVSMM_SAVE_return_method], cl
	mov	word [rdi + PVSMM_SAVE_return_port], PVSMM_DEFAULT_RETURN_PORT
	mov	dword [rdi + PVSMM_SAVE_result], 0
	mov	rax, HC_RAX
	mov	[rdi + PVSMM_SAVE_rax], rax
	mov	rax, HC_RDI
	mov	[rdi + PVSMM_SAVE_rdi], rax
	mov	qword [rdi + PVSMM_SAVE_handler_runs], 0
	mov	byte [rdi + PVSMM_SAVE_return_method + 1], 0	; pad0
	lea	rbp, [rdi + PVSMM_SAVE_pvclock]
	mov	dword [rbp + PVSMM_PVCLOCK_version], 2
	mov	[rbp + PVSMM_PVCLOCK_tsc_shift], dl
	mov	dword [rbp + PVSMM_PVCLOCK_tsc_to_system_mul], HC_MUL
	mov	rax, HC_SYSTEM_TIME
	mov	[rbp + PVSMM_PVCLOCK_system_time], rax
	lfence
	rdtsc
	shl	rdx, 32
	or	rax, rdx
	mov	rsi, rax		; tsc_before
	sub	rax, HC_TSC_BACK
	mov	[rbp + PVSMM_PVCLOCK_tsc_timestamp], rax
	push	rsi
	push	rbx			; size
	push	rcx			; method

	; The iretq frame: back to hcheck_resume on this very stack.
	mov	edi, HC_FRAME
	lea	rax, [hcheck_resume]
	mov	[rdi + 0], rax
	mov	qword [rdi + 8], SEL_CODE64
	mov	qword [rdi + 16], HC_RFLAGS
	mov	[rdi + 24], rsp
	mov	qword [rdi + 32], SEL_DATA
	mov	[abs SH_SIM_RSP], rsp
	cmp	ecx, PVSMM_RETURN_IRET
	setne	al
	movzx	eax, al
	mov	[abs SH_SIM_EXPECT_UD], rax

	; Enter like the host: RFLAGS = 0x2, patterns everywhere.
	push	2
	popfq
	mov	rax, HC_RAX
	mov	rbx, HC_PAT(1)
	mov	rcx, HC_PAT(2)
	mov	rdx, HC_PAT(3)
	mov	rsi, HC_PAT(4)
	mov	rbp, HC_PAT(6)
	mov	r8, HC_PAT(8)
	mov	r9, HC_PAT(9)
	mov	r10, HC_PAT(10)
	mov	r11, HC_PAT(11)
	mov	r12, HC_PAT(12)
	mov	r13, HC_PAT(13)
	mov	r14, HC_PAT(14)
	mov	r15, HC_PAT(15)
	mov	rdi, HC_SA_VA
	mov	rsp, HC_FRAME_VA
	jmp	[hcheck_handler_va]

hcheck_resume:
	; Capture before touching anything.
	mov	[abs HC_REG(0)], rax
	mov	[abs HC_REG(1)], rbx
	mov	[abs HC_REG(2)], rcx
	mov	[abs HC_REG(3)], rdx
	mov	[abs HC_REG(4)], rsi
	mov	[abs HC_REG(5)], rdi
	mov	[abs HC_REG(6)], rbp
	mov	[abs HC_REG(7)], rsp
	mov	[abs HC_REG(8)], r8
	mov	[abs HC_REG(9)], r9
	mov	[abs HC_REG(10)], r10
	mov	[abs HC_REG(11)], r11
	mov	[abs HC_REG(12)], r12
	mov	[abs HC_REG(13)], r13
	mov	[abs HC_REG(14)], r14
	mov	[abs HC_REG(15)], r15
	pushfq
	pop	qword [abs HC_REG(16)]
	mov	rsp, [abs SH_SIM_RSP]	; (iretq restored it already)
	jmp	hcheck_verify

hcheck_ud_resume:
	; #UD after the handler's OUT; RSP is SH_SIM_RSP again.
	mov	rax, [abs SH_SIM_RSP]
	mov	[abs HC_REG(7)], rax

hcheck_verify:
	lfence
	rdtsc
	shl	rdx, 32
	or	rax, rdx
	mov	r10, rax		; tsc_after
	pop	r12			; method
	pop	r13			; size
	pop	r14			; tsc_before
	mov	ebp, HC_SA + PVSMM_SAVE_pvclock
	; Expected window [e_lo, e_hi] from the same math.
	mov	rax, r14
	PVSMM_PVCLOCK_NS rbp
	PVSMM_NS_TO_TICKS
	mov	r8, rax			; e_lo
	mov	rax, r10
	PVSMM_PVCLOCK_NS rbp
	PVSMM_NS_TO_TICKS
	mov	r9, rax			; e_hi

	mov	eax, 101
	cmp	qword [abs HC_SA + PVSMM_SAVE_handler_runs], 1
	jne	.out

	; Direction OUT: no value, RAX (or result's low 32 bits) unchanged.
	cmp	byte [abs HC_SA + PVSMM_SAVE_direction], PVSMM_DIR_IN
	je	.in
	mov	eax, 102
	mov	rdx, HC_RAX
	cmp	r12d, PVSMM_RETURN_IRET
	jne	.out_exit
	cmp	[abs HC_REG(0)], rdx
	jne	.out
	jmp	.regs
.out_exit:
	cmp	[abs HC_SA + PVSMM_SAVE_result], edx
	jne	.out
	xor	eax, eax
	jmp	.out
.in:

	; The value: RAX after iretq, save_area.result after the OUT.  The
	; bits the access size does not cover must be the interrupted RAX's
	; (IN AL/AX) or zero (IN EAX, and in result above the 24 bits).
	cmp	r12d, PVSMM_RETURN_IRET
	jne	.exit_value
	mov	r10, [abs HC_REG(0)]
	mov	r11, HC_RAX
	jmp	.have_value
.exit_value:
	; result: the unmerged 32-bit value, whatever the access size.
	mov	r10d, [abs HC_SA + PVSMM_SAVE_result]
	xor	r11d, r11d
	mov	edi, PVSMM_PM_TIMER_MASK
	jmp	.upper
.have_value:
	; mask = 2^(8*size) - 1, but 2^24 - 1 for size 4
	mov	edi, PVSMM_PM_TIMER_MASK
	mov	eax, 0xffff
	cmp	r13d, 2
	cmove	edi, eax
	mov	eax, 0xff
	cmp	r13d, 1
	cmove	edi, eax
	cmp	r13d, 4
	jne	.upper
	xor	r11d, r11d		; IN EAX zero-extends
.upper:
	; (value & ~mask) must equal (expected upper & ~mask)
	mov	rax, r10
	xor	rax, r11
	mov	rdx, rdi
	not	rdx
	test	rax, rdx
	mov	eax, 100
	jnz	.out
	; ((v - e_lo) & mask) <= ((e_hi - e_lo) & mask).  When more ticks
	; than the access size can hold passed between the two samples (256
	; for IN AL: 71 us, easily lost to a host preemption), every value is
	; possible and the masked comparison would wrongly fail.
	mov	edx, r9d
	sub	edx, r8d
	and	edx, PVSMM_PM_TIMER_MASK
	cmp	edx, edi
	jae	.range_ok
	mov	eax, r10d
	sub	eax, r8d
	and	eax, edi
	mov	edx, r9d
	sub	edx, r8d
	and	edx, edi
	cmp	eax, edx
	mov	eax, 100
	ja	.out
.range_ok:
	xor	eax, eax
	cmp	r12d, PVSMM_RETURN_IRET
	jne	.out			; the host restores registers on EXIT

	; Registers: everything but RAX preserved, RDI from the save area.
.regs:
%macro HC_EXPECT 2
	mov	rdx, %2
	cmp	[abs HC_REG(%1)], rdx
	mov	eax, 1 + %1
	jne	.out
%endmacro
	HC_EXPECT 1, HC_PAT(1)
	HC_EXPECT 2, HC_PAT(2)
	HC_EXPECT 3, HC_PAT(3)
	HC_EXPECT 4, HC_PAT(4)
	HC_EXPECT 5, HC_RDI
	HC_EXPECT 6, HC_PAT(6)
	HC_EXPECT 7, [abs SH_SIM_RSP]
	HC_EXPECT 8, HC_PAT(8)
	HC_EXPECT 9, HC_PAT(9)
	HC_EXPECT 10, HC_PAT(10)
	HC_EXPECT 11, HC_PAT(11)
	HC_EXPECT 12, HC_PAT(12)
	HC_EXPECT 13, HC_PAT(13)
	HC_EXPECT 14, HC_PAT(14)
	HC_EXPECT 15, HC_PAT(15)
	HC_EXPECT 16, HC_RFLAGS
	xor	eax, eax
.out:
	pop	r15
	pop	rbp
	pop	r14
	pop	r13
	pop	r12
	ret
