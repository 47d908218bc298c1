; SPDX-License-Identifier: MIT
;
; paging.asm -- the boot identity map and the handler's private window.
;
; Boot map (PVSMM_FW_PAGETABLES_GPA, built by the BSP in 32-bit mode):
; PML4[0] -> PDPT, PDPT[0..3] -> four PDs of 2 MiB pages = the low 4 GiB,
; including the ROM at the top and the MMIO holes (all WB: nothing here
; cares).  Every other PML4 slot stays empty -- in particular slot
; PVSMM_WINDOW_SLOT, which the host fills with the window PDPT on the fast
; path.  Accessed/Dirty bits are preset so the CPU never has to write them.
;
; Private address space (PVSMM_FW_PRIVATE_GPA, built by the BSP in long
; mode, used by the host on the generic path as descriptor.private_cr3):
;	private PML4 [PVSMM_WINDOW_SLOT] -> window PDPT
;	window PDPT [0] -> window PD, window PD [0] -> window PT
;	window PT [0 .. n-1]  -> the handler pages (read/exec)
;	window PT [PVSMM_FW_WINDOW_PERCPU_OFFSET/4096 + i] -> vCPU i's area
;						(read/write)
; Supervisor-only (U/S = 0) and no NX anywhere: EFER.NXE may be off in the
; interrupted context, which would make bit 63 reserved.

%define PD_ENTRY_FLAGS		(PTE_P | PTE_RW | PTE_A)
%define LEAF_RO_FLAGS		(PTE_P | PTE_A)
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

	bits	64
; build_private_map64: ESI = handler size in bytes, EDX = number of vCPU
; areas.  The private region is already zero.  Clobbers RAX, RCX, RDI.
build_private_map64:
	mov	dword [abs PVSMM_FW_PRIVATE_PML4_GPA + PVSMM_WINDOW_SLOT * 8], \
		PVSMM_FW_WINDOW_PDPT_GPA + PD_ENTRY_FLAGS
	mov	dword [abs PVSMM_FW_WINDOW_PDPT_GPA], \
		PVSMM_FW_WINDOW_PD_GPA + PD_ENTRY_FLAGS
	mov	dword [abs PVSMM_FW_WINDOW_PD_GPA], \
		PVSMM_FW_WINDOW_PT_GPA + PD_ENTRY_FLAGS

	; Handler pages: ceil(size / 4096) read-only PTEs from window + 0.
	lea	ecx, [rsi + 0xfff]
	shr	ecx, 12
	mov	edi, PVSMM_FW_WINDOW_PT_GPA
	mov	eax, PVSMM_FW_HANDLER_GPA + LEAF_RO_FLAGS
.code:
	mov	[rdi], eax
	add	eax, 0x1000
	add	edi, 8
	loop	.code

	; Per-vCPU areas: writable, from window + PVSMM_FW_WINDOW_PERCPU_OFFSET.
	mov	ecx, edx
	mov	edi, PVSMM_FW_WINDOW_PT_GPA + (PVSMM_FW_WINDOW_PERCPU_OFFSET >> 12) * 8
	mov	eax, PVSMM_FW_PERCPU_GPA + LEAF_RW_FLAGS
.percpu:
	mov	[rdi], eax
	add	eax, PVSMM_PERCPU_SIZE
	add	edi, 8
	loop	.percpu
	ret

%if PVSMM_FW_HANDLER_MAX > PVSMM_FW_WINDOW_PERCPU_OFFSET
%error handler pages would overlap the per-vCPU pages in the window
%endif
%if PVSMM_FW_WINDOW_PERCPU_OFFSET + PVSMM_FW_MAX_VCPUS * PVSMM_PERCPU_SIZE > 0x200000
%error the window needs more than one page table
%endif
%if PVSMM_PERCPU_SIZE != 0x1000
%error per-vCPU areas are mapped one page each
%endif
