; SPDX-License-Identifier: MIT
;
; region.asm -- the handler's private region: where it comes from, what is
; in it, and the registration.
;
; Layout (4 KiB pages from a 4 KiB aligned base; every address below 4 GiB):
;	page 0		descriptor (offset 0), handler code (HANDLER_OFFSET)
;	page 1		private PML4 (generic return path: descriptor.private_cr3)
;	page 2		window PDPT (the host puts it in PML4 slot 271)
;	page 3		window PD
;	page 4		window PT
;	page 5 + i	vCPU i's area: save area, private stack
; The window maps page 0 (read-only) at PVSMM_WINDOW_BASE and the vCPU
; areas (read-write) from PVSMM_WINDOW_BASE + PERCPU_WINDOW_OFFSET.
;
; Where: a permanent PMM allocation.  SeaBIOS serves extended ones from its
; high zone at the top of RAM below 4 GiB and reports it reserved in E820.
; QEMU's `-kernel ... -initrd` places the initrd right below the top of RAM
; less 160 KiB, assuming the BIOS keeps no more than that there; an
; allocation that reaches into the initrd (fw_cfg tells where) is given
; back and conventional memory is used instead (SeaBIOS moves the EBDA
; down and lowers 40:13h; Linux and other OSes keep off everything from
; there to 1 MiB).  Conventional memory is scarce, so there the region is
; first sized for the vCPUs the VM has at boot (all of them must be
; covered, or the host refuses the registration), and hot-pluggable vCPUs
; beyond it are not reflected (their reads go to the VMM, as without
; pvsmm).  The memory is never given back: the registration outlives the
; BIOS.

%define FIXED_PAGES		5
%define PML4_OFF		0x1000
%define PDPT_OFF		0x2000
%define PD_OFF			0x3000
%define PT_OFF			0x4000
%define PERCPU_OFF		(FIXED_PAGES * 0x1000)
%define HANDLER_OFFSET		0x100
%define PERCPU_WINDOW_OFFSET	0x10000

%define TABLE_FLAGS		(PTE_P | PTE_RW | PTE_A)
%define LEAF_RO_FLAGS		(PTE_P | PTE_A)
%define LEAF_RW_FLAGS		(PTE_P | PTE_RW | PTE_A | PTE_D)

%if PVSMM_DESC_SIZE > HANDLER_OFFSET
%error the descriptor overlaps the handler
%endif
%if (PERCPU_WINDOW_OFFSET >> 12) + PVSMM_MAX_VCPUS > 512
%error the window needs more than one page table
%endif
	times	-(HANDLER_OFFSET + HANDLER_SIZE > 0x1000) db 0	; handler too big

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

; fill_region: ES/FS flat.  Zero the region, copy the handler, build the
; window and the descriptor.
fill_region:
	mov	ebx, [bp + L_BASE]
	mov	edi, ebx
	movzx	ecx, word [bp + L_NR]
	add	ecx, FIXED_PAGES
	shl	ecx, 10			; pages -> dwords
	xor	eax, eax
	a32 rep	stosd

	mov	esi, handler_start
	lea	edi, [ebx + HANDLER_OFFSET]
	mov	ecx, HANDLER_SIZE
	a32 rep	movsb			; DS:ESI (this ROM) -> ES:EDI

	; PML4[slot] -> PDPT; PDPT[0] -> PD; PD[0] -> PT.
	lea	eax, [ebx + PDPT_OFF + TABLE_FLAGS]
	mov	[fs:ebx + PML4_OFF + PVSMM_WINDOW_SLOT * 8], eax
	lea	eax, [ebx + PD_OFF + TABLE_FLAGS]
	mov	[fs:ebx + PDPT_OFF], eax
	lea	eax, [ebx + PT_OFF + TABLE_FLAGS]
	mov	[fs:ebx + PD_OFF], eax
	; PT[0] -> page 0 (descriptor + handler), read-only.  No NX bit: the
	; interrupted context may run with EFER.NXE clear.
	lea	eax, [ebx + LEAF_RO_FLAGS]
	mov	[fs:ebx + PT_OFF], eax
	; PT[16 + i] -> vCPU i's area.
	movzx	ecx, word [bp + L_NR]
	lea	edi, [ebx + PT_OFF + (PERCPU_WINDOW_OFFSET >> 12) * 8]
	lea	eax, [ebx + PERCPU_OFF + LEAF_RW_FLAGS]
.percpu:
	mov	[fs:edi], eax
	add	eax, PVSMM_PERCPU_SIZE
	add	edi, 8
	dec	ecx
	jnz	.percpu

	; The descriptor.  The upper halves of the GPAs stay 0 (zeroed above).
	mov	dword [fs:ebx + PVSMM_DESC_magic], PVSMM_DESC_MAGIC
	mov	word [fs:ebx + PVSMM_DESC_version], PVSMM_ABI_VERSION
	mov	word [fs:ebx + PVSMM_DESC_size], PVSMM_DESC_SIZE
	movzx	eax, word [bp + L_NR]
	mov	[fs:ebx + PVSMM_DESC_nr_vcpus], eax
	mov	dword [fs:ebx + PVSMM_DESC_handler_va], (PVSMM_WINDOW_BASE + HANDLER_OFFSET) & 0xffffffff
	mov	dword [fs:ebx + PVSMM_DESC_handler_va + 4], PVSMM_WINDOW_BASE >> 32
	mov	dword [fs:ebx + PVSMM_DESC_handler_size], HANDLER_SIZE
	lea	eax, [ebx + PML4_OFF]
	mov	[fs:ebx + PVSMM_DESC_private_cr3], eax
	lea	eax, [ebx + PDPT_OFF]
	mov	[fs:ebx + PVSMM_DESC_window_pdpt], eax
	lea	eax, [ebx + PERCPU_OFF]
	mov	[fs:ebx + PVSMM_DESC_percpu_gpa], eax
	mov	dword [fs:ebx + PVSMM_DESC_percpu_va], (PVSMM_WINDOW_BASE + PERCPU_WINDOW_OFFSET) & 0xffffffff
	mov	dword [fs:ebx + PVSMM_DESC_percpu_va + 4], PVSMM_WINDOW_BASE >> 32
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
