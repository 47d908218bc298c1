; SPDX-License-Identifier: MIT
;
; handler.asm -- the guest-resident PM timer handler (the reflection target),
; ABI version 2: one blob with an entry per kind of address space.
;
;	pvsmm_entry64	64-bit mode: the long entry (private path and window)
;	pvsmm_stubs64	its private IDT's 32 exception stubs (16 bytes each)
;	pvsmm_entry32	32-bit protected mode: the PAE and 2-level entries
;	pvsmm_stubs32	their private IDT's 32 exception stubs
;
; Every firmware piece (self-test image, option ROM, UEFI driver) copies
; the blob to PVSMM_REGION_CODE of its region and maps it read-only and
; executable: at PVSMM_WINDOW_BASE + PVSMM_REGION_CODE in the long-mode
; address space (the window), at its GPA in the PAE and 2-level ones.  So
; the blob is strictly position-independent: relative branches,
; RIP-relative or register-relative memory operands, nothing outside it.
; The offsets of the four pieces within the blob are HANDLER_*_OFF
; (fwdefs.inc).
;
; Entry (abi.h): CPL 0, RFLAGS = 0x2, RDI/EDI = linear address of this
; vCPU's save area, RSP/ESP = the top of its area (window path: the iretq
; frame).  On the private path (return_method PVSMM_RETURN_EXIT) every
; register may be clobbered: the host restores the interrupted state from
; its own copy when the handler's 32-bit OUT to save_area.return_port
; carries the value in EAX.  On the window path (PVSMM_RETURN_IRET, 64-bit
; only) the handler merges the value into RAX as IN does, preserves every
; other register, completes the iretq frame with CS and SS, stores
; save_area.sequence into save_area.done and returns with IRETQ.
;
; The value: ticks = the PM timer at this instant from the save area's
; pvclock copy (pm_math.asm), and a read of byte k of the 32-bit PM_TMR
; register (port = first_port + k) returns ticks >> 8k.
;
; No CALL/RET anywhere (a supervisor shadow stack would fault on the RET
; of a CALL the OS's shadow stack never saw); ENDBR at every entry and
; stub, so that IBT accepts the host's entry and exception delivery.
;
; The stubs: an exception inside the handler (only a broken host or a
; broken firmware can cause one) must not become a triple fault.  Each
; stub reports PVSMM_FAULT_REPORT | vector with a 16-bit OUT to the return
; port -- found through the stack pointer alone, the one register the CPU
; itself keeps pointing into the area -- and halts; the host restores the
; interrupted state, serves the read itself and disables reflection.  A
; UD2 follows the handler's own OUT: a host that resumed it would get the
; #UD report.

	bits	64
	default	rel
	align	16
handler_start:

; ---- 64-bit entry ----------------------------------------------------------
pvsmm_entry64:
	endbr64
	push	rcx
	push	rdx
	push	rsi
	; The host copied this vCPU's kvmclock into the save area at this
	; reflection, so the time does not depend on which kvmclock page the
	; OS registered last.  The copy cannot change under us; the version
	; protocol costs four instructions and keeps the handler correct
	; should a host ever refresh it concurrently.
	PVSMM_PVCLOCK_READ_NS rdi + PVSMM_SAVE_pvclock, esi
	PVSMM_NS_TO_TICKS			; RAX = ticks, bits 63:24 zero
	movzx	ecx, word [rdi + PVSMM_SAVE_port]
	sub	cx, [rdi + PVSMM_SAVE_first_port]
	shl	ecx, 3
	shr	eax, cl				; byte k of PM_TMR
	inc	qword [rdi + PVSMM_SAVE_handler_runs]	; per-vCPU, no LOCK
	cmp	byte [rdi + PVSMM_SAVE_return_method], PVSMM_RETURN_IRET
	jne	.private

	; Window path.  IN EAX zero-extends into RAX: done.  IN AL/AX replace
	; only AL/AX of the interrupted RAX.
	movzx	ecx, byte [rdi + PVSMM_SAVE_size]
	cmp	ecx, 4
	je	.window_return
	shl	ecx, 3				; 8 or 16 value bits
	mov	rdx, -1
	shl	rdx, cl				; the bits IN keeps
	mov	rsi, rdx
	not	rsi
	and	rax, rsi
	and	rdx, [rdi + PVSMM_SAVE_rax]
	or	rax, rdx
.window_return:
	pop	rsi
	pop	rdx
	pop	rcx
	; The frame's CS and SS are ours to fill (abi.h): we run on the
	; interrupted ones, the host left the slots zero.
	mov	[rsp + 8], cs
	mov	[rsp + 32], ss
	; Completion mark, memory to memory through the stack: no register
	; of the interrupted context is needed for it.  RDI goes last, it is
	; our base pointer.
	push	qword [rdi + PVSMM_SAVE_sequence]
	pop	qword [rdi + PVSMM_SAVE_done]
	mov	rdi, [rdi + PVSMM_SAVE_rdi]
	iretq

	; Private path: the unmerged 32-bit value; the host takes the low
	; size bytes and never resumes this code.
.private:
	movzx	edx, word [rdi + PVSMM_SAVE_return_port]
	out	dx, eax
	ud2

; ---- 64-bit exception stubs (private IDT) --------------------------------
	align	16, db 0xcc
pvsmm_stubs64:
%assign vec 0
%rep 32
	endbr64
	mov	eax, PVSMM_FAULT_REPORT | vec
	jmp	pvsmm_stub64_common
	align	16, db 0xcc
%assign vec vec + 1
%endrep
pvsmm_stub64_common:
	mov	rdx, rsp
	and	rdx, -PVSMM_PERCPU_SIZE		; this vCPU's save area
	movzx	edx, word [rdx + PVSMM_SAVE_return_port]
	out	dx, ax
.dead:
	hlt
	jmp	.dead

; ---- 32-bit entry (PAE and 2-level paging) ---------------------------------
; DS, ES, FS, GS are the interrupted context's: every access goes through
; SS (PVSMM_PRIVATE_DS, flat), with EBP as the base.
	bits	32
	align	16, db 0xcc
pvsmm_entry32:
	endbr32
	mov	ebp, edi
	PVSMM_PVCLOCK_READ_NS32 ss:ebp + PVSMM_SAVE_pvclock, edi
	PVSMM_NS_TO_TICKS32			; EAX = ticks
	movzx	ecx, word [ss:ebp + PVSMM_SAVE_port]
	sub	cx, [ss:ebp + PVSMM_SAVE_first_port]
	shl	ecx, 3
	shr	eax, cl				; byte k of PM_TMR
	add	dword [ss:ebp + PVSMM_SAVE_handler_runs], 1
	adc	dword [ss:ebp + PVSMM_SAVE_handler_runs + 4], 0
	movzx	edx, word [ss:ebp + PVSMM_SAVE_return_port]
	out	dx, eax
	ud2

; ---- 32-bit exception stubs (private IDT) --------------------------------
	align	16, db 0xcc
pvsmm_stubs32:
%assign vec 0
%rep 32
	endbr32
	mov	eax, PVSMM_FAULT_REPORT | vec
	jmp	pvsmm_stub32_common
	align	16, db 0xcc
%assign vec vec + 1
%endrep
pvsmm_stub32_common:
	mov	edx, esp
	and	edx, -PVSMM_PERCPU_SIZE		; this vCPU's save area
	movzx	edx, word [ss:edx + PVSMM_SAVE_return_port]
	out	dx, ax
.dead:
	hlt
	jmp	.dead

	align	16, db 0xcc
handler_end:
	bits	64

; Label arithmetic is invisible to %if: a negative TIMES count is the
; assemble-time assertion.
	times	-(HANDLER_SIZE > PVSMM_REGION_CODE_MAX) db 0
	times	-(pvsmm_stub64_common - pvsmm_stubs64 != 32 * 16) db 0
	times	-(pvsmm_stub32_common - pvsmm_stubs32 != 32 * 16) db 0
