; SPDX-License-Identifier: MIT
;
; handler-flat.asm -- firmware/handler.asm (and its time math) assembled
; alone as a flat, position-independent blob for the UEFI driver
; (build/firmware/handler.bin, embedded by handler-blob.asm).

%include "abi.inc"
%include "fwdefs.inc"		; HANDLER_SIZE
%include "pm_math.asm"		; macros only in -f bin

	org	0
%include "handler.asm"
