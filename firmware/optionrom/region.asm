; SPDX-License-Identifier: MIT
;
; region.asm -- the handler's private region: where it comes from, what is
; in it, and the registration.
;
; Layout: include/pvsmm/layout.h (PVSMM_REGION_*), the same as the
; self-test image's (firmware/private.asm) and the UEFI driver's
; (firmware/uefi/region.h): the descriptor, the private GDT and IDTs, the
; handler blob (firmware/handler.asm, unchanged), the long-mode window
; tables and a PML5, PAE and 2-level tables, and one page per vCPU.  The
; three entries (abi.h) let the host reflect reads of 64-bit guests and
; of 32-bit guests with or without PAE (SeaBIOS boots all of them); the
; tables map only the GDT/IDT page (read-only), the code (read-only,
; executable) and the per-vCPU areas (writable; NX in long mode), 4 KiB
; leaves, supervisor-only.  Every address is below 4 GiB.
;
; Where: a permanent PMM allocation.  SeaBIOS serves extended ones from its
; high zone at the top of RAM below 4 GiB and reports it reserved in E820.
; QEMU's `-kernel ... -initrd` has its boot ROM load the initrd right
; below the top of RAM that INT 15h E801 reports then, which SeaBIOS
; lowers below its reservations, this one included: no conflict.  Only
; where QEMU loads it at fw_cfg's address (a PVH ELF kernel, or an old
; kernel whose initrd_addr_max pins it there) can the two meet; an
; allocation that reaches into it is given back and conventional memory
; is used instead (SeaBIOS moves the EBDA down and lowers 40:13h; Linux
; and other OSes keep off everything from there to 1 MiB).  Conventional memory is scarce, so there the region is
; first sized for the vCPUs the VM has at boot (all of them must be
; covered, or the host refuses the registration), and hot-pluggable vCPUs
; beyond it are not reflected (their reads go to the VMM, as without
; pvsmm).  The memory is never given back: the registration outlives the
; BIOS.

%define FIXED_PAGES		(PVSMM_REGION_PERCPU >> 12)
%define WINDOW_HI		(PVSMM_WINDOW_BASE >> 32)	; its low half is 0
%if PVSMM_WINDOW_BASE & 0xffffffff
%error the window's VAs are built as WINDOW_HI:offset
%endif

; Locals of region_setup, addressed from BP (SS).
%define L_PMM		0	; dd: PMM far entry
%define L_MAX		4	; dw: vCPUs the VM can have
%define L_MIN		6	; dw: vCPUs it has at boot
%define L_IRD_ADDR	8	; dd: QEMU's initrd, 0 = none
%define L_IRD_SIZE	12	; dd
%define L_NR		16	; dw: vCPU areas provided
%define L_RAW		20	; dd: PMM's address
%define L_BASE		24	; dd: 4 KiB aligned region base
%define L_GDTR		28	; 6 bytes: the BIOS's GDTR, restored
%define L_GDTR_NEW	36	; 6 bytes: ours, for unreal mode
%define L_SIZE		44

; region_setup: DS = CS.  Allocates, fills, registers, reports.
region_setup:
	push	bp
	sub	sp, L_SIZE
	mov	bp, sp

	call	vcpu_counts
	call	pmm_find
	mov	[bp + L_PMM], eax
	test	eax, eax
	jnz	.have_pmm
	PRINT	`pvsmm: the BIOS offers no PMM, not registering\r\n`
	jmp	.out
.have_pmm:
	; Extended memory for every possible vCPU, else conventional memory
	; for every possible vCPU, else for the boot vCPUs.
	mov	ax, [bp + L_MAX]
	mov	cx, PMM_EXTENDED | PMM_PERMANENT
	call	try_region
	jnc	.got
	mov	ax, [bp + L_MAX]
	mov	cx, PMM_CONVENTIONAL | PMM_PERMANENT
	call	try_region
	jnc	.got
	mov	ax, [bp + L_MIN]
	mov	cx, PMM_CONVENTIONAL | PMM_PERMANENT
	call	try_region
	jnc	.got
	cmp	dword [bp + L_IRD_SIZE], 0
	je	.no_memory
	; The usual cause, so say what to do about it.
	PRINT	`pvsmm: no memory left by QEMU's -initrd (boot from disk), not registering\r\n`
	jmp	.out
.no_memory:
	PRINT	`pvsmm: no memory for the handler's region, not registering\r\n`
	jmp	.out
.got:
	call	unreal_enter
	call	fill_region
	call	read_pm_timer
	call	register
	call	unreal_leave
	call	report
