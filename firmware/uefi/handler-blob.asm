; SPDX-License-Identifier: MIT
;
; handler-blob.asm -- the flat handler blob as data of the UEFI driver:
;	extern const unsigned char pvsmm_handler_blob[];
;	extern const unsigned long pvsmm_handler_blob_size;
; The driver copies it; it never runs where it is linked.

	section	.data	align=16
	global	pvsmm_handler_blob
	global	pvsmm_handler_blob_size
pvsmm_handler_blob:
	incbin	HANDLER_BIN
pvsmm_handler_blob_end:
	align	8
pvsmm_handler_blob_size:
	dq	pvsmm_handler_blob_end - pvsmm_handler_blob

	section	.note.GNU-stack noalloc noexec nowrite progbits
