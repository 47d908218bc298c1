; SPDX-License-Identifier: MIT
;
; pmm.asm -- the PnP BIOS Post Memory Manager (PMM 1.01), which SeaBIOS
; offers to option ROMs during POST.  A structure "$PMM" on a paragraph
; boundary in segment F000 holds the far entry point; calls follow the C
; convention (arguments pushed right to left, result in DX:AX, every
; other register preserved).  A *permanent* allocation (flags bit 3)
; outlives POST: SeaBIOS reports it as reserved in the E820 map (high
; memory) or lowers the base-memory size at 40:13h and reserves the rest
; of the first 640 KiB (conventional memory), so the OS never uses it.

%define PMM_SIGNATURE		0x4d4d5024	; "$PMM"
%define PMM_ALLOCATE		0
%define PMM_DEALLOCATE		2
%define PMM_CONVENTIONAL	(1 << 0)	; below 1 MiB
%define PMM_EXTENDED		(1 << 1)	; above 1 MiB
%define PMM_PERMANENT		(1 << 3)
; Our allocation's handle (findable with PMM function 1): "PVSM".
%define PMM_HANDLE		PVSMM_CPUID_SIGNATURE

; pmm_find: EAX = far entry (segment << 16 | offset), 0 if there is no
; valid PMM structure.  Clobbers BX, CX, DX, SI.
pmm_find:
	push	es
	mov	ax, 0xf000
	mov	es, ax
	xor	si, si
.scan:
	cmp	dword [es:si], PMM_SIGNATURE
	jne	.next
	; The structure's bytes, [length] of them from offset 0, sum to 0.
	movzx	cx, byte [es:si + 5]
	jcxz	.next
	xor	dl, dl
	mov	bx, si
.sum:
	add	dl, [es:bx]
	inc	bx
	loop	.sum
	test	dl, dl
	jnz	.next
	mov	ax, [es:si + 9]		; entry segment
	shl	eax, 16
	mov	ax, [es:si + 7]		; entry offset
	pop	es
	ret
.next:
	add	si, 16
	jnz	.scan			; stop after F000:FFF0
	xor	eax, eax
	pop	es
	ret

; pmm_allocate: EAX = length in paragraphs, CX = flags, SS:BX -> the far
; entry.  Returns EAX = physical address, 0 on failure.
pmm_allocate:
	push	edx
	push	ds
	push	es
	push	cx			; flags
	push	dword PMM_HANDLE
	push	eax			; length
	push	word PMM_ALLOCATE
	call	far [ss:bx]
	add	sp, 12
	pop	es
	pop	ds
	shl	edx, 16
	mov	dx, ax
	mov	eax, edx
	pop	edx
	ret

; pmm_free: EAX = address from pmm_allocate, SS:BX -> the far entry.
; Clobbers EAX.
pmm_free:
	push	edx
	push	ds
	push	es
	push	eax			; buffer
	push	word PMM_DEALLOCATE
	call	far [ss:bx]
	add	sp, 6
	pop	es
	pop	ds
	pop	edx
	ret
