; SPDX-License-Identifier: MIT
;
; hcheck.asm -- the local handler check: the BSP plays the host once per
; case and reflects a synthetic PM timer read into the installed handler,
; before registering it.  It runs everywhere (plain QEMU/TCG included), so
; the handler's entry/return contract is tested without a pvsmm host:
;
;  - it puts the window PDPT into slot PVSMM_WINDOW_SLOT of the boot PML4
;    (what a host's window path does), fills save area 0 with a synthetic
;    pvclock and access, loads a known pattern into every register and
;    enters the handler with RFLAGS = 0x2 and RDI = the save area;
;  - window cases (64-bit entry, IRETQ): an iretq frame on the private
;    stack with CS and SS left zero for the handler to fill (abi.h: it
;    runs on the interrupted ones, here the firmware's); afterwards RAX (the value within the ticks of the TSC
;    before/after, shifted for the port's byte, merged by access size),
;    every other register, RFLAGS, RSP, handler_runs and done == sequence
;    are checked;
;  - private cases (64-bit entry on the window's VAs, and the 32-bit entry
;    at its GPA in compatibility mode, which executes 32-bit code like
;    protected mode): the handler's 32-bit OUT goes nowhere and the UD2
;    after it comes back through the firmware's #UD (exceptions.asm),
;    which keeps RAX and RDX: the unmerged value and the return port are
;    checked.  Only without pvsmm's VMM (no bootinfo): under a host the
;    OUT would reach its return port.
;
; Afterwards the slot is emptied again, the TLB flushed and save area 0
; zeroed, so the host finds the boot PML4 and the save areas untouched.

	bits	64

%define HC_SA		RG_PERCPU	; save area 0, identity map
%define HC_SA_VA	(PVSMM_WINDOW_BASE + PVSMM_REGION_PERCPU)
%define HC_FRAME	(HC_SA + PVSMM_PERCPU_SIZE - PVSMM_IRET_FRAME_SIZE)
%define HC_FRAME_VA	(HC_SA_VA + PVSMM_PERCPU_SIZE - PVSMM_IRET_FRAME_SIZE)
%define HC_RAX		0x8877665544332211	; interrupted RAX
%define HC_RDI		0x1020304050607080	; interrupted RDI
%define HC_RFLAGS	0x0c7			; CF PF ZF SF + bit 1
%define HC_SEQ		0x5e90000000000000	; sequence, + the case's index
%define HC_PAT(n)	(0x5a00000000000000 + (n) * 0x0001000100010001)
%define HC_TSC_BACK	0x100000		; tsc_timestamp lies this far back
%define HC_SYSTEM_TIME	0x0000123456789abc	; ~5.5 h: ns * HZ passes 2^64
%define HC_MUL		0x9abcdef0
%define HC_PORT		PVSMM_PM_TIMER_DEFAULT_PORT	; first_port
%define HC_REG(n)	(SH_SIM_REGS + (n) * 8)	; 0 rax 1 rbx 2 rcx 3 rdx 4 rsi
						; 5 rdi 6 rbp 7 rsp 8-15 r8-r15
						; 16 rflags
; Kinds of case.
%define HC_WINDOW	0	; 64-bit entry, window path, IRETQ
%define HC_PRIVATE	1	; 64-bit entry, private path, OUT
%define HC_ENTRY32	2	; 32-bit entry (PAE/2-level), OUT
; Case table: kind, access size, tsc_shift, port offset (byte of PM_TMR).
%define HC_CASE_SIZE	4
hcheck_cases:
	db	HC_WINDOW, 4, -1, 0
	db	HC_WINDOW, 2, -1, 0
	db	HC_WINDOW, 1, 0, 0
	db	HC_WINDOW, 4, 2, 0
	db	HC_WINDOW, 2, -5, 0
	db	HC_WINDOW, 1, -1, 1
	db	HC_WINDOW, 2, -1, 2
	db	HC_WINDOW, 1, -1, 3
	db	HC_PRIVATE, 4, -1, 0
	db	HC_PRIVATE, 2, 1, 0
	db	HC_PRIVATE, 1, -1, 2
	db	HC_ENTRY32, 4, -1, 0
	db	HC_ENTRY32, 4, 2, 1
	db	HC_ENTRY32, 2, -5, 0
	db	HC_ENTRY32, 1, -31, 3
	db	HC_ENTRY32, 4, 5, 0
hcheck_cases_end:
%define HC_NCASES	((hcheck_cases_end - hcheck_cases) / HC_CASE_SIZE)

hcheck_entry64_va:
	dq	PVSMM_WINDOW_BASE + PVSMM_REGION_CODE + HANDLER_ENTRY64_OFF

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
		(RG + PVSMM_REGION_WINDOW_PDPT) | PTE_P | PTE_RW | PTE_A
	lea	r12, [hcheck_cases]
	xor	r13d, r13d		; cases run
	call	run_kat
	mov	r14d, eax		; cases failed (+ failed known answers)
.case:
	cmp	byte [r12], HC_WINDOW
	je	.run
	cmp	dword [abs SH_BOOTINFO_OK], 0
	jne	.next			; under pvsmm's VMM: no stray OUT
.run:
	movzx	ecx, byte [r12]		; kind
	movzx	ebx, byte [r12 + 1]	; size
	movsx	edx, byte [r12 + 2]	; shift
	movzx	esi, byte [r12 + 3]	; port offset
	lea	rax, [hcheck_cases]
	mov	rdi, r12
	sub	rdi, rax
	shr	edi, 2			; case index
	call	hcheck_one
	inc	r13
	test	eax, eax
	jz	.next
	inc	r14
	; EAX = what failed (1 + register slot, 100 value, 101 runs, 103
	; done, 104 return port).
	call	serial_lock
	PUTS	"pvsmm: local handler check FAILED: kind="
	movzx	ecx, byte [r12]
	PUTDEC	rcx
	PUTS	" size="
	movzx	ecx, byte [r12 + 1]
	PUTDEC	rcx
	PUTS	" shift="
	movsx	rcx, byte [r12 + 2]
	PUTSDEC	rcx
	PUTS	" port+"
	movzx	ecx, byte [r12 + 3]
	PUTDEC	rcx
	PUTS	" what="
	PUTDEC	rax
	PUTS	`\n`
	call	serial_unlock
.next:
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
	PUTS	" (private-path cases skipped under pvsmm's VMM)"
.all:
	PUTS	`\n`
	call	serial_unlock
	pop	r14
	pop	r13
	pop	r12
	pop	rbx
	ret

; hcheck_one: ECX = kind, EBX = size, EDX = tsc_shift, ESI = port offset,
; EDI = the case's index.  Returns EAX = 0 if the case passed.  Clobbers
; RBX, RCX, RDX, RSI, RDI, R8-R11 (the handler is entered with every
; register overwritten).
hcheck_one:
	push	r12
	push	r13
	push	r14
	push	rbp
	push	r15

	; The save area, as a host fills it.
	mov	r8d, edi
	mov	edi, HC_SA
	lea	eax, [rsi + HC_PORT]
	mov	[rdi + PVSMM_SAVE_port], ax
	mov	[rdi + PVSMM_SAVE_size], bl
	mov	byte [rdi + PVSMM_SAVE_direction], PVSMM_DIR_IN
	mov	byte [rdi + PVSMM_SAVE_return_method], PVSMM_RETURN_EXIT
	mov	byte [rdi + PVSMM_SAVE_mode], PVSMM_MODE_LONG
	cmp	ecx, HC_WINDOW
	jne	.not_window
	mov	byte [rdi + PVSMM_SAVE_return_method], PVSMM_RETURN_IRET
.not_window:
	cmp	ecx, HC_ENTRY32
	jne	.not32
	mov	byte [rdi + PVSMM_SAVE_mode], PVSMM_MODE_PAE
.not32:
	mov	word [rdi + PVSMM_SAVE_return_port], PVSMM_DEFAULT_RETURN_PORT
	mov	dword [rdi + PVSMM_SAVE_vcpu_index], 0
	mov	word [rdi + PVSMM_SAVE_first_port], HC_PORT
	mov	word [rdi + PVSMM_SAVE_first_port + 2], 0	; pad0
	mov	rax, HC_SEQ
	add	rax, r8
	mov	[rdi + PVSMM_SAVE_sequence], rax
	mov	qword [rdi + PVSMM_SAVE_done], 0
	mov	rax, HC_RAX
	mov	[rdi + PVSMM_SAVE_rax], rax
	mov	rax, HC_RDI
	mov	[rdi + PVSMM_SAVE_rdi], rax
	mov	qword [rdi + PVSMM_SAVE_handler_runs], 0
	lea	rbp, [rdi + PVSMM_SAVE_pvclock]
	mov	dword [rbp + PVSMM_PVCLOCK_version], 2
	mov	[rbp + PVSMM_PVCLOCK_tsc_shift], dl
	mov	dword [rbp + PVSMM_PVCLOCK_tsc_to_system_mul], HC_MUL
	mov	rax, HC_SYSTEM_TIME
	mov	[rbp + PVSMM_PVCLOCK_system_time], rax
	mov	r9d, ecx		; kind
	lfence
	rdtsc
	shl	rdx, 32
	or	rax, rdx
	mov	rdx, rax		; tsc_before
	sub	rax, HC_TSC_BACK
	mov	[rbp + PVSMM_PVCLOCK_tsc_timestamp], rax
	push	rsi			; port offset
	push	rdx			; tsc_before
	push	rbx			; size
	push	r9			; kind

	; The iretq frame (window cases): back to hcheck_resume on this stack.
	mov	edi, HC_FRAME
	lea	rax, [hcheck_resume]
	mov	[rdi + 0], rax
	mov	qword [rdi + 8], 0		; CS, SS: the handler's to fill
	mov	qword [rdi + 16], HC_RFLAGS
	mov	[rdi + 24], rsp
	mov	qword [rdi + 32], 0
	mov	[abs SH_SIM_RSP], rsp
	xor	eax, eax
	cmp	r9d, HC_WINDOW
	setne	al
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
	mov	r10, HC_PAT(10)
	mov	r11, HC_PAT(11)
	mov	r12, HC_PAT(12)
	mov	r13, HC_PAT(13)
	mov	r14, HC_PAT(14)
	mov	r15, HC_PAT(15)
	cmp	r9d, HC_ENTRY32
	je	.enter32
	mov	rdi, HC_SA_VA
	mov	rsp, HC_FRAME_VA
	cmp	r9d, HC_WINDOW
	mov	r9, HC_PAT(9)
	je	.enter64
	mov	rsp, HC_SA_VA + PVSMM_PERCPU_SIZE	; private: no frame
.enter64:
	jmp	[hcheck_entry64_va]
.enter32:
	; Far return into the 32-bit entry: compatibility mode on the boot
	; map, where the region's GPAs are mapped 1:1 as in the PAE and
	; 2-level address spaces.
	mov	r9, HC_PAT(9)
	mov	rsp, HC_SA + PVSMM_PERCPU_SIZE
	push	SEL_CODE32
	push	RG_CODE + HANDLER_ENTRY32_OFF
	mov	edi, HC_SA
	retfq

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
	pop	r12			; kind
	pop	r13			; size
	pop	r14			; tsc_before
	pop	r15			; port offset
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
	; The port's byte: lo = e_lo >> 8k, hi = e_hi >> 8k, vmask = the
	; bits that byte offset can give.
	lea	ecx, [r15 * 8]
	shr	r8d, cl
	shr	r9d, cl
	mov	ebx, PVSMM_PM_TIMER_MASK
	shr	ebx, cl			; vmask

	mov	eax, 101
	cmp	qword [abs HC_SA + PVSMM_SAVE_handler_runs], 1
	jne	.out

	; The value and what the access leaves above it: window cases merge
	; into RAX (IN AL/AX keep the rest of the interrupted RAX, IN EAX
	; zero-extends), private cases give the unmerged 32-bit value.
	cmp	r12d, HC_WINDOW
	jne	.private_value
	mov	eax, 103
	mov	rdx, [abs HC_SA + PVSMM_SAVE_sequence]
	cmp	[abs HC_SA + PVSMM_SAVE_done], rdx
	jne	.out
	mov	r10, [abs HC_REG(0)]
	mov	r11, HC_RAX		; expected upper bits
	mov	edi, 0xff		; size mask
	mov	eax, 0xffff
	cmp	r13d, 2
	cmove	edi, eax
	mov	eax, 0xffffffff
	cmp	r13d, 4
	cmove	edi, eax
	jne	.have_value
	xor	r11d, r11d		; IN EAX zero-extends
	jmp	.have_value
.private_value:
	mov	eax, 104
	movzx	edx, word [abs SH_EXC_RDX]
	cmp	edx, PVSMM_DEFAULT_RETURN_PORT
	jne	.out
	mov	r10d, [abs SH_EXC_RAX]	; the OUT's EAX
	xor	r11d, r11d
	mov	edi, 0xffffffff
.have_value:
	; (value & ~size mask) must equal the expected upper bits, and no
	; value bit above what the byte offset gives may be set.
	mov	eax, 100
	mov	rdx, r10
	xor	rdx, r11
	mov	rcx, rdi
	not	rcx
	test	rdx, rcx
	jnz	.out
	mov	edx, r10d
	and	edx, edi
	mov	ecx, ebx
	not	ecx
	test	edx, ecx
	jnz	.out
	; ((v - lo) & m) <= ((hi - lo) & m), m = vmask & size mask.  When
	; more ticks than m can hold passed between the two samples (256 for
	; IN AL: 71 us, easily lost to a host preemption), every value is
	; possible and the masked comparison would wrongly fail.
	and	edi, ebx		; m
	mov	edx, r9d
	sub	edx, r8d
	and	edx, ebx
	cmp	edx, edi
	jae	.range_ok
	mov	ecx, r10d
	sub	ecx, r8d
	and	ecx, edi
	cmp	ecx, edx
	ja	.out
.range_ok:
	xor	eax, eax
	cmp	r12d, HC_WINDOW
	jne	.out			; the host restores registers

	; Registers: everything but RAX preserved, RDI from the save area.
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
