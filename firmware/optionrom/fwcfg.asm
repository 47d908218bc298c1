; SPDX-License-Identifier: MIT
;
; fwcfg.asm -- QEMU's firmware configuration interface, I/O port variant
; (docs/specs/fw_cfg.rst in QEMU): select a key with a 16-bit write to the
; selector port, then read its bytes, little-endian, from the data port.
; Used for what region.asm must know: how many vCPUs the VM can have, and
; where QEMU will load an initrd for `-kernel` (the region must not land
; there): its address and size, and the kernel's setup header.
; On a BIOS without QEMU's fw_cfg the caller falls back to defaults.

%define FW_CFG_PORT_SEL		0x510
%define FW_CFG_PORT_DATA	0x511
%define FW_CFG_SIGNATURE	0x00
%define FW_CFG_NB_CPUS		0x05	; vCPUs at boot (16 bits)
%define FW_CFG_INITRD_ADDR	0x0a	; 32 bits, 0 without -initrd
%define FW_CFG_INITRD_SIZE	0x0b
%define FW_CFG_MAX_CPUS		0x0f	; boot + hot-pluggable (16 bits)
%define FW_CFG_SETUP_DATA	0x18	; the kernel's real-mode header
; In the kernel's setup header (Documentation/arch/x86/boot.rst):
%define SETUP_HEADER		0x202	; "HdrS"
%define SETUP_HDRS		0x53726448
%define SETUP_VERSION		0x206	; boot protocol, 16 bits
%define SETUP_INITRD_ADDR_MAX	0x22c	; 32 bits, protocol 2.03 and later
%define FW_CFG_QEMU_SIG		0x554d4551	; "QEMU"

; fwcfg_read32: AX = key.  Returns EAX = the first 4 bytes of the item.
; Clobbers DX.
fwcfg_read32:
	mov	dx, FW_CFG_PORT_SEL
	out	dx, ax
	mov	dx, FW_CFG_PORT_DATA
	push	cx
	mov	cx, 4
.byte:
	in	al, dx
	ror	eax, 8			; four rotations: byte 0 ends up lowest
	loop	.byte
	pop	cx
	ret

; fwcfg_present: CF clear when QEMU's fw_cfg answers.  Clobbers EAX, DX.
fwcfg_present:
	mov	ax, FW_CFG_SIGNATURE
	call	fwcfg_read32
	cmp	eax, FW_CFG_QEMU_SIG
	je	.yes
	stc
	ret
.yes:
	clc
	ret

; fwcfg_initrd_addr_max: EAX = the highest address the -kernel's initrd
; may use, as QEMU's boot ROM (linuxboot_dma.bin) takes it from the
; kernel's setup header: initrd_addr_max, 0x37ffffff before boot protocol
; 2.03; 0 when FW_CFG_SETUP_DATA is no Linux setup header (a PVH ELF
; kernel: QEMU's pvh.bin loads its initrd at FW_CFG_INITRD_ADDR as it
; is).  Clobbers CX, DX.
fwcfg_initrd_addr_max:
	push	bx
	mov	ax, FW_CFG_SETUP_DATA
	mov	dx, FW_CFG_PORT_SEL
	out	dx, ax
	mov	dx, FW_CFG_PORT_DATA
	mov	cx, SETUP_HEADER
.skip_to_magic:
	in	al, dx
	loop	.skip_to_magic
	mov	cx, 4
.magic:
	in	al, dx
	ror	eax, 8
	loop	.magic
	cmp	eax, SETUP_HDRS
	je	.linux
	xor	eax, eax
	pop	bx
	ret
.linux:
	in	al, dx
	mov	bl, al
	in	al, dx
	mov	bh, al
	mov	cx, SETUP_INITRD_ADDR_MAX - SETUP_VERSION - 2
.skip_to_max:
	in	al, dx
	loop	.skip_to_max
	mov	cx, 4
.byte:
	in	al, dx
	ror	eax, 8
	loop	.byte
	cmp	bx, 0x203
	jae	.out
	mov	eax, 0x37ffffff
.out:
	pop	bx
	ret

