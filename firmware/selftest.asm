; SPDX-License-Identifier: MIT
;
; selftest.asm -- the self-test payload every participating vCPU runs, and
; the BSP's summary.
;
;  (a) check phase: bracket each PM timer read between two kvmclock reads of
;      this vCPU's own kvmclock page and require the value to lie within
;      [ticks(k0) - 1, ticks(k1) + 1] modulo 2^24.  The expected ticks are
;      computed by the very macros the handler uses (pm_math.asm).
;  (b) bench phase: a tight loop of reads between two marker OUTs (the VMM
;      times the interval), checking monotonicity modulo 2^24.
;  (c) report and count in; the BSP sums up and prints PVSMM-SELFTEST.
; (a) and (b) run in the paging mode bootinfo asks for (SH_GUEST_MODE):
; here in long mode, or in 32-bit protected mode with PAE or 2-level
; paging (selftest32.asm, with the 32-bit math), so that a host reflects
; them into the entry of that mode.

	bits	64

%define MONO_BIT	23		; (v - prev) mod 2^24 >= 2^23: backwards
%define CHECK_VERBOSE	3		; print the first few check failures

; run_selftest: R15 = vCPU index.  Clobbers RAX, RCX, RDX, RSI, RDI, R8-R11.
run_selftest:
	push	rbx
	push	rbp
	push	r12
	push	r13
	push	r14

	mov	eax, r15d
	shl	eax, VC_SHIFT
	lea	r14, [rax + SH_VCPU]	; r14 = this vCPU's results
	mov	eax, r15d
	imul	eax, eax, PVSMM_FW_KVMCLOCK_STRIDE
	lea	rbp, [rax + PVSMM_FW_KVMCLOCK_GPA]	; rbp = own kvmclock

	cmp	dword [abs SH_GUEST_MODE], PVSMM_MODE_LONG
	je	.long
	cmp	dword [r14 + VC_KVMCLOCK], 0
	jne	.phases32
	call	say_no_kvmclock
.phases32:
	call	selftest_phases32
	cmp	qword [r14 + VC_CHECK_FAIL], 0
	je	.report
	call	serial_lock
	PUTS	"pvsmm: vCPU "
	PUTDEC	r15
	PUTS	" first check failure: expected "
	mov	eax, [r14 + VC_FAIL_E0]
	PUTHEX	rax
	PUTS	".."
	mov	eax, [r14 + VC_FAIL_E1]
	PUTHEX	rax
	PUTS	", read "
	mov	eax, [r14 + VC_FAIL_V]
	PUTHEX	rax
	PUTS	`\n`
	call	serial_unlock
	jmp	.report

.long:
	; ---- (a) check phase ----
	xor	r12d, r12d		; failures
	cmp	dword [r14 + VC_KVMCLOCK], 0
	je	.no_kvmclock
	mov	r13, [abs SH_CHECK_READS]
	test	r13, r13
	jz	.bench
	mov	[r14 + VC_CHECK_DONE], r13
.check:
	PVSMM_PVCLOCK_READ_NS rbp, esi	; k0
	PVSMM_NS_TO_TICKS		; e0 (computing it here only widens
	mov	r8d, eax		; the window; it cannot hide a bug)
	mov	edx, [abs SH_PORT]
	in	eax, dx
	mov	r9d, eax		; v
	PVSMM_PVCLOCK_READ_NS rbp, esi	; k1
	PVSMM_NS_TO_TICKS		; e1
	; fail unless ((v - e0 + 1) mod 2^24) <= ((e1 - e0) mod 2^24) + 2
	mov	r10d, eax
	sub	eax, r8d
	and	eax, PVSMM_PM_TIMER_MASK
	add	eax, 2
	mov	ecx, r9d
	sub	ecx, r8d
	inc	ecx
	and	ecx, PVSMM_PM_TIMER_MASK
	cmp	ecx, eax
	jbe	.check_ok
	inc	r12
	cmp	r12, CHECK_VERBOSE
	ja	.check_ok
	call	serial_lock
	PUTS	"pvsmm: vCPU "
	PUTDEC	r15
	PUTS	" check failure: expected "
	PUTHEX	r8
	PUTS	".."
	PUTHEX	r10
	PUTS	", read "
	PUTHEX	r9
	PUTS	`\n`
	call	serial_unlock
.check_ok:
	dec	r13
	jnz	.check
	jmp	.bench

.no_kvmclock:
	call	say_no_kvmclock

	; ---- (b) bench phase ----
.bench:
	mov	[r14 + VC_CHECK_FAIL], r12
	xor	r12d, r12d
	mov	eax, (PVSMM_MARK_BENCH_BEGIN << 16)
	or	eax, r15d
	mov	edx, PVSMM_MARKER_PORT
	out	dx, eax
	mov	r13, [abs SH_READS]
	xor	esi, esi
	mov	ebx, esi
	test	r13, r13
	jz	.bench_end
	mov	edx, [abs SH_PORT]
	in	eax, dx			; read 1 of r13: the first "prev"
	mov	esi, eax
	mov	ebx, eax		; first value, for the log
	dec	r13
	jz	.bench_end
.bench_loop:
	in	eax, dx
	mov	ecx, eax
	sub	ecx, esi
	mov	esi, eax
	shr	ecx, MONO_BIT		; bit 23 of the 24-bit difference
	and	ecx, 1
	add	r12, rcx
	dec	r13
	jnz	.bench_loop
