; SPDX-License-Identifier: MIT
;
; pvsmm-optionrom.asm -- the pvsmm handler for legacy BIOS guests, packaged
; as an ISA-style option ROM (build/firmware/pvsmm.rom), loaded with QEMU's
; `-option-rom` like kvmvapic.bin.  SeaBIOS (or any PC BIOS) calls the init
; entry at offset 3 once, on the BSP, in real mode, during POST.  It:
;
;   1. looks for the pvsmm CPUID leaf (KVM base + 0x80) and does nothing
;      more if the host does not offer registration (no memory taken);
;   2. sizes the private region for the VM's maximum vCPU count (fw_cfg
;      FW_CFG_MAX_CPUS on QEMU, else PVSMM_MAX_VCPUS);
;   3. takes that memory from the BIOS through PnP PMM as a *permanent*
;      allocation, which the BIOS removes from the OS's memory map (see
;      region.asm for where it lands and why);
;   4. builds the private region there (region.asm: the handler,
;      firmware/handler.asm unchanged, with its 64-bit and 32-bit entries;
;      the private GDT and IDTs; page tables for long mode, PAE and
;      2-level paging, so that 32-bit OSes are served too; the ABI v2
;      descriptor) and writes the descriptor's address to
;      PVSMM_MSR_REGISTER.
;
; The registration is VM-wide (abi.h): the application processors that
; SeaBIOS parks and that the OS later starts with INIT/SIPI into its own
; trampoline never run this ROM, and they are covered all the same, since
; the descriptor provides an area for every vCPU up to nr_vcpus.
;
; Nothing here knows the PM timer's port: the handler serves whatever port
; the host reflects (0x608 under SeaBIOS, q35 or pc; ...).
;
; Files, %included here (one flat image):
;	print.asm	messages on COM1 and INT 10h
;	fwcfg.asm	QEMU's fw_cfg: vCPU counts, where QEMU puts an initrd
;	pmm.asm		the PnP Post Memory Manager: find, allocate, free
;	region.asm	choose the memory, unreal mode, build the region,
;			register
;	acpi.asm	the PM timer's port (FADT), reads before registering
;	handler.asm	the reflection handler (../handler.asm), copied out

%include "abi.inc"
%include "fwdefs.inc"		; HANDLER_*, REGION_*, PTE_*, the private GDT
%include "pm_math.asm"		; macros only in -f bin

	bits	16
	org	0

; ---- Option ROM header (the size byte and the checksum are set by
; romsum.py after assembly: NASM cannot sum its own output) ---------------
rom_start:
	db	0x55, 0xaa
	db	0			; length in 512-byte blocks
	jmp	near rom_init		; offset 3: the init entry
	times	0x18 - ($ - $$) db 0
	dw	0			; no PCI data structure: ISA-style ROM
	dw	0			; no PnP expansion header: no boot entry
	db	"pvsmm option ROM, ABI ", '0' + PVSMM_ABI_VERSION, 0

; ---- Init entry: far call from the BIOS; every register is preserved ----
rom_init:
	pushf
	pushad
	push	ds
	push	es
	push	fs
	push	gs
	cld
	push	cs
	pop	ds			; our strings and the handler blob
	call	rom_main
	pop	gs
	pop	fs
	pop	es
	pop	ds
	popad
	popf
	retf

%include "print.asm"
%include "fwcfg.asm"
%include "pmm.asm"
%include "region.asm"
%include "acpi.asm"

; rom_main: DS = CS.  Decides, allocates, registers, reports.
rom_main:
%ifdef PVSMM_ROM_TEST
	; Test image (`make -C firmware/optionrom test-image`): build the
	; region on any host and stop short of the WRMSR (register below).
	jmp	.offered
%endif
	call	find_pvsmm_leaf		; EAX = leaf, 0 = not offered
	test	eax, eax
	jnz	.offered
	PRINT	`pvsmm: not offered by the host (no CPUID leaf), ROM idle\r\n`
	ret
.offered:
	call	region_setup
	ret

; find_pvsmm_leaf: KVM's CPUID base is 0x40000000, or 0x40000100 when a
; Hyper-V interface sits below it; the pvsmm leaf is base + 0x80 and must
; carry the signature, the REGISTER feature and the ABI's MSR index.
; Returns EAX = the leaf, or 0.  Clobbers EBX, ECX, EDX, ESI.
find_pvsmm_leaf:
	mov	esi, 0x40000000
.try:
	mov	eax, esi
	xor	ecx, ecx
	cpuid
	cmp	ebx, KVM_SIG_EBX
	jne	.next
	cmp	ecx, KVM_SIG_ECX
	jne	.next
	cmp	edx, KVM_SIG_EDX
	jne	.next
	lea	eax, [esi + PVSMM_CPUID_LEAF_OFFSET]
	push	eax
	xor	ecx, ecx
	cpuid
	cmp	eax, PVSMM_CPUID_SIGNATURE
	jne	.no
	test	ebx, PVSMM_FEATURE_REGISTER
	jz	.no
	; A host that names another MSR speaks another ABI: writing an MSR
	; it does not handle would #GP, so do not guess.
	cmp	ecx, PVSMM_MSR_REGISTER
	jne	.no
	pop	eax
	ret
.no:
	pop	eax
	xor	eax, eax
	ret
.next:
	add	esi, 0x100
	cmp	esi, 0x40000100
	jbe	.try
	xor	eax, eax
	ret

; ---- The handler, assembled here and copied out by region.asm -----------
%include "handler.asm"
	bits	16
	default	abs

	db	0			; checksum (romsum.py), never code
	align	512, db 0
rom_end:
	times	-((rom_end - rom_start) > 255 * 512) db 0	; ROM too large
