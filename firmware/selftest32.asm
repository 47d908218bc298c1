; SPDX-License-Identifier: MIT
;
; selftest32.asm -- the self-test's check and bench phases in 32-bit
; protected mode, with PAE paging or 2-level paging (bootinfo flags,
; SH_GUEST_MODE), so that every PM timer read of those phases is
; reflected into the handler's 32-bit entry of that mode.
;
; Each vCPU leaves long mode on its own (far return into the 32-bit code
; segment, paging off, EFER.LME off), switches to the "OS" tables of the
; mode (paging.asm: identity maps of the low 4 GiB, so the ROM, the boot
; stacks, the shared page and the kvmclock areas stay where they are; a
; PAE PDPT per vCPU),
; runs the phases and returns to long mode for the report.  The phases
; are the 64-bit ones (selftest.asm) rewritten with the 32-bit time math
; (pm_math.asm, the macros of the handler's 32-bit entry); their results
; go to the vCPU's slot of the shared page.
;
; A fault in the 32-bit phases goes through a 32-bit IDT of the firmware
; (SH_IDT32, built with the 64-bit one) to a stub that reports it through
; the debug-exit port (EXC32_FAIL_CODE << 8 | vector; the VMM then shows
; the registers: EBX = the faulting EIP, ECX = the error code).

%define MONO_BIT32	23

	bits	64
; selftest_phases32: R15 = vCPU index, R14 = its results (VC_*), RBP = its
; kvmclock area.  Clobbers every register but RSP, RBP, R14, R15 (those
; come back from the stack: the upper halves and R8-R15 are undefined
; after a stay outside long mode).
selftest_phases32:
	push	rbp
	push	r14
	push	r15
	mov	[r14 + VC_RSP], rsp
	mov	ebx, r15d
	mov	esi, r14d
	mov	edi, ebp
	push	SEL_CODE32
	lea	rax, [phases32_compat]
	push	rax
	retfq

	bits	32
phases32_compat:
	; Compatibility mode on the boot map (identity: the next instruction
	; is where we expect it after each change).  Out of IA-32e mode, then
	; the mode's tables.
	LEAVE_IA32E
	mov	eax, cr4
	mov	ecx, ebx
	shl	ecx, 5			; this vCPU's own PDPT (paging.asm)
	add	ecx, PVSMM_FW_OS_PAE_PDPT_GPA
	cmp	dword [SH_GUEST_MODE], PVSMM_MODE_PAE
	je	.tables
	and	eax, ~CR4_PAE
	or	eax, CR4_PSE
	mov	ecx, PVSMM_FW_OS_PD32_GPA
.tables:
	mov	cr4, eax
	mov	cr3, ecx
	mov	eax, cr0
	or	eax, CR0_PG
	mov	cr0, eax
	lidt	[idt32_desc]

	mov	ebp, edi		; kvmclock area
	push	esi			; results
	push	ebx			; vCPU index
	call	check32
	call	bench32
	add	esp, 8

	; Back: paging off, the boot map, EFER.LME, paging on = IA-32e mode
	; in the 32-bit segment, then the far jump into 64-bit code.
	mov	eax, cr0
	and	eax, ~CR0_PG
	mov	cr0, eax
	mov	eax, cr4
	and	eax, ~CR4_PSE
	or	eax, CR4_PAE
	mov	cr4, eax
	mov	eax, BOOT_PML4
	mov	cr3, eax
	mov	ecx, MSR_EFER
	rdmsr
	or	eax, EFER_LME
	wrmsr
	mov	eax, cr0
	or	eax, CR0_PG
	mov	cr0, eax
	jmp	dword SEL_CODE64:phases32_back

	bits	64
phases32_back:
	lidt	[idt_desc]
	mov	eax, 1
	cpuid
	shr	ebx, 24			; our vCPU index = initial APIC ID
	shl	ebx, VC_SHIFT
	mov	rsp, [rbx + SH_VCPU + VC_RSP]
	pop	r15
	pop	r14
	pop	rbp
	ret

	bits	32
; check32: [esp + 4] = vCPU index, [esp + 8] = its results, EBP = its
; kvmclock area.  Like the 64-bit check phase; the first failure's numbers
; go to VC_FAIL_*.  Clobbers EAX, EBX, ECX, EDX, ESI, EDI.
check32:
	mov	eax, [esp + 8]
	sub	esp, 16			; [esp] left, +4 e0, +8 v, +12 results
	mov	[esp + 12], eax
	cmp	dword [eax + VC_KVMCLOCK], 0
	je	.out
	mov	ecx, [SH_CHECK_READS]	; (the low half: the VMM asks far less)
	test	ecx, ecx
	jz	.out
	mov	[eax + VC_CHECK_DONE], ecx
	mov	[esp], ecx
.loop:
	PVSMM_PVCLOCK_READ_NS32 ebp, edi	; k0
	PVSMM_NS_TO_TICKS32			; e0
	mov	[esp + 4], eax
	mov	edx, [SH_PORT]
	in	eax, dx
	mov	[esp + 8], eax			; v
	PVSMM_PVCLOCK_READ_NS32 ebp, edi	; k1
	PVSMM_NS_TO_TICKS32			; e1
	; fail unless ((v - e0 + 1) mod 2^24) <= ((e1 - e0) mod 2^24) + 2
	mov	ebx, [esp + 4]
	mov	ecx, [esp + 8]
	mov	edx, eax
	sub	edx, ebx
	and	edx, PVSMM_PM_TIMER_MASK
	add	edx, 2
	mov	esi, ecx
	sub	esi, ebx
	inc	esi
	and	esi, PVSMM_PM_TIMER_MASK
	cmp	esi, edx
	jbe	.ok
	mov	esi, [esp + 12]
	inc	dword [esi + VC_CHECK_FAIL]
	cmp	dword [esi + VC_CHECK_FAIL], 1
	jne	.ok
	mov	[esi + VC_FAIL_E0], ebx
	mov	[esi + VC_FAIL_E1], eax
	mov	[esi + VC_FAIL_V], ecx
.ok:
	dec	dword [esp]
	jnz	.loop
.out:
	add	esp, 16
	ret

; bench32: [esp + 4] = vCPU index, [esp + 8] = its results.  The 64-bit
; bench loop, instruction for instruction, between the two marker OUTs.
; Clobbers EAX, EBX, ECX, EDX, ESI, EDI, EBP.
bench32:
	mov	eax, [esp + 4]
	or	eax, PVSMM_MARK_BENCH_BEGIN << 16
	mov	edx, PVSMM_MARKER_PORT
	out	dx, eax
	mov	ecx, [SH_READS]		; (the low half: the VMM asks far less)
	xor	esi, esi
	xor	ebx, ebx
	xor	edi, edi		; monotonicity failures
	test	ecx, ecx
	jz	.end
	mov	edx, [SH_PORT]
	in	eax, dx			; read 1: the first "prev"
	mov	esi, eax
	mov	ebx, eax
	dec	ecx
	jz	.end
.loop:
	in	eax, dx
	mov	ebp, eax
	sub	ebp, esi
	mov	esi, eax
	shr	ebp, MONO_BIT32		; bit 23 of the 24-bit difference
	and	ebp, 1
	add	edi, ebp
	dec	ecx
	jnz	.loop
.end:
	mov	eax, [esp + 4]
	or	eax, PVSMM_MARK_BENCH_END << 16
	mov	edx, PVSMM_MARKER_PORT
	out	dx, eax
	mov	eax, [esp + 8]
	mov	[eax + VC_MONO_FAIL], edi
	mov	[eax + VC_FIRST], ebx
	mov	[eax + VC_LAST], esi
	ret

idt32_desc:
	dw	IDT_VECTORS * 8 - 1
	dd	SH_IDT32

%define EXC32_FAIL_CODE	0x32

	align	16
exc32_stubs:
	EXC_REPORT_STUBS exc32_common
	times	-($ - exc32_stubs > IDT_VECTORS * 16) db 0	; stride 16
exc32_common:
	pop	eax			; vector
	pop	ecx			; error code
	mov	ebx, [esp]		; EIP
	or	eax, EXC32_FAIL_CODE << 8
	mov	edx, PVSMM_DEBUG_EXIT_PORT
	out	dx, eax
.dead:
	cli
	hlt
	jmp	.dead

; build_idt32: 32 interrupt gates (32-bit), selector SEL_CODE32, in the
; shared page.  Called from 64-bit code (BSP setup).
	bits	64
build_idt32:
	mov	edi, SH_IDT32
	lea	edx, [exc32_stubs]
	mov	ecx, IDT_VECTORS
.gate:
	IDT_GATE_DWORDS [rdi], [rdi + 4], edx, SEL_CODE32, 0x8e00
	add	edx, 16			; the stubs' stride
	add	edi, 8
	loop	.gate
	ret

	bits	64
