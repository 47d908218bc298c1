; SPDX-License-Identifier: MIT
;
; serial.asm -- polled output on COM1 (PVSMM_SERIAL_PORT), long mode only.
;
; The UART is never programmed: pvsmm's VMM implements only THR, and QEMU's
; 8250 needs no setup for output.  Before each byte we poll LSR.THRE (good
; manners on a real 8250), but bounded: a VMM that returns 0 for LSR would
; otherwise hang us, so the first timeout turns polling off for good.
;
; Several vCPUs print; callers wrap whole lines in serial_lock/serial_unlock
; so lines do not interleave.
;
; All routines preserve every register except those documented.

%define COM_THR		(PVSMM_SERIAL_PORT + 0)
%define COM_LSR		(PVSMM_SERIAL_PORT + 5)
%define LSR_THRE	0x20
%define LSR_POLL_MAX	10000

	bits	64
; serial_putc: AL = byte.
serial_putc:
	push	rax
	push	rcx
	push	rdx
	cmp	byte [abs SH_NOPOLL], 0
	jne	.send
	mov	edx, COM_LSR
	mov	ecx, LSR_POLL_MAX
.poll:
	in	al, dx
	test	al, LSR_THRE
	jnz	.send
	pause
	loop	.poll
	mov	byte [abs SH_NOPOLL], 1
.send:
	mov	eax, [rsp + 16]		; the caller's AL
	mov	edx, COM_THR
	out	dx, al
	pop	rdx
	pop	rcx
	pop	rax
	ret

; serial_puts: RSI = NUL-terminated string.
serial_puts:
	push	rax
	push	rsi
.next:
	lodsb
	test	al, al
	jz	.done
	call	serial_putc
	jmp	.next
.done:
	pop	rsi
	pop	rax
	ret

; PUTS "text": print a literal; the string is placed out of line.
%macro PUTS 1
	[section .rodata]
%%str:	db	%1, 0
	__?SECT?__
	push	rsi
	lea	rsi, [%%str]
	call	serial_puts
	pop	rsi
%endmacro

; serial_put_dec: RAX = unsigned value, printed in decimal.
serial_put_dec:
	push	rax
	push	rcx
	push	rdx
	push	rsi
	sub	rsp, 24			; 20 digits + NUL fit
	lea	rsi, [rsp + 23]
	mov	byte [rsi], 0
	mov	ecx, 10
.digit:
	xor	edx, edx
	div	rcx
	add	dl, '0'
	dec	rsi
	mov	[rsi], dl
	test	rax, rax
	jnz	.digit
	call	serial_puts
	add	rsp, 24
	pop	rsi
	pop	rdx
	pop	rcx
	pop	rax
	ret

; serial_put_sdec: RAX = signed value, printed in decimal.
serial_put_sdec:
	test	rax, rax
	jns	serial_put_dec
	push	rax
	mov	al, '-'
	call	serial_putc
	mov	rax, [rsp]
	neg	rax
	call	serial_put_dec
	pop	rax
	ret

; serial_put_hex: RAX = value, printed as 0x + 16 hex digits.
serial_put_hex:
	push	rax
	push	rcx
	push	rdx
	mov	rdx, rax
	mov	al, '0'
	call	serial_putc
	mov	al, 'x'
	call	serial_putc
	mov	ecx, 16
.nibble:
	rol	rdx, 4
	mov	eax, edx
	and	eax, 0xf
	add	al, '0'
	cmp	al, '9'
	jbe	.out
	add	al, 'a' - '9' - 1
.out:
	call	serial_putc
	loop	.nibble
	pop	rdx
	pop	rcx
	pop	rax
	ret

; PUTDEC value / PUTHEX value: print a 64-bit register or memory operand;
; PUTDEC32 value: a 32-bit one (zero-extended).
%macro PUTDEC 1
	push	rax
	mov	rax, %1
	call	serial_put_dec
	pop	rax
%endmacro
%macro PUTSDEC 1
	push	rax
	mov	rax, %1
	call	serial_put_sdec
	pop	rax
%endmacro
%macro PUTDEC32 1
	push	rax
	mov	eax, %1
	call	serial_put_dec
	pop	rax
%endmacro
%macro PUTHEX 1
	push	rax
	mov	rax, %1
	call	serial_put_hex
	pop	rax
%endmacro

; serial_lock / serial_unlock: a test-and-test-and-set spinlock.
serial_lock:
	push	rax
.try:
	mov	eax, 1
	xchg	eax, [abs SH_LOCK]
	test	eax, eax
	jz	.got
.spin:
	pause
	cmp	dword [abs SH_LOCK], 0
	jne	.spin
	jmp	.try
.got:
	pop	rax
	ret

serial_unlock:
	mov	dword [abs SH_LOCK], 0	; a plain store releases on x86 (TSO)
	ret
