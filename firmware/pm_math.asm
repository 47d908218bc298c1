; SPDX-License-Identifier: MIT
;
; pm_math.asm -- the one implementation of pvsmm's time math.
;
; The ACPI PM timer value is defined (abi.h) as
;	ticks = floor(kvmclock_ns * 3579545 / 10^9) mod 2^24
; where kvmclock_ns is the pvclock time at a given TSC value, computed
; exactly like Linux's pvclock_scale_delta():
;	delta = tsc - tsc_timestamp
;	delta = tsc_shift >= 0 ? delta << tsc_shift : delta >> -tsc_shift
;	ns    = system_time + (u64)((delta * (u128)tsc_to_system_mul) >> 32)
;
; This file is used twice, from the SAME macros:
;  - %included by the firmware image (bin format): the reflection handler
;    (handler.asm) and the firmware self-test expand the macros below;
;  - assembled on its own with `nasm -f elf64` into build/firmware/pm_math.o,
;    where it also emits two SysV-ABI functions for the C unit tests:
;
;	uint32_t pvsmm_pm_ticks(const struct pvsmm_pvclock *pv, uint64_t tsc);
;		The PM timer value (24 bits, zero-extended) at `tsc` according
;		to the pvclock parameters *pv.  No version/retry protocol:
;		the caller owns *pv and passes a consistent snapshot.
;	uint64_t pvsmm_pvclock_ns(const struct pvsmm_pvclock *pv, uint64_t tsc);
;		The pvclock time in ns at `tsc` (the first step above).
;	uint32_t pvsmm_pm_ticks_from_ns(uint64_t ns);
;		The second step alone: floor(ns * 3579545 / 10^9) mod 2^24.
;  - assembled with `nasm -f elf32` into build/firmware/pm_math32.o, where it
;    emits the same three functions (cdecl, suffix 32) built from the 32-bit
;    macros that the handler's 32-bit entry (PAE and 2-level paging) uses.
;
; So the unit tests exercise the instructions the handler executes.
;
; Register conventions of the macros (chosen for the handler's hot path:
; they need only RAX, RCX, RDX besides the pvclock pointer):
;	PVSMM_PVCLOCK_NS pv       in: RAX = tsc   out: RAX = ns
;	PVSMM_NS_TO_TICKS         in: RAX = ns    out: RAX = ticks (< 2^24)
;	PVSMM_PVCLOCK_READ_NS pv, ver
;				  reads a live pvclock with the version
;				  protocol and the current TSC: RAX = ns
; All clobber RCX, RDX and the flags.  `pv` is an address expression
; without brackets (e.g. `rdi` or `rdi + PVSMM_SAVE_pvclock`) whose
; registers must not be RAX, RCX or RDX; `ver` is a 32-bit register that is
; clobbered (likewise not EAX/ECX/EDX).
;
; The 32-bit macros compute the same numbers with 32-bit registers only:
;	PVSMM_PVCLOCK_NS32 pv     in: EDX:EAX = tsc   out: EDX:EAX = ns
;	PVSMM_NS_TO_TICKS32       in: EDX:EAX = ns    out: EAX = ticks
;	PVSMM_PVCLOCK_READ_NS32 pv, ver             EDX:EAX = ns, live
; They clobber EBX, ECX, ESI (and EDX for the ticks) and the flags; `pv`
; must not use EAX, EBX, ECX, EDX or ESI (EBP or EDI; it may carry a
; segment override, e.g. `ss:ebp + PVSMM_SAVE_pvclock`, which the handler
; needs because the interrupted context's DS may be anything), `ver` is EDI
; or EBP.

%ifndef PVSMM_PM_MATH_ASM
%define PVSMM_PM_MATH_ASM

%include "abi.inc"

%macro PVSMM_PVCLOCK_NS 1
	sub	rax, [%1 + PVSMM_PVCLOCK_tsc_timestamp]
	; KVM picks a negative shift for any TSC faster than ~1 GHz (and 0 for
	; slow ones), so the right shift is the straight-line path.  A positive
	; shift shifts left and then zeroes CL so that the shared SHR below is
	; a no-op: no unconditional jump on either path.
	movsx	ecx, byte [%1 + PVSMM_PVCLOCK_tsc_shift]
	neg	ecx			; ECX = -shift, SF set iff shift > 0
	jns	%%right
	neg	ecx
	shl	rax, cl
	xor	ecx, ecx
%%right:
	shr	rax, cl
	; 64x32 -> 96-bit product; bits 95:32 are the scaled delta (RDX:RAX
	; shifted right by 32, truncated to 64 bits like the C code).
	mov	edx, [%1 + PVSMM_PVCLOCK_tsc_to_system_mul]
	mul	rdx
	shrd	rax, rdx, 32
	add	rax, [%1 + PVSMM_PVCLOCK_system_time]
%endmacro

%macro PVSMM_NS_TO_TICKS 0
	; RDX:RAX = ns * 3579545 (128 bits: the product passes 2^64 after about
	; 5153 s of guest time).  The quotient is below ns, so it fits 64 bits
	; and DIV cannot fault.
	mov	edx, PVSMM_PM_TIMER_HZ
	mul	rdx
	mov	ecx, PVSMM_NSEC_PER_SEC
	div	rcx
	and	eax, PVSMM_PM_TIMER_MASK	; also clears RAX bits 63:32
%endmacro

; The pvclock read protocol (Linux's pvclock_read_begin/retry): an odd
; version means the writer is mid-update; a changed version means the
; parameters we used may be torn.  Masking bit 0 off the first read folds
; both tests into one compare, since the version only ever increases.
; LFENCE keeps RDTSC from executing before the parameter loads (x86 keeps
; loads ordered among themselves, so no other barrier is needed).
%macro PVSMM_PVCLOCK_READ_NS 2
%%retry:
	mov	%2, [%1 + PVSMM_PVCLOCK_version]
	and	%2, ~1
	lfence
	rdtsc
	shl	rdx, 32
	or	rax, rdx
	PVSMM_PVCLOCK_NS %1
	cmp	%2, [%1 + PVSMM_PVCLOCK_version]
	jne	%%retry
%endmacro


; ---- 32-bit variants (the handler's PAE/2-level entry, the self-test's
; 32-bit guest modes) --------------------------------------------------------

%macro PVSMM_PVCLOCK_NS32 1
	sub	eax, [%1 + PVSMM_PVCLOCK_tsc_timestamp]
	sbb	edx, [%1 + PVSMM_PVCLOCK_tsc_timestamp + 4]
	; The 64-bit shift in two halves; a count of 32 or more moves one
	; half over first (SHLD/SHRD/SHL/SHR take the count mod 32).  As in
	; the 64-bit macro, a left shift leaves CL = 0 for the right shift.
	movsx	ecx, byte [%1 + PVSMM_PVCLOCK_tsc_shift]
	neg	ecx			; ECX = -shift, SF set iff shift > 0
	jns	%%right
	neg	ecx
	test	cl, 32
	jz	%%left_small
	mov	edx, eax
	xor	eax, eax
%%left_small:
	shld	edx, eax, cl
	shl	eax, cl
	xor	ecx, ecx
%%right:
	test	cl, 32
	jz	%%right_small
	mov	eax, edx
	xor	edx, edx
%%right_small:
	shrd	eax, edx, cl
	shr	edx, cl
	; 64x32 -> 96 bits, keep bits 95:32: (hi * mul) + ((lo * mul) >> 32).
	; Two MULs and an add; the sum cannot pass 2^64.
	mov	ecx, [%1 + PVSMM_PVCLOCK_tsc_to_system_mul]
	mov	ebx, edx		; delta bits 63:32
	mul	ecx			; EDX = (lo * mul) >> 32
	mov	esi, edx
	mov	eax, ebx
	mul	ecx			; EDX:EAX = hi * mul
	add	eax, esi
	adc	edx, 0
	add	eax, [%1 + PVSMM_PVCLOCK_system_time]
	adc	edx, [%1 + PVSMM_PVCLOCK_system_time + 4]
%endmacro

%macro PVSMM_NS_TO_TICKS32 0
	; ns * 3579545 as three words w2:w1:w0 (86 bits at most), then the
	; long division by 10^9.  w2 < 3579545 < 10^9, so it is the first
	; remainder as it stands and neither DIV can overflow; only the low
	; quotient word matters (bits 23:0 of the quotient are in it).
	mov	ecx, PVSMM_PM_TIMER_HZ
	mov	ebx, edx		; ns bits 63:32
	mul	ecx			; EDX:EAX = lo * HZ
	mov	esi, eax		; w0
	mov	eax, ebx
	mov	ebx, edx		; carry into w1
	mul	ecx			; EDX:EAX = hi * HZ
	add	eax, ebx		; w1
	adc	edx, 0			; w2
	mov	ecx, PVSMM_NSEC_PER_SEC
	div	ecx			; w2:w1 / 10^9, EDX = remainder
	mov	eax, esi
	div	ecx			; remainder:w0 / 10^9
	and	eax, PVSMM_PM_TIMER_MASK
%endmacro

%macro PVSMM_PVCLOCK_READ_NS32 2
%%retry:
	mov	%2, [%1 + PVSMM_PVCLOCK_version]
	and	%2, ~1
	lfence
	rdtsc
	PVSMM_PVCLOCK_NS32 %1
	cmp	%2, [%1 + PVSMM_PVCLOCK_version]
	jne	%%retry
%endmacro

%ifidn __?OUTPUT_FORMAT?__, elf64
; ---- Standalone object for the unit tests --------------------------------
	bits	64
	default	rel
	section	.text

	global	pvsmm_pm_ticks:function (pvsmm_pm_ticks.end - pvsmm_pm_ticks)
	global	pvsmm_pvclock_ns:function (pvsmm_pvclock_ns.end - pvsmm_pvclock_ns)
	global	pvsmm_pm_ticks_from_ns:function (pvsmm_pm_ticks_from_ns.end - pvsmm_pm_ticks_from_ns)

; uint32_t pvsmm_pm_ticks(const struct pvsmm_pvclock *pv /* RDI */,
;			  uint64_t tsc /* RSI */)
pvsmm_pm_ticks:
	mov	rax, rsi
	PVSMM_PVCLOCK_NS rdi
	PVSMM_NS_TO_TICKS
	ret
.end:

; uint64_t pvsmm_pvclock_ns(const struct pvsmm_pvclock *pv /* RDI */,
;			    uint64_t tsc /* RSI */)
pvsmm_pvclock_ns:
	mov	rax, rsi
	PVSMM_PVCLOCK_NS rdi
	ret
.end:

; uint32_t pvsmm_pm_ticks_from_ns(uint64_t ns /* RDI */)
pvsmm_pm_ticks_from_ns:
	mov	rax, rdi
	PVSMM_NS_TO_TICKS
	ret
.end:

	section	.note.GNU-stack noalloc noexec nowrite progbits
%endif


%ifidn __?OUTPUT_FORMAT?__, elf32
; ---- Standalone 32-bit object for the unit tests (cdecl) ------------------
	bits	32
	section	.text

	global	pvsmm_pm_ticks32:function (pvsmm_pm_ticks32.end - pvsmm_pm_ticks32)
	global	pvsmm_pvclock_ns32:function (pvsmm_pvclock_ns32.end - pvsmm_pvclock_ns32)
	global	pvsmm_pm_ticks_from_ns32:function (pvsmm_pm_ticks_from_ns32.end - pvsmm_pm_ticks_from_ns32)

; cdecl: EBX, ESI, EDI, EBP belong to the caller.  After the four pushes
; the first argument is at [esp + 20].
%macro SAVE_CALLEE 0
	push	ebp
	push	ebx
	push	esi
	push	edi
%endmacro
%macro RESTORE_CALLEE 0
	pop	edi
	pop	esi
	pop	ebx
	pop	ebp
%endmacro

; uint32_t pvsmm_pm_ticks32(const struct pvsmm_pvclock *pv, uint64_t tsc)
pvsmm_pm_ticks32:
	SAVE_CALLEE
	mov	ebp, [esp + 20]
	mov	eax, [esp + 24]
	mov	edx, [esp + 28]
	PVSMM_PVCLOCK_NS32 ebp
	PVSMM_NS_TO_TICKS32
	RESTORE_CALLEE
	ret
.end:

; uint64_t pvsmm_pvclock_ns32(const struct pvsmm_pvclock *pv, uint64_t tsc)
pvsmm_pvclock_ns32:
	SAVE_CALLEE
	mov	ebp, [esp + 20]
	mov	eax, [esp + 24]
	mov	edx, [esp + 28]
	PVSMM_PVCLOCK_NS32 ebp
	RESTORE_CALLEE
	ret
.end:

; uint32_t pvsmm_pm_ticks_from_ns32(uint64_t ns)
pvsmm_pm_ticks_from_ns32:
	SAVE_CALLEE
	mov	eax, [esp + 20]
	mov	edx, [esp + 24]
	PVSMM_NS_TO_TICKS32
	RESTORE_CALLEE
	ret
.end:

	section	.note.GNU-stack noalloc noexec nowrite progbits
%endif

%endif ; PVSMM_PM_MATH_ASM
