; SPDX-License-Identifier: MIT
;
; print.asm -- the ROM's few messages, through INT 10h teletype: on a VGA
; screen, or on the serial port when SeaBIOS runs its serial console (as
; QEMU asks it to with -nographic and no VGA).  Writing to COM1 ourselves
; as well would print every line twice there.  Real mode, DS = CS.

; PRINT "text": the literal is placed in line and jumped over.
%macro PRINT 1
	jmp	%%over
%%text:	db	%1, 0
%%over:
	push	si
	mov	si, %%text
	call	print_str
	pop	si
%endmacro

; print_str: DS:SI = NUL-terminated string.  Preserves every register.
print_str:
	push	ax
	push	si
.next:
	lodsb
	test	al, al
	jz	.done
	call	print_char
	jmp	.next
.done:
	pop	si
	pop	ax
	ret

; print_char: AL, through INT 10h teletype.  Preserves every register.
print_char:
	pusha
	mov	ah, 0x0e
	xor	bx, bx			; page 0
	int	0x10
	popa
	ret

; print_hex32: EAX, as 0x + 8 hex digits.  Preserves every register.
print_hex32:
	pushad
	mov	edx, eax
	mov	al, '0'
	call	print_char
	mov	al, 'x'
	call	print_char
	mov	cx, 8
.digit:
	rol	edx, 4
	mov	al, dl
	and	al, 0x0f
	add	al, '0'
	cmp	al, '9'
	jbe	.out
	add	al, 'a' - '9' - 1
.out:
	call	print_char
	loop	.digit
	popad
	ret

; print_dec: AX, unsigned decimal.  Preserves every register.
print_dec:
	pusha
	xor	cx, cx
	mov	bx, 10
.divide:
	xor	dx, dx
	div	bx
	push	dx
	inc	cx
	test	ax, ax
	jnz	.divide
.emit:
	pop	ax
	add	al, '0'
	call	print_char
	loop	.emit
	popa
	ret
