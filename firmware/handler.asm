; SPDX-License-Identifier: MIT
;
; handler.asm -- the guest-resident PM timer handler (the reflection target).
;
; Assembled inside the ROM image between handler_start and handler_end, and
; copied by the BSP to PVSMM_FW_HANDLER_GPA, which the window maps at
; PVSMM_WINDOW_BASE (= descriptor.handler_va).  It is therefore strictly
; position-independent: only relative branches, RIP-relative or
; RDI-relative memory operands, no absolute addresses, and nothing outside
; the blob is referenced (the ROM is not mapped in the interrupted context
; nor in the private address space).
;
; Entry (abi.h): 64-bit mode, CPL 0, RFLAGS = 0x2, RDI = linear address of
; this vCPU's save area, RSP = this vCPU's private stack (on the fast path:
; the iretq frame), every other register = the interrupted value.
;
; The hot path (PVSMM_RETURN_IRET, 32-bit IN) is straight-line apart from
; the never-taken retry branch: 33 instructions from entry to iretq when
; tsc_shift <= 0 (3 more for a positive shift).  It clobbers only RCX, RDX
; and RSI besides RAX, and puts them back from its private stack.

; size, direction, return_method, pad0 as one little-endian dword.
%define FAST_CASE	(4 | (PVSMM_DIR_IN << 8) | (PVSMM_RETURN_IRET << 16))
%if PVSMM_SAVE_direction != PVSMM_SAVE_size + 1 || PVSMM_SAVE_return_method != PVSMM_SAVE_size + 2
%error save area fields moved: FAST_CASE no longer matches
%endif

	bits	64
	default	rel
	align	16
handler_start:
pvsmm_handler:
	push	rcx
	push	rdx
	push	rsi

	; The host copied this vCPU's kvmclock into the save area at this
	; reflection, so the time does not depend on which kvmclock page the
	; OS registered last.  The copy cannot change under us (the host
	; writes it before entry), but the version protocol costs four
	; instructions and keeps the handler correct should a host ever
	; refresh it concurrently.
	PVSMM_PVCLOCK_READ_NS rdi + PVSMM_SAVE_pvclock, esi
	PVSMM_NS_TO_TICKS			; RAX = ticks, bits 63:24 zero

	inc	qword [rdi + PVSMM_SAVE_handler_runs]	; per-vCPU, no LOCK

	; The common case in one compare: size 4, direction IN, return IRET
	; (and pad0 = 0, which the host leaves zero; if it does not, the slow
	; path below decides field by field, correctly, just slower).
	cmp	dword [rdi + PVSMM_SAVE_size], FAST_CASE
	jne	.slow
.done:
	; IRET return: RDI is restored last, it is our base pointer.  A
	; 32-bit IN zero-extends into RAX: that is RAX = ticks already.
	pop	rsi
	pop	rdx
	pop	rcx
	mov	rdi, [rdi + PVSMM_SAVE_rdi]
	iretq

.slow:
	cmp	byte [rdi + PVSMM_SAVE_direction], PVSMM_DIR_IN
	jne	.not_in
	cmp	byte [rdi + PVSMM_SAVE_return_method], PVSMM_RETURN_IRET
	jne	.exit_return
	; Merge with IN semantics: 16/8-bit INs replace only AX/AL.
	cmp	byte [rdi + PVSMM_SAVE_size], 4
	je	.done
	mov	rdx, [rdi + PVSMM_SAVE_rax]
	cmp	byte [rdi + PVSMM_SAVE_size], 2
	je	.word
	mov	dl, al			; size 1 (the host reflects 1, 2, 4 only)
	mov	rax, rdx
	jmp	.done
.word:
	mov	dx, ax
	mov	rax, rdx
	jmp	.done

	; Not a read (the ABI reflects only INs today): the access produces
	; no value, so RAX stays the interrupted one on either return.
.not_in:
	mov	rax, [rdi + PVSMM_SAVE_rax]
	cmp	byte [rdi + PVSMM_SAVE_return_method], PVSMM_RETURN_IRET
	je	.done

	; Generic path (PVSMM_RETURN_EXIT, or any method we do not know): the
	; host keeps the interrupted state itself; it takes the low size bytes
	; of result after our OUT and never resumes this code.  result is the
	; plain 32-bit counter value (what IN EAX would return), unmerged.
.exit_return:
	mov	[rdi + PVSMM_SAVE_result], eax
	movzx	edx, word [rdi + PVSMM_SAVE_return_port]
	out	dx, eax
.dead:
	ud2				; the host must not come back here
	hlt
	jmp	.dead

	align	16
handler_end:

; Label arithmetic is invisible to %if: a negative TIMES count is the
; assemble-time assertion.
	times	-(HANDLER_SIZE > PVSMM_FW_HANDLER_MAX) db 0
