; SPDX-License-Identifier: MIT
;
; linux.asm -- the BSP hands the machine over to a Linux kernel that
; pvsmm's VMM loaded (bootinfo.flags & PVSMM_BOOTINFO_LINUX), following
; the x86 boot protocol (Documentation/x86/boot.rst):
;
;  64-bit protocol (the kernel's startup_64, load address + 0x200): long
;	mode, paging on with the kernel, boot_params, command line and initrd
;	identity-mapped (the boot map covers the low 4 GiB, and the VMM keeps
;	everything below 4 GiB), a GDT with flat __BOOT_CS = 0x10 (64-bit
;	code) and __BOOT_DS = 0x18, CS = 0x10, DS = ES = SS = 0x18,
;	interrupts off, RSI = boot_params.  The kernel loads its own GDT and
;	IDT right away.
;  32-bit protocol (code32_start): protected mode with paging OFF, flat
;	4 GiB __BOOT_CS = 0x10 (32-bit code) and __BOOT_DS = 0x18, interrupts
;	off, ESI = boot_params, EBP = EDI = EBX = 0.  Getting there means
;	leaving long mode: far return into a 32-bit (compatibility-mode) code
;	segment, clear CR0.PG (which clears EFER.LMA), then EFER.LME.
;
; Both GDTs are in the ROM with the Accessed bits preset (see reset.asm).
; The firmware's IDT is dropped (limit 0): its gates name selector 0x18,
; which is data in the kernel's GDT, so a fault before the kernel loads its
; own IDT shuts the VM down (the VMM then dumps the registers) instead of
; running a half-valid handler.
;
; Left in place on purpose:
;  - the registration: VM-wide, so it covers every vCPU the kernel starts
;    later with INIT/SIPI into its own trampoline, which never runs
;    firmware.  The descriptor, window, handler and per-vCPU areas lie in
;    memory the VMM reserves in the e820 map, so the kernel never reuses it.
;  - the BSP's kvmclock registration (PVSMM_FW_KVMCLOCK_GPA, reserved too):
;    Linux writes MSR_KVM_SYSTEM_TIME_NEW with its own area on every CPU
;    it brings up, and until then our page is a harmless target for KVM's
;    updates.  Turning it off would gain nothing: the handler never reads
;    any registered page (it uses the save area's copy, see abi.h), and a
;    kernel booted with no-kvmclock would leave the BSP without the
;    kvmclock that a VMM-side reflection (reflect-user) reads.

%define LINUX_BOOT_CS	0x10
%define LINUX_BOOT_DS	0x18

	bits	64
; linux_enter: BSP, after registration.  Does not return.
linux_enter:
	call	serial_lock
	PUTS	"pvsmm: entering Linux, "
	test	dword [abs SH_BOOT_FLAGS], PVSMM_BOOTINFO_LINUX_ENTRY32
	jnz	.say32
	PUTS	"64"
	jmp	.said
.say32:
	PUTS	"32"
.said:
	PUTS	"-bit boot protocol, entry "
	PUTHEX	[abs SH_LINUX_ENTRY]
	PUTS	", boot_params "
	PUTHEX	[abs SH_LINUX_BP]
	PUTS	`\n`
	call	serial_unlock

	cli
	lidt	[linux_null_idt]
	mov	rbx, [abs SH_LINUX_ENTRY]
	mov	rsi, [abs SH_LINUX_BP]
	test	dword [abs SH_BOOT_FLAGS], PVSMM_BOOTINFO_LINUX_ENTRY32
	jnz	.entry32

	lgdt	[linux_gdt64_desc]
	push	LINUX_BOOT_CS		; far return: reload CS from the new GDT
	lea	rax, [.cs64]
	push	rax
	retfq
.cs64:
	mov	ax, LINUX_BOOT_DS
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	fs, ax
	mov	gs, ax
	xor	eax, eax
	xor	ebp, ebp
	xor	edi, edi
	jmp	rbx

.entry32:
	lgdt	[linux_gdt32_desc]
	push	LINUX_BOOT_CS		; a 32-bit code segment: compatibility mode
	lea	rax, [linux_compat32]
	push	rax
	retfq

	bits	32
; Compatibility mode, still on the boot identity map (the ROM is mapped
; 1:1, so the instruction after the CR0 write is where we expect it).
linux_compat32:
	mov	ax, LINUX_BOOT_DS
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	fs, ax
	mov	gs, ax
	LEAVE_IA32E			; paging off: EFER.LMA = 0, then LME
	mov	eax, cr4
	and	eax, ~CR4_PAE
	mov	cr4, eax
	xor	eax, eax
	mov	cr3, eax
	mov	eax, ebx		; code32_start (below 4 GiB)
	xor	ebx, ebx
	xor	ebp, ebp
	xor	edi, edi
	jmp	eax

	bits	64
	align	8
linux_gdt64:
	dq	0, 0
	dq	0x00af9b000000ffff	; 0x10 __BOOT_CS: 64-bit code, 4 GiB
	dq	0x00cf93000000ffff	; 0x18 __BOOT_DS: data, 4 GiB
linux_gdt64_end:
linux_gdt32:
	dq	0, 0
	dq	0x00cf9b000000ffff	; 0x10 __BOOT_CS: 32-bit code, 4 GiB
	dq	0x00cf93000000ffff	; 0x18 __BOOT_DS: data, 4 GiB
linux_gdt32_end:

linux_gdt64_desc:
	dw	linux_gdt64_end - linux_gdt64 - 1
	dq	linux_gdt64
linux_gdt32_desc:
	dw	linux_gdt32_end - linux_gdt32 - 1
	dq	linux_gdt32
linux_null_idt:
	dw	0
	dq	0
