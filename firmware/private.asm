; SPDX-License-Identifier: MIT
;
; private.asm -- the handler's private region (layout.h): the handler blob,
; the private GDT and IDTs, one address space per paging mode, and the
; descriptor that registers them (abi.h, ABI version 2).
;
; Address spaces, all mapping the same three kinds of pages with 4 KiB
; leaves, supervisor-only, W^X:
;	the GDT/IDT page	read-only (and NX in long mode)
;	the handler code	read-only, executable
;	the per-vCPU areas	writable (and NX in long mode)
;  long mode	PML4 slot PVSMM_WINDOW_SLOT -> window PDPT -> PD -> PT; a page
;		at region offset o appears at PVSMM_WINDOW_BASE + o, so every
;		VA of the long entry lies in the window (the window path maps
;		the same PDPT into the guest's own PML4).  PML5 entry 511 ->
;		the PML4 serves 5-level paging at the same VAs (the window's
;		VAs have bits 56:48 all set).
;  PAE		a 4-entry PDPT -> page directory -> page table; VA = GPA.
;  2-level	page directory -> page table (no PSE); VA = GPA.
; Two PAE directories and two page tables per 32-bit mode are reserved so
; that a region anywhere below 4 GiB may straddle a 1 GiB, 2 MiB or 4 MiB
; line; which one a page uses follows from its distance to the base's.
; The option ROM (optionrom/region.asm) and the UEFI driver build the same
; region with the same rules.

	bits	64

; REGION_ENTRY mode, cr3's region offset, VA of region offset 0 in the
; entry's address space, entry point's offset in the blob, IDT's region
; offset, IDT limit: one struct pvsmm_entry of the descriptor at R12.
%macro REGION_ENTRY 6
	lea	rdi, [r12 + PVSMM_DESC_entry + %1 * PVSMM_ENTRY_SIZE]
	lea	rax, [r12 + %2]
	mov	[rdi + PVSMM_ENTRY_cr3], rax
	mov	rax, %3
	mov	rdx, %4
	mov	ecx, %5
	mov	esi, (%6 << 16) | PVSMM_PRIVATE_GDT_MIN_LIMIT
	call	fill_region_entry
%endmacro

; build_private_region: R12 = region base (4 KiB aligned, below 4 GiB,
; zeroed), R13D = vCPU areas.  Identity-mapped.  Clobbers RAX, RCX, RDX,
; RSI, RDI, R8-R10.
build_private_region:
	lea	rsi, [handler_start]
	lea	rdi, [r12 + PVSMM_REGION_CODE]
	mov	ecx, HANDLER_SIZE
	rep movsb

	mov	rax, PRIVATE_GDT_CODE64
	mov	[r12 + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS64], rax
	mov	rax, PRIVATE_GDT_DATA
	mov	[r12 + PVSMM_REGION_GDT + PVSMM_PRIVATE_DS], rax
	mov	rax, PRIVATE_GDT_CODE32
	mov	[r12 + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS32], rax

	; 64-bit IDT: gate i -> stub i at its window VA.
	lea	rdi, [r12 + PVSMM_REGION_IDT64]
	mov	rdx, PVSMM_WINDOW_BASE + PVSMM_REGION_CODE + HANDLER_STUBS64_OFF
	xor	ecx, ecx
.idt64:
	IDT_GATE_DWORDS [rdi], [rdi + 4], edx, PVSMM_PRIVATE_CS64, IDT64_GATE_TYPE
	mov	rax, rdx
	shr	rax, 32
	mov	[rdi + 8], rax			; offset 63:32, reserved
	add	rdx, 16
	add	rdi, 16
	inc	ecx
	cmp	ecx, 32
	jb	.idt64

	; 32-bit IDT: gate i -> stub i at its GPA.
	lea	rdi, [r12 + PVSMM_REGION_IDT32]
	lea	edx, [r12 + PVSMM_REGION_CODE + HANDLER_STUBS32_OFF]
	xor	ecx, ecx
.idt32:
	IDT_GATE_DWORDS [rdi], [rdi + 4], edx, PVSMM_PRIVATE_CS32, IDT32_GATE_TYPE
	add	edx, 16
	add	rdi, 8
	inc	ecx
	cmp	ecx, 32
	jb	.idt32

	; The long-mode tables above the window's page table.
	lea	rax, [r12 + PVSMM_REGION_WINDOW_PDPT + REGION_TABLE_FLAGS]
	mov	[r12 + PVSMM_REGION_PML4 + PVSMM_WINDOW_SLOT * 8], rax
	lea	rax, [r12 + PVSMM_REGION_WINDOW_PD + REGION_TABLE_FLAGS]
	mov	[r12 + PVSMM_REGION_WINDOW_PDPT], rax
	lea	rax, [r12 + PVSMM_REGION_WINDOW_PT + REGION_TABLE_FLAGS]
	mov	[r12 + PVSMM_REGION_WINDOW_PD], rax
	lea	rax, [r12 + PVSMM_REGION_PML4 + REGION_TABLE_FLAGS]
	mov	[r12 + PVSMM_REGION_PML5 + 511 * 8], rax

	; The pages, in all three address spaces.
	mov	ecx, PVSMM_REGION_TABLES
	mov	eax, REGION_RO_FLAGS
	mov	r10d, 1				; NX
	call	map_region_page
	mov	ecx, PVSMM_REGION_CODE
.code:
	mov	eax, REGION_RO_FLAGS
	xor	r10d, r10d			; executable
	call	map_region_page
	add	ecx, PVSMM_PAGE_SIZE
	cmp	ecx, PVSMM_REGION_CODE + HANDLER_SIZE
	jb	.code
	mov	ecx, PVSMM_REGION_PERCPU
	mov	r8d, r13d
.percpu:
	mov	eax, REGION_RW_FLAGS
	mov	r10d, 1				; NX
	push	r8
	call	map_region_page
	pop	r8
	add	ecx, PVSMM_PERCPU_SIZE
	dec	r8d
	jnz	.percpu

	; The descriptor.
	mov	dword [r12 + PVSMM_DESC_magic], PVSMM_DESC_MAGIC
	mov	word [r12 + PVSMM_DESC_version], PVSMM_ABI_VERSION
	mov	word [r12 + PVSMM_DESC_size], PVSMM_DESC_SIZE
	mov	[r12 + PVSMM_DESC_nr_vcpus], r13d
	lea	rax, [r12 + PVSMM_REGION_PERCPU]
	mov	[r12 + PVSMM_DESC_percpu_gpa], rax
	lea	rax, [r12 + PVSMM_REGION_WINDOW_PDPT]
	mov	[r12 + PVSMM_DESC_window_pdpt], rax
	lea	rax, [r12 + PVSMM_REGION_PML5]
	mov	[r12 + PVSMM_DESC_cr3_la57], rax

	REGION_ENTRY PVSMM_MODE_LONG, PVSMM_REGION_PML4, PVSMM_WINDOW_BASE, \
		HANDLER_ENTRY64_OFF, PVSMM_REGION_IDT64, PVSMM_PRIVATE_IDT64_MIN_LIMIT
	REGION_ENTRY PVSMM_MODE_PAE, PVSMM_REGION_PAE_PDPT, r12, \
		HANDLER_ENTRY32_OFF, PVSMM_REGION_IDT32, PVSMM_PRIVATE_IDT32_MIN_LIMIT
	REGION_ENTRY PVSMM_MODE_32, PVSMM_REGION_PD32, r12, \
		HANDLER_ENTRY32_OFF, PVSMM_REGION_IDT32, PVSMM_PRIVATE_IDT32_MIN_LIMIT
	ret

; fill_region_entry: RDI = the entry, RAX = the VA of region offset 0 in
; its address space, RDX = the entry point's offset in the blob, ECX = the
; IDT's region offset, ESI = idt_limit << 16 | gdt_limit.  Clobbers R8.
fill_region_entry:
	lea	r8, [rax + PVSMM_REGION_CODE]
	add	r8, rdx
	mov	[rdi + PVSMM_ENTRY_handler_va], r8
	mov	r8d, HANDLER_SIZE
	sub	r8, rdx
	mov	[rdi + PVSMM_ENTRY_handler_size], r8
	lea	r8, [rax + PVSMM_REGION_PERCPU]
	mov	[rdi + PVSMM_ENTRY_percpu_va], r8
	lea	r8, [rax + PVSMM_REGION_GDT]
	mov	[rdi + PVSMM_ENTRY_gdt_va], r8
	lea	r8, [rax + rcx]
	mov	[rdi + PVSMM_ENTRY_idt_va], r8
	mov	[rdi + PVSMM_ENTRY_gdt_limit], esi	; and idt_limit
	ret

; map_region_page: ECX = region offset of the page, EAX = leaf flags,
; R10D = 1 for NX in the long-mode leaf.  Clobbers RDX, RSI, RDI, R8, R9.
map_region_page:
	lea	rdx, [r12 + rcx]		; the page's GPA

	; Long mode: window PT[offset >> 12].
	lea	rsi, [rdx + rax]
	test	r10d, r10d
	jz	.long_x
	bts	rsi, PTE_NX_BIT
.long_x:
	mov	edi, ecx
	shr	edi, 12
	mov	[r12 + PVSMM_REGION_WINDOW_PT + rdi * 8], rsi

	; PAE: PDPT[gpa >> 30] -> directory of that GiB, PD[gpa >> 21 & 511]
	; -> table of that 2 MiB, PT[gpa >> 12 & 511] -> the page.
	REGION_TABLE_OF esi, edi, edx, r12d, 30, PVSMM_REGION_PAE_PD
	mov	edi, edx
	shr	edi, 30
	lea	r8, [rsi + REGION_PDPTE_FLAGS]
	mov	[r12 + PVSMM_REGION_PAE_PDPT + rdi * 8], r8
	REGION_TABLE_OF r8d, r9d, edx, r12d, 21, PVSMM_REGION_PAE_PT
	mov	edi, edx
	shr	edi, 21
	and	edi, 511
	lea	r9, [r8 + REGION_TABLE_FLAGS]
	mov	[rsi + rdi * 8], r9
	mov	edi, edx
	shr	edi, 12
	and	edi, 511
	lea	r9, [rdx + rax]
	mov	[r8 + rdi * 8], r9

	; 2-level: PD[gpa >> 22] -> table of that 4 MiB, PT[gpa >> 12 & 1023].
	REGION_TABLE_OF r8d, r9d, edx, r12d, 22, PVSMM_REGION_PT32
	mov	edi, edx
	shr	edi, 22
	lea	r9d, [r8 + REGION_TABLE_FLAGS]
	mov	[r12 + PVSMM_REGION_PD32 + rdi * 4], r9d
	mov	edi, edx
	shr	edi, 12
	and	edi, 1023
	lea	r9d, [rdx + rax]
	mov	[r8 + rdi * 4], r9d
	ret
