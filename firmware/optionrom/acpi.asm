; SPDX-License-Identifier: MIT
;
; acpi.asm -- the PM timer's port, from the firmware's ACPI tables (FADT
; PM_TMR_BLK; SeaBIOS's 0x608, OVMF's 0xb008 on pc: never assumed), and a few reads of it
; before registering.
;
; Why read it at all: until the ROM registers, every read exits to the
; VMM's own device.  A VMM whose device does not count from kvmclock's
; epoch (stock QEMU: QEMU_CLOCK_VIRTUAL) needs such reads to line the two
; up -- the pvsmm shim for QEMU (host/qemu-shim/epoch.c) does exactly that
; -- or time would jump when the handler takes over, and again at every
; read the host does not reflect.  The BIOS may not read it itself
; (SeaBIOS on KVM times with the TSC).  Unreal mode (FS flat): the tables
; may lie anywhere below 4 GiB.

%define EPOCH_READS	32

; pm_timer_port: DX = the FADT's PM_TMR_BLK, 0 if not found.  Clobbers
; EAX, EBX, ECX, ESI, EDI.
pm_timer_port:
	; The RSDP: "RSD PTR " on a 16-byte boundary in E0000-FFFFF, its
	; first 20 bytes summing to 0.
	mov	esi, 0xe0000
.rsdp:
	cmp	dword [fs:esi], 'RSD '
	jne	.rsdp_next
	cmp	dword [fs:esi + 4], 'PTR '
	jne	.rsdp_next
	mov	ecx, 20
	call	acpi_sum
	jz	.have_rsdp
.rsdp_next:
	add	esi, 16
	cmp	esi, 0x100000
	jb	.rsdp
	jmp	.none
.have_rsdp:
	; The RSDT (32-bit entries; every ACPI version has one for BIOSes).
	mov	esi, [fs:esi + 16]
	test	esi, esi
	jz	.none
	cmp	dword [fs:esi], 'RSDT'
	jne	.none
	mov	edi, [fs:esi + 4]	; length
	add	edi, esi		; end
	add	esi, 36			; first entry
.entry:
	cmp	esi, edi
	jae	.none
	mov	ebx, [fs:esi]
	add	esi, 4
	cmp	dword [fs:ebx], 'FACP'
	jne	.entry
	cmp	dword [fs:ebx + 4], 80	; long enough for PM_TMR_BLK
	jb	.none
	mov	edx, [fs:ebx + 76]	; PM_TMR_BLK (I/O space)
	cmp	edx, 0xffff
	ja	.none
	ret
.none:
	xor	edx, edx
	ret

; acpi_sum: ZF set when the ECX bytes at FS:ESI sum to 0.  Clobbers AL, ECX.
acpi_sum:
	push	esi
	xor	al, al
.byte:
	add	al, [fs:esi]
	inc	esi
	dec	ecx
	jnz	.byte
	pop	esi
	test	al, al
	ret

; read_pm_timer: EPOCH_READS reads through the VMM (not registered yet).
; Clobbers EAX, EBX, ECX, EDX, ESI, EDI.
read_pm_timer:
	call	pm_timer_port
	test	dx, dx
	jz	.out
	mov	cx, EPOCH_READS
.read:
	in	eax, dx
	loop	.read
.out:
	ret
