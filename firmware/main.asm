; SPDX-License-Identifier: MIT
;
; main.asm -- the long-mode flow of the BSP and of the APs.
;
; BSP: IDT, bootinfo, banner, kvmclock, handler install, local handler check,
; registration, then SH_READY (releases the APs), its own self-test, and the
; summary.  APs: kvmclock, self-test, park.  R15 = vCPU index throughout.
; When bootinfo asks for Linux, the BSP stops after registration and enters
; the kernel instead (linux.asm); the APs then never run firmware at all.

	bits	64

bsp_main64:
	call	build_idt
	call	build_idt32
	call	read_bootinfo

	call	serial_lock
	PUTS	"pvsmm firmware, vCPUs="
	PUTDEC32 [abs SH_NR_VCPUS]
	PUTS	`\n`
	cmp	dword [abs SH_BOOTINFO_OK], 0
	jne	.have_bootinfo
	PUTS	`pvsmm: no bootinfo, using defaults\n`
	jmp	.config
.have_bootinfo:
	mov	eax, [abs SH_NR_ASKED]
	cmp	eax, [abs SH_NR_VCPUS]
	je	.config
	PUTS	"pvsmm: bootinfo asks for "
	PUTDEC	rax
	PUTS	" vCPUs; the firmware runs 1.."
	PUTDEC	PVSMM_FW_MAX_VCPUS
	PUTS	`\n`
.config:
	PUTS	"pvsmm: pm_timer_port="
	mov	eax, [abs SH_PORT]
	PUTHEX	rax
	PUTS	" reads_per_vcpu="
	PUTDEC	[abs SH_READS]
	PUTS	" check_reads="
	PUTDEC	[abs SH_CHECK_READS]
	PUTS	" guest_mode="
	mov	eax, [abs SH_GUEST_MODE]
	lea	rsi, [mode_names]
	mov	rsi, [rsi + rax * 8]
	call	serial_puts
	PUTS	`\n`
	call	serial_unlock

	call	detect_kvm
	call	kvmclock_enable
	call	install_handler
	call	hcheck
	call	register_handler
	test	dword [abs SH_BOOT_FLAGS], PVSMM_BOOTINFO_LINUX
	jnz	linux_enter		; does not return
%ifdef PVSMM_FW_QEMU_TEST
	call	qemu_test_setup		; test image only, see qemu.asm
%endif

	mov	dword [abs SH_READY], 1	; everything the APs use is in place
	call	run_selftest
	jmp	summary

ap_main64:
	cmp	r15d, [abs SH_NR_VCPUS]
	jae	park64			; more vCPUs than the test asked for
	call	kvmclock_enable
	call	run_selftest
park64:
	cli
	hlt
	jmp	park64

mode_names:
	dq	.long, .pae, .two_level
.long:		db	"long", 0
.pae:		db	"pae", 0
.two_level:	db	"32", 0
%if PVSMM_MODE_LONG != 0 || PVSMM_MODE_PAE != 1 || PVSMM_MODE_32 != 2
%error mode_names follows the PVSMM_MODE_* numbers
%endif

; read_bootinfo: copy struct pvsmm_bootinfo (or the defaults) into the
; shared page, clamping nr_vcpus to 1..PVSMM_FW_MAX_VCPUS.
read_bootinfo:
	mov	dword [abs SH_NR_VCPUS], 1
	mov	dword [abs SH_PORT], PVSMM_PM_TIMER_DEFAULT_PORT
	mov	qword [abs SH_READS], DEFAULT_READS
	mov	qword [abs SH_CHECK_READS], DEFAULT_CHECK_READS
	mov	esi, PVSMM_BOOTINFO_GPA
	cmp	dword [rsi + PVSMM_BOOTINFO_magic], PVSMM_BOOTINFO_MAGIC
	jne	.out
	mov	dword [abs SH_BOOTINFO_OK], 1
	mov	eax, [rsi + PVSMM_BOOTINFO_nr_vcpus]
	mov	[abs SH_NR_ASKED], eax
	mov	ecx, 1
	test	eax, eax
	cmovz	eax, ecx
	mov	ecx, PVSMM_FW_MAX_VCPUS
	cmp	eax, ecx
	cmova	eax, ecx
	mov	[abs SH_NR_VCPUS], eax
	mov	rax, [rsi + PVSMM_BOOTINFO_reads_per_vcpu]
	mov	[abs SH_READS], rax
	mov	rax, [rsi + PVSMM_BOOTINFO_check_reads]
	mov	[abs SH_CHECK_READS], rax
	movzx	eax, word [rsi + PVSMM_BOOTINFO_flags]
	mov	[abs SH_BOOT_FLAGS], eax
	and	eax, PVSMM_BOOTINFO_MODE_MASK
	shr	eax, PVSMM_BOOTINFO_MODE_SHIFT
	xor	ecx, ecx		; PVSMM_MODE_LONG
	cmp	eax, PVSMM_MODE_32
	cmova	eax, ecx		; not a mode: long
	mov	[abs SH_GUEST_MODE], eax
	mov	rax, [rsi + PVSMM_BOOTINFO_linux_entry]
	mov	[abs SH_LINUX_ENTRY], rax
	mov	rax, [rsi + PVSMM_BOOTINFO_linux_boot_params]
	mov	[abs SH_LINUX_BP], rax
	movzx	eax, word [rsi + PVSMM_BOOTINFO_pm_timer_port]
	test	eax, eax
	jz	.out			; 0: keep the default
	mov	[abs SH_PORT], eax
.out:
	ret
