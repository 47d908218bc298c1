; SPDX-License-Identifier: MIT
;
; handler-blob.asm -- the handler (firmware/handler.asm, unchanged) and its
; time math assembled as data of the UEFI driver, with where its pieces
; start:
;	extern const unsigned char pvsmm_handler_blob[];
;	extern const unsigned int pvsmm_handler_blob_size;
;	extern const unsigned int pvsmm_handler_offsets[4];
;		entry64, stubs64, entry32, stubs32 (struct pvsmm_blob)
; The driver copies the blob into its region; it never runs where it is
; linked.  It is position-independent and needs no relocation.

%include "abi.inc"
%include "fwdefs.inc"		; HANDLER_* offsets
%include "pm_math.asm"		; macros only

	section	.data	align=16
	global	pvsmm_handler_blob
	global	pvsmm_handler_blob_size
	global	pvsmm_handler_offsets
pvsmm_handler_blob:
%include "handler.asm"
	align	4
pvsmm_handler_blob_size:
	dd	HANDLER_SIZE
pvsmm_handler_offsets:
	dd	HANDLER_ENTRY64_OFF, HANDLER_STUBS64_OFF
	dd	HANDLER_ENTRY32_OFF, HANDLER_STUBS32_OFF

	section	.note.GNU-stack noalloc noexec nowrite progbits
