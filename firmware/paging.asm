; SPDX-License-Identifier: MIT
;
; paging.asm -- the firmware's own page tables: the boot identity map (long
; mode) and the self-test's "OS" tables for its 32-bit guest modes.  The
; handler's private address spaces are built elsewhere (private.asm).
;
; Boot map (PVSMM_FW_PAGETABLES_GPA, built by the BSP in 32-bit mode):
; PML4[0] -> PDPT, PDPT[0..3] -> four PDs of 2 MiB pages = the low 4 GiB,
; including the ROM at the top and the MMIO holes (all WB: nothing here
; cares).  Every other PML4 slot stays empty -- in particular slot
; PVSMM_WINDOW_SLOT, which a host with the window path enabled fills with
; the window PDPT.  Accessed/Dirty bits are preset so the CPU never has to
; write them.
;
; The 32-bit guest modes of the self-test (bootinfo flags, selftest32.asm)
; run on identity maps of the low 4 GiB as well:
;	PAE	PVSMM_FW_OS_PAE_PDPT_GPA + 32 * vCPU index: a 4-entry PDPT
;		onto the boot map's four page directories (a PAE PDE has the
;		long-mode format).  One per vCPU: QEMU's TCG, emulating
;		nested paging in the lab, sets the Accessed bit in a PDPTE it
;		walks (a reserved bit there), and KVM then refuses to load
;		that PDPT at the next CR0/CR3/CR4 write (#GP).  A PDPT of its
;		own is loaded by each vCPU before its own walks touch it.
;	2-level	PVSMM_FW_OS_PD32_GPA: 1024 PDEs of 4 MiB pages (CR4.PSE)

%define PD_ENTRY_FLAGS		(PTE_P | PTE_RW | PTE_A)
%define LEAF_RW_FLAGS		(PTE_P | PTE_RW | PTE_A | PTE_D)

	bits	32
; build_boot_map32: the tables' memory is already zero.  Clobbers EAX, ECX,
; EDX, EDI.
build_boot_map32:
	mov	dword [BOOT_PML4], BOOT_PDPT + PD_ENTRY_FLAGS
	; PDPT[i] -> PD i, i = 0..3
	mov	edi, BOOT_PDPT
	mov	eax, BOOT_PD0 + PD_ENTRY_FLAGS
	mov	ecx, 4
.pdpt:
	mov	[edi], eax
	add	eax, 0x1000
	add	edi, 8
	loop	.pdpt
	; 2048 PDEs, contiguous: PD0..PD3 follow each other.  The upper dword
	; of each (physical address bits 63:32) stays zero.
	mov	edi, BOOT_PD0
	mov	eax, LEAF_RW_FLAGS | PTE_PS
	mov	ecx, 2048
.pd:
	mov	[edi], eax
	add	eax, 0x200000
	add	edi, 8
	loop	.pd
	ret

; build_os_tables32: the self-test's PAE PDPT and 2-level page directory.
; Their memory is already zero.  Clobbers EAX, ECX, EDI.
build_os_tables32:
	mov	edi, PVSMM_FW_OS_PAE_PDPT_GPA
	mov	ecx, 4 * PVSMM_FW_MAX_VCPUS
.pdpt:
	mov	eax, ecx
	neg	eax
	and	eax, 3			; entries 0..3 of each PDPT, in turn
	shl	eax, 12
	add	eax, BOOT_PD0 + PTE_P	; a PDPTE takes no other flag
	mov	[edi], eax
	add	edi, 8
	loop	.pdpt
	mov	edi, PVSMM_FW_OS_PD32_GPA
	mov	eax, LEAF_RW_FLAGS | PTE_PS
	mov	ecx, 1024
.pd32:
	mov	[edi], eax
	add	eax, 0x400000
	add	edi, 4
	loop	.pd32
	ret

%if PVSMM_FW_OS_PAE_PDPT_GPA + 32 * PVSMM_FW_MAX_VCPUS > PVSMM_FW_OS_PD32_GPA
%error the per-vCPU PAE PDPTs overlap the 2-level directory
%endif
%if PVSMM_FW_OS_PAE_PDPT_GPA < PVSMM_FW_PAGETABLES_GPA || PVSMM_FW_OS_PD32_GPA + 0x1000 > PVSMM_FW_PRIVATE_GPA
%error the OS tables are not where boot.asm zeroes them
%endif
