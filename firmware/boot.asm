; SPDX-License-Identifier: MIT
;
; boot.asm -- 32-bit protected mode to long mode, for the BSP and the APs.
;
; The BSP (IA32_APIC_BASE.BSP) zeroes the firmware's RAM, builds the boot
; identity map and enters long mode, where it finishes the setup (main.asm)
; and finally sets SH_READY.  The APs wait here, in 32-bit mode without
; paging, for SH_READY: before that the page tables and the IDT they would
; load may not exist yet.  Then they enter long mode on the same tables.
;
; Register use through this file: EBX = vCPU index (initial APIC ID),
; EBP = 1 on the BSP, 0 on an AP.

	bits	32
boot_entry32:
	mov	ax, SEL_DATA
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	fs, ax
	mov	gs, ax

	; vCPU index = initial APIC ID, CPUID.1:EBX[31:24].
	mov	eax, 1
	cpuid
	shr	ebx, 24
	cmp	ebx, PVSMM_FW_MAX_VCPUS
	jae	park32			; no stack, no slot: stay out of the way

	; Boot stack: the top of this vCPU's PVSMM_FW_STACK_SIZE slot.
	lea	esp, [ebx + 1]
	shl	esp, 12
%if PVSMM_FW_STACK_SIZE != 0x1000
%error boot stack slot size changed: fix the shift above
%endif
	add	esp, PVSMM_FW_STACKS_GPA
	call	mtrr_setup32		; every vCPU: caches on (mtrr.asm)

	mov	ecx, MSR_IA32_APIC_BASE
	rdmsr
	xor	ebp, ebp
	test	eax, APIC_BASE_BSP
	jz	.ap_wait

	inc	ebp
	call	zero_fw_ram32
	call	build_boot_map32
	call	build_os_tables32
	jmp	enter_long_mode32

.ap_wait:
	; SH_READY is only ever set by the BSP, after every table exists.
	pause
	cmp	dword [SH_READY], 0
	je	.ap_wait

enter_long_mode32:
	mov	eax, cr4
	or	eax, CR4_PAE
	mov	cr4, eax
	mov	eax, BOOT_PML4
	mov	cr3, eax
	; NXE: the private region's long-mode tables mark data NX (W^X), and
	; the window path serves only contexts with NXE set (abi.h).
	push	ebx				; the vCPU index
	mov	eax, 0x80000001
	cpuid
	pop	ebx
	xor	esi, esi
	bt	edx, 20				; CPUID.80000001H:EDX.NX
	jnc	.no_nx
	mov	esi, EFER_NXE
.no_nx:
	mov	ecx, MSR_EFER
	rdmsr
	or	eax, EFER_LME
	or	eax, esi
	wrmsr
	; WP: the handler's code pages are mapped read-only, keep them so.
	mov	eax, cr0
	or	eax, CR0_PG | CR0_WP | CR0_PE
	mov	cr0, eax
	jmp	SEL_CODE64:boot_entry64

park32:
	cli
	hlt
	jmp	park32

; Zero the RAM the firmware owns, from the boot page tables to the end of
; the private region (RAM starts zeroed under our VMM and QEMU, but a warm
; reset would leave stale flags behind).  The shared page is zeroed too:
; the APs only compare SH_READY against 0, and it stays 0.
zero_fw_ram32:
	xor	eax, eax
	mov	edi, PVSMM_FW_PAGETABLES_GPA
	mov	ecx, (PVSMM_FW_PRIVATE_GPA + PVSMM_FW_PRIVATE_SIZE - PVSMM_FW_PAGETABLES_GPA) / 4
	rep stosd
	ret

	bits	64
boot_entry64:
	; CS is the 64-bit selector now; the data selectors are already flat.
	; RSP still holds this vCPU's boot stack (upper half zero).
	lidt	[idt_desc]
	mov	r15d, ebx		; r15 = vCPU index, for the whole run
	test	ebp, ebp
	jnz	bsp_main64
	jmp	ap_main64