.out:
	add	sp, L_SIZE
	pop	bp
	ret

; vcpu_counts: L_MAX, L_MIN and QEMU's initrd from fw_cfg; without fw_cfg
; every vCPU the ABI allows, and no initrd to avoid.
vcpu_counts:
	mov	word [bp + L_MAX], PVSMM_MAX_VCPUS
	mov	word [bp + L_MIN], PVSMM_MAX_VCPUS
	mov	dword [bp + L_IRD_ADDR], 0
	mov	dword [bp + L_IRD_SIZE], 0
	call	fwcfg_present
	jc	.out
	mov	ax, FW_CFG_MAX_CPUS
	call	fwcfg_read32
	call	clamp_vcpus
	mov	[bp + L_MAX], ax
	mov	ax, FW_CFG_NB_CPUS
	call	fwcfg_read32
	call	clamp_vcpus
	cmp	ax, [bp + L_MAX]
	jbe	.min
	mov	ax, [bp + L_MAX]
.min:
	mov	[bp + L_MIN], ax
	mov	ax, FW_CFG_INITRD_ADDR
	call	fwcfg_read32
	mov	[bp + L_IRD_ADDR], eax
	mov	ax, FW_CFG_INITRD_SIZE
	call	fwcfg_read32
	mov	[bp + L_IRD_SIZE], eax
	; QEMU's boot ROM for -kernel (linuxboot_dma.bin) loads the initrd
	; at FW_CFG_INITRD_ADDR only when it ends at the kernel's
	; initrd_addr_max.  Otherwise it puts it right below the top of RAM
	; that INT 15h E801 reports at boot: below everything SeaBIOS
	; reserved, a permanent PMM allocation included.  Then there is
	; nothing to avoid.  (A PVH ELF kernel has no such header, and
	; QEMU's pvh.bin loads its initrd at FW_CFG_INITRD_ADDR.)
	test	eax, eax
	jz	.out
	add	eax, [bp + L_IRD_ADDR]
	and	eax, ~0xfff		; the initrd's end page
	jz	.out
	push	eax
	call	fwcfg_initrd_addr_max
	and	eax, ~0xfff
	pop	ecx
	jz	.out			; no Linux header: avoid it
	cmp	eax, ecx
	je	.out			; at fw_cfg's address: avoid it
	mov	dword [bp + L_IRD_SIZE], 0
.out:
	ret

; clamp_vcpus: AX (16 bits of EAX) into 1..PVSMM_MAX_VCPUS.
clamp_vcpus:
	test	ax, ax
	jnz	.nonzero
	inc	ax
.nonzero:
	cmp	ax, PVSMM_MAX_VCPUS
	jbe	.ok
	mov	ax, PVSMM_MAX_VCPUS
.ok:
	ret

; try_region: AX = vCPU areas, CX = PMM flags.  CF clear on success, with
; L_NR, L_RAW and L_BASE set.  The request is one page larger than the
; region, minus a paragraph, so that a 4 KiB aligned base always fits
; (PMM's own alignment flag would align to the size's lowest set bit:
; up to 32 KiB wasted instead of at most 4080 bytes).
try_region:
	pushad
	mov	[bp + L_NR], ax
	movzx	eax, ax
	add	eax, FIXED_PAGES
	shl	eax, 8			; pages -> paragraphs
	add	eax, 0xff
	lea	bx, [bp + L_PMM]
	call	pmm_allocate
	test	eax, eax
	jz	.fail
	mov	[bp + L_RAW], eax
	test	cx, PMM_EXTENDED
	jz	.keep
	; [raw, raw + bytes) against [initrd, initrd + size)
	mov	esi, [bp + L_IRD_SIZE]
	test	esi, esi
	jz	.keep
	movzx	edx, word [bp + L_NR]
	add	edx, FIXED_PAGES + 1
	shl	edx, 12
	add	edx, eax		; raw end (over-estimate: fine)
	add	esi, [bp + L_IRD_ADDR]	; initrd end
	cmp	eax, esi
	jae	.keep
	cmp	[bp + L_IRD_ADDR], edx
	jae	.keep
	call	pmm_free
	PRINT	`pvsmm: high memory would overlap QEMU's initrd, trying base memory\r\n`
	jmp	.fail
.keep:
	mov	eax, [bp + L_RAW]
	add	eax, 0xfff
	and	eax, ~0xfff
	mov	[bp + L_BASE], eax
	popad
	clc
	ret
.fail:
	popad
	stc
	ret

; unreal_enter: ES and FS get base 0 and a 4 GiB limit ("unreal" mode)
; through a moment in protected mode, with interrupts off and the BIOS's
; GDTR saved; the region may lie anywhere below 4 GiB.
unreal_enter:
	pushf
	cli
	o32 sgdt [bp + L_GDTR]
	xor	eax, eax
	mov	ax, cs
	shl	eax, 4
	add	eax, unreal_gdt
	mov	word [bp + L_GDTR_NEW], unreal_gdt_end - unreal_gdt - 1
	mov	[bp + L_GDTR_NEW + 2], eax
	o32 lgdt [bp + L_GDTR_NEW]
	mov	eax, cr0
	or	al, 1
	mov	cr0, eax
	mov	bx, unreal_flat - unreal_gdt
	mov	es, bx
	mov	fs, bx
	and	al, ~1
	mov	cr0, eax
	xor	bx, bx			; back to real-mode segments: the
	mov	es, bx			; bases are 0 again, the limits stay
	mov	fs, bx
	o32 lgdt [bp + L_GDTR]
	popf
	ret

; unreal_leave: nothing to undo (rom_init restores the segment registers;
; their 4 GiB limits are harmless in real mode).
unreal_leave:
	ret

	align	8
unreal_gdt:
	dq	0
unreal_flat:
	dq	0x00cf93000000ffff	; data, base 0, limit 4 GiB, writable
unreal_gdt_end:

; ROM_ENTRY mode, cr3's region offset, VA of region offset 0 in the
; entry's address space (bits 31:0, 63:32), entry point's offset in the
; blob, IDT's region offset, IDT limit: one struct pvsmm_entry of the
; descriptor at EBX.  Clobbers EAX, ECX, EDX, ESI, EDI.
%macro ROM_ENTRY 7
	lea	edi, [ebx + PVSMM_DESC_entry + %1 * PVSMM_ENTRY_SIZE]
	lea	eax, [ebx + %2]
	mov	esi, %3
	mov	edx, %4
	mov	ecx, %5
	call	fill_entry
	lea	eax, [esi + %6]
	mov	[fs:edi + PVSMM_ENTRY_idt_va], eax
	mov	word [fs:edi + PVSMM_ENTRY_idt_limit], %7
%endmacro

; fill_region: ES/FS flat.  Zero the region, copy the handler, build the
; GDT, the IDTs, the three address spaces and the descriptor.
fill_region:
	mov	ebx, [bp + L_BASE]
	mov	edi, ebx
	movzx	ecx, word [bp + L_NR]
	add	ecx, FIXED_PAGES
	shl	ecx, 10			; pages -> dwords
	xor	eax, eax
	a32 rep	stosd

	mov	esi, handler_start
	lea	edi, [ebx + PVSMM_REGION_CODE]
	mov	ecx, HANDLER_SIZE
	a32 rep	movsb			; DS:ESI (this ROM) -> ES:EDI

	; The private GDT: 64-bit code, data, 32-bit code (fwdefs.inc).
	mov	dword [fs:ebx + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS64], PRIVATE_GDT_CODE64 & 0xffffffff
	mov	dword [fs:ebx + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS64 + 4], PRIVATE_GDT_CODE64 >> 32
	mov	dword [fs:ebx + PVSMM_REGION_GDT + PVSMM_PRIVATE_DS], PRIVATE_GDT_DATA & 0xffffffff
	mov	dword [fs:ebx + PVSMM_REGION_GDT + PVSMM_PRIVATE_DS + 4], PRIVATE_GDT_DATA >> 32
	mov	dword [fs:ebx + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS32], PRIVATE_GDT_CODE32 & 0xffffffff
	mov	dword [fs:ebx + PVSMM_REGION_GDT + PVSMM_PRIVATE_CS32 + 4], PRIVATE_GDT_CODE32 >> 32

	; The IDTs: gate i -> stub i, at its window VA (64-bit) or its GPA.
	push	ebp			; (BP is the frame: borrowed here)
	lea	edi, [ebx + PVSMM_REGION_IDT64]
	mov	edx, PVSMM_REGION_CODE + HANDLER_STUBS64_OFF	; VA low half
	lea	esi, [ebx + PVSMM_REGION_IDT32]
	lea	ebp, [ebx + PVSMM_REGION_CODE + HANDLER_STUBS32_OFF]
	mov	ecx, 32
.gates:
	IDT_GATE_DWORDS [fs:edi], [fs:edi + 4], edx, PVSMM_PRIVATE_CS64, IDT64_GATE_TYPE
	mov	dword [fs:edi + 8], WINDOW_HI
	IDT_GATE_DWORDS [fs:esi], [fs:esi + 4], ebp, PVSMM_PRIVATE_CS32, IDT32_GATE_TYPE
	add	edx, 16
	add	ebp, 16
	add	edi, 16
	add	esi, 8
	dec	ecx
	jnz	.gates
	pop	ebp

	; Long mode: PML4[slot] -> window PDPT -> PD -> PT; PML5[511] -> PML4.
	lea	eax, [ebx + PVSMM_REGION_WINDOW_PDPT + REGION_TABLE_FLAGS]
	mov	[fs:ebx + PVSMM_REGION_PML4 + PVSMM_WINDOW_SLOT * 8], eax
	lea	eax, [ebx + PVSMM_REGION_WINDOW_PD + REGION_TABLE_FLAGS]
	mov	[fs:ebx + PVSMM_REGION_WINDOW_PDPT], eax
	lea	eax, [ebx + PVSMM_REGION_WINDOW_PT + REGION_TABLE_FLAGS]
	mov	[fs:ebx + PVSMM_REGION_WINDOW_PD], eax
	lea	eax, [ebx + PVSMM_REGION_PML4 + REGION_TABLE_FLAGS]
	mov	[fs:ebx + PVSMM_REGION_PML5 + 511 * 8], eax

	; The pages, in all three address spaces.
	mov	ecx, PVSMM_REGION_TABLES
	mov	eax, REGION_RO_FLAGS
	mov	edx, 1 << (PTE_NX_BIT - 32)
	call	map_page
	mov	ecx, PVSMM_REGION_CODE
.code:
	mov	eax, REGION_RO_FLAGS
	xor	edx, edx
	call	map_page
	add	ecx, PVSMM_PAGE_SIZE
	cmp	ecx, PVSMM_REGION_CODE + HANDLER_SIZE
	jb	.code
	mov	ecx, PVSMM_REGION_PERCPU
	movzx	esi, word [bp + L_NR]
.percpu:
	mov	eax, REGION_RW_FLAGS
	mov	edx, 1 << (PTE_NX_BIT - 32)
	call	map_page
	add	ecx, PVSMM_PERCPU_SIZE
	dec	esi
	jnz	.percpu

	; The descriptor.  The upper halves of the GPAs stay 0 (zeroed above).
	mov	dword [fs:ebx + PVSMM_DESC_magic], PVSMM_DESC_MAGIC
	mov	word [fs:ebx + PVSMM_DESC_version], PVSMM_ABI_VERSION
	mov	word [fs:ebx + PVSMM_DESC_size], PVSMM_DESC_SIZE
	movzx	eax, word [bp + L_NR]
	mov	[fs:ebx + PVSMM_DESC_nr_vcpus], eax
	lea	eax, [ebx + PVSMM_REGION_PERCPU]
	mov	[fs:ebx + PVSMM_DESC_percpu_gpa], eax
	lea	eax, [ebx + PVSMM_REGION_WINDOW_PDPT]
	mov	[fs:ebx + PVSMM_DESC_window_pdpt], eax
	lea	eax, [ebx + PVSMM_REGION_PML5]
	mov	[fs:ebx + PVSMM_DESC_cr3_la57], eax

	ROM_ENTRY PVSMM_MODE_LONG, PVSMM_REGION_PML4, 0, WINDOW_HI, \
		HANDLER_ENTRY64_OFF, PVSMM_REGION_IDT64, PVSMM_PRIVATE_IDT64_MIN_LIMIT
	ROM_ENTRY PVSMM_MODE_PAE, PVSMM_REGION_PAE_PDPT, ebx, 0, \
		HANDLER_ENTRY32_OFF, PVSMM_REGION_IDT32, PVSMM_PRIVATE_IDT32_MIN_LIMIT
	ROM_ENTRY PVSMM_MODE_32, PVSMM_REGION_PD32, ebx, 0, \
		HANDLER_ENTRY32_OFF, PVSMM_REGION_IDT32, PVSMM_PRIVATE_IDT32_MIN_LIMIT
	ret

; fill_entry: FS flat, EDI = the entry, EAX = its cr3, EDX:ESI = the VA of
; region offset 0 in its address space, ECX = the entry point's offset in
; the blob.  The IDT's VA (bits 31:0) and limit are ROM_ENTRY's.  Clobbers
; EAX.
fill_entry:
	mov	[fs:edi + PVSMM_ENTRY_cr3], eax
	lea	eax, [esi + ecx + PVSMM_REGION_CODE]
	mov	[fs:edi + PVSMM_ENTRY_handler_va], eax
	mov	[fs:edi + PVSMM_ENTRY_handler_va + 4], edx
	mov	eax, HANDLER_SIZE
	sub	eax, ecx
	mov	[fs:edi + PVSMM_ENTRY_handler_size], eax
	lea	eax, [esi + PVSMM_REGION_PERCPU]
	mov	[fs:edi + PVSMM_ENTRY_percpu_va], eax
	mov	[fs:edi + PVSMM_ENTRY_percpu_va + 4], edx
	lea	eax, [esi + PVSMM_REGION_GDT]
	mov	[fs:edi + PVSMM_ENTRY_gdt_va], eax
	mov	[fs:edi + PVSMM_ENTRY_gdt_va + 4], edx
	mov	[fs:edi + PVSMM_ENTRY_idt_va + 4], edx
	mov	word [fs:edi + PVSMM_ENTRY_gdt_limit], PVSMM_PRIVATE_GDT_MIN_LIMIT
	ret

; map_page: FS flat, EBX = region base, ECX = region offset of the page,
; EAX = leaf flags, EDX = the long-mode leaf's upper half (the NX bit or
; 0).  Maps it at PVSMM_WINDOW_BASE + offset in the window and at its GPA
; in the PAE and 2-level tables (firmware/private.asm: map_region_page,
; the same rules).  Preserves every register.
map_page:
	pushad
	mov	esi, eax		; flags
	lea	edi, [ebx + ecx]	; the page's GPA

	; Long mode: window PT[offset >> 12].
	mov	eax, ecx
	shr	eax, 12
	lea	eax, [ebx + eax * 8 + PVSMM_REGION_WINDOW_PT]
	lea	ecx, [edi + esi]
	mov	[fs:eax], ecx
	mov	[fs:eax + 4], edx

	; PAE: PDPT[gpa >> 30] -> directory 0/1, PD[gpa >> 21 & 511] ->
	; table 0/1, PT[gpa >> 12 & 511] -> the page.
	REGION_TABLE_OF edx, ecx, edi, ebx, 30, PVSMM_REGION_PAE_PD
	mov	eax, edi
	shr	eax, 30
	lea	ecx, [edx + REGION_PDPTE_FLAGS]
	mov	[fs:ebx + eax * 8 + PVSMM_REGION_PAE_PDPT], ecx
	REGION_TABLE_OF ecx, eax, edi, ebx, 21, PVSMM_REGION_PAE_PT
	mov	eax, edi
	shr	eax, 21
	and	eax, 511
	push	ecx
	add	ecx, REGION_TABLE_FLAGS
	mov	[fs:edx + eax * 8], ecx
	pop	ecx
	mov	eax, edi
	shr	eax, 12
	and	eax, 511
	lea	edx, [edi + esi]
	mov	[fs:ecx + eax * 8], edx

	; 2-level: PD[gpa >> 22] -> table 0/1, PT[gpa >> 12 & 1023].
	REGION_TABLE_OF ecx, eax, edi, ebx, 22, PVSMM_REGION_PT32
	mov	eax, edi
	shr	eax, 22
	lea	edx, [ecx + REGION_TABLE_FLAGS]
	mov	[fs:ebx + eax * 4 + PVSMM_REGION_PD32], edx
	mov	eax, edi
	shr	eax, 12
	and	eax, 1023
	lea	edx, [edi + esi]
	mov	[fs:ecx + eax * 4], edx
	popad
	ret

; register: FS flat.  The host validates the descriptor within the WRMSR
; and writes descriptor.status before the guest runs again.
; Returns EAX = status.
register:
%ifdef PVSMM_ROM_TEST
	PRINT	`pvsmm: test image, not registering\r\n`
	mov	eax, PVSMM_STATUS_OK
	ret
%endif
	mov	eax, [bp + L_BASE]
	or	eax, PVSMM_MSR_ENABLE
	xor	edx, edx
	mov	ecx, PVSMM_MSR_REGISTER
	wrmsr
	mov	ebx, [bp + L_BASE]
	mov	eax, [fs:ebx + PVSMM_DESC_status]
	ret

; report: EAX = status.
report:
	cmp	eax, PVSMM_STATUS_OK
	jne	.failed
	PRINT	"pvsmm: registered, "
	push	ax
	mov	ax, [bp + L_NR]
	call	print_dec
	pop	ax
	PRINT	" vCPU areas at "
	push	eax
	mov	eax, [bp + L_BASE]
	call	print_hex32
	pop	eax
	PRINT	`\r\n`
	ret
.failed:
	PRINT	"pvsmm: registration FAILED, status="
	call	print_dec
	PRINT	`\r\n`
	ret
