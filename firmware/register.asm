; SPDX-License-Identifier: MIT
;
; register.asm -- kvmclock, the handler's installation, and registration.

	bits	64

; detect_kvm: find KVM's CPUID base (0x40000000, or 0x40000100 when a
; Hyper-V interface sits below it) and store it in SH_KVM_BASE (0 = not
; KVM).  BSP only, before SH_READY.  Clobbers RAX, RCX, RDX, RSI.
detect_kvm:
	push	rbx
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
	mov	[abs SH_KVM_BASE], esi
	jmp	.out
.next:
	add	esi, 0x100
	cmp	esi, 0x40000100
	jbe	.try
.out:
	pop	rbx
	ret

; kvmclock_enable: R15 = vCPU index.  Points this vCPU's kvmclock at its own
; 64-byte slot if KVM offers KVM_FEATURE_CLOCKSOURCE2, and records that in
; the per-vCPU results.  Clobbers RAX, RCX, RDX, RSI.
kvmclock_enable:
	push	rbx
	mov	esi, [abs SH_KVM_BASE]
	test	esi, esi
	jz	.out
	lea	eax, [rsi + 1]
	xor	ecx, ecx
	cpuid
	bt	eax, KVM_FEATURE_CLOCKSOURCE2
	jnc	.out
	mov	eax, r15d
	imul	eax, eax, PVSMM_FW_KVMCLOCK_STRIDE
	add	eax, PVSMM_FW_KVMCLOCK_GPA | 1	; bit 0 = enable
	xor	edx, edx
	mov	ecx, MSR_KVM_SYSTEM_TIME_NEW
	wrmsr
	mov	eax, r15d
	shl	eax, VC_SHIFT
	mov	dword [rax + SH_VCPU + VC_KVMCLOCK], 1
.out:
	pop	rbx
	ret

; install_handler: the private region at PVSMM_FW_PRIVATE_GPA with an area
; for each of the test's vCPUs (private.asm).  BSP only.  Clobbers RAX,
; RCX, RDX, RSI, RDI, R8-R10.
install_handler:
	push	r12
	push	r13
	mov	r12d, RG
	mov	r13d, [abs SH_NR_VCPUS]
	call	build_private_region
	pop	r13
	pop	r12
	ret

; register_handler: probe the pvsmm CPUID leaf (KVM base + 0x80) and, if the
; host offers registration, write the descriptor's GPA to the MSR and report
; descriptor.status.  BSP only.  Clobbers RAX, RCX, RDX, RSI, RDI.
register_handler:
	push	rbx
	mov	esi, [abs SH_KVM_BASE]
	test	esi, esi
	jnz	.have_base
	mov	esi, 0x40000000		; not KVM: still probe the default leaf
.have_base:
	add	esi, PVSMM_CPUID_LEAF - 0x40000000
	mov	eax, esi
	xor	ecx, ecx
	cpuid
	cmp	eax, PVSMM_CPUID_SIGNATURE
	jne	.absent
	test	ebx, PVSMM_FEATURE_REGISTER
	jz	.absent
	; ECX reports the MSR index.  Writing an MSR the host does not know
	; would #GP; refuse rather than guess if it disagrees with the ABI.
	cmp	ecx, PVSMM_MSR_REGISTER
	jne	.msr_mismatch
	mov	edi, edx		; ABI version the host speaks
	call	serial_lock
	PUTS	"pvsmm: host offers registration (leaf "
	PUTHEX	rsi
	PUTS	", features "
	PUTHEX	rbx
	PUTS	", ABI "
	PUTDEC	rdi
	PUTS	`)\n`
	call	serial_unlock

	mov	eax, RG_DESC | PVSMM_MSR_ENABLE
	xor	edx, edx
	mov	ecx, PVSMM_MSR_REGISTER
	wrmsr
	; The host validates and answers synchronously, within the WRMSR exit.
	mov	eax, [abs RG_DESC + PVSMM_DESC_status]
	mov	[abs SH_STATUS], eax
	call	serial_lock
	cmp	eax, PVSMM_STATUS_OK
	jne	.failed
	mov	dword [abs SH_REGISTERED], 1
	PUTS	"pvsmm: registered, status="
	jmp	.status
.failed:
	PUTS	"pvsmm: registration FAILED, status="
.status:
	PUTDEC	rax
	PUTS	`\n`
	call	serial_unlock
	jmp	.out

.msr_mismatch:
	call	serial_lock
	PUTS	"pvsmm: host reports registration MSR "
	PUTHEX	rcx
	PUTS	", ABI says "
	PUTHEX	PVSMM_MSR_REGISTER
	PUTS	`: not registering\n`
	call	serial_unlock
	jmp	.out
.absent:
	call	serial_lock
	PUTS	`pvsmm: not offered by host, PM timer stays with the VMM\n`
	call	serial_unlock
.out:
	pop	rbx
	ret
