; SPDX-License-Identifier: MIT
;
; fwcfg.asm -- QEMU's firmware configuration interface, I/O port variant
; (docs/specs/fw_cfg.rst in QEMU): select a key with a 16-bit write to the
; selector port, then read its bytes, little-endian, from the data port.
; Used for two facts only: how many vCPUs the VM can have, and where QEMU
; will load an initrd for `-kernel` (region.asm must not land there).
; On a BIOS without QEMU's fw_cfg the caller falls back to defaults.

%define FW_CFG_PORT_SEL		0x510
%define FW_CFG_PORT_DATA	0x511
%define FW_CFG_SIGNATURE	0x00
%define FW_CFG_NB_CPUS		0x05	; vCPUs at boot (16 bits)
%define FW_CFG_INITRD_ADDR	0x0a	; 32 bits, 0 without -initrd
%define FW_CFG_INITRD_SIZE	0x0b
%define FW_CFG_MAX_CPUS		0x0f	; boot + hot-pluggable (16 bits)
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