.bench_end:
	mov	eax, (PVSMM_MARK_BENCH_END << 16)
	or	eax, r15d
	mov	edx, PVSMM_MARKER_PORT
	out	dx, eax
	mov	[r14 + VC_MONO_FAIL], r12
	mov	[r14 + VC_FIRST], ebx
	mov	[r14 + VC_LAST], esi

	; ---- (c) report ----
.report:
	mov	ebx, [r14 + VC_FIRST]
	mov	esi, [r14 + VC_LAST]
	call	serial_lock
	PUTS	"pvsmm: vCPU "
	PUTDEC	r15
	PUTS	" bench: first="
	PUTHEX	rbx
	PUTS	" last="
	PUTHEX	rsi
	PUTS	`\n`
	PUTS	"PVSMM-VCPU idx="
	PUTDEC	r15
	PUTS	" check_failures="
	PUTDEC	[r14 + VC_CHECK_FAIL]
	PUTS	" mono_failures="
	PUTDEC	[r14 + VC_MONO_FAIL]
	PUTS	`\n`
	call	serial_unlock
	lock inc dword [abs SH_DONE]	; results above are stored before this

	pop	r14
	pop	r13
	pop	r12
	pop	rbp
	pop	rbx
	ret

; say_no_kvmclock: R15 = vCPU index.  Clobbers RAX, RCX, RDX, RSI, RDI.
say_no_kvmclock:
	call	serial_lock
	PUTS	"pvsmm: vCPU "
	PUTDEC	r15
	PUTS	`: no kvmclock, check phase skipped\n`
	call	serial_unlock
	ret

%define DONE_TIMEOUT_NS	600000000000	; 10 min of guest time

; summary: BSP only, R15 = its index.  Waits for every vCPU, prints the
; PVSMM-SELFTEST line, reports through the debug-exit port.  Never returns.
summary:
	mov	eax, r15d
	imul	eax, eax, PVSMM_FW_KVMCLOCK_STRIDE
	lea	rbp, [rax + PVSMM_FW_KVMCLOCK_GPA]
	mov	eax, r15d
	shl	eax, VC_SHIFT
	cmp	dword [rax + SH_VCPU + VC_KVMCLOCK], 0
	je	.wait_forever
	; A vCPU that died would leave us spinning: with kvmclock we can tell
	; time and give up.  (Without it only the BSP runs, see main.asm.)
	PVSMM_PVCLOCK_READ_NS rbp, esi
	mov	rbx, rax
.wait:
	mov	eax, [abs SH_DONE]
	cmp	eax, [abs SH_NR_VCPUS]
	jae	.all_done
	pause
	PVSMM_PVCLOCK_READ_NS rbp, esi
	sub	rax, rbx
	mov	rcx, DONE_TIMEOUT_NS
	cmp	rax, rcx
	jb	.wait
	call	serial_lock
	PUTS	"pvsmm: TIMEOUT waiting for vCPUs, done="
	PUTDEC32 [abs SH_DONE]
	PUTS	`\n`
	call	serial_unlock
	mov	r13d, 1			; forces FAIL
	jmp	.sum
.wait_forever:
	pause
	mov	eax, [abs SH_DONE]
	cmp	eax, [abs SH_NR_VCPUS]
	jb	.wait_forever
.all_done:
	xor	r13d, r13d

	; Sum over the participating vCPUs: r8 check failures, r9 mono
	; failures, r10 check reads done, r11 handler runs (each save area's
	; counter, read through the identity map).
.sum:
	xor	r8d, r8d
	xor	r9d, r9d
	xor	r10d, r10d
	xor	r11d, r11d
	mov	ecx, [abs SH_NR_VCPUS]
	mov	esi, SH_VCPU
	mov	edi, RG_PERCPU
.sum_one:
	add	r8, [rsi + VC_CHECK_FAIL]
	add	r9, [rsi + VC_MONO_FAIL]
	add	r10, [rsi + VC_CHECK_DONE]
	add	r11, [rdi + PVSMM_SAVE_handler_runs]
	add	esi, VC_STRIDE
	add	edi, PVSMM_PERCPU_SIZE
	loop	.sum_one

	mov	eax, [abs SH_NR_VCPUS]
	mov	r12, [abs SH_READS]
	imul	r12, rax		; total bench reads

	; PASS iff no check and no monotonicity failure (and the local
	; handler check and the wait did not fail).
	xor	ebx, ebx
	mov	rax, r8
	or	rax, r9
	setnz	bl
	or	ebx, [abs SH_HCHECK_FAIL]
	or	ebx, r13d
	setnz	bl
	movzx	ebx, bl			; 0 pass, 1 fail: the debug-exit value

	call	serial_lock
	PUTS	"PVSMM-SELFTEST vcpus="
	PUTDEC32 [abs SH_NR_VCPUS]
	PUTS	" reads="
	PUTDEC	r12
	PUTS	" check_reads="
	PUTDEC	r10
	PUTS	" check_failures="
	PUTDEC	r8
	PUTS	" mono_failures="
	PUTDEC	r9
	PUTS	" handler_runs="
	PUTDEC	r11
	PUTS	" registered="
	PUTDEC32 [abs SH_REGISTERED]
	PUTS	" desc_status="		; now: the host may have disabled it
	PUTDEC32 [abs RG_DESC + PVSMM_DESC_status]
	test	ebx, ebx
	jnz	.fail
	PUTS	` status=PASS\n`
	jmp	.exit
.fail:
	PUTS	` status=FAIL\n`
.exit:
	call	serial_unlock
	mov	eax, ebx
	mov	edx, PVSMM_DEBUG_EXIT_PORT
	out	dx, eax
	jmp	park64
