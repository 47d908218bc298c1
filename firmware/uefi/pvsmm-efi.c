// SPDX-License-Identifier: MIT
/*
 * pvsmm.efi -- the pvsmm handler for UEFI guests, as a UEFI runtime driver
 * (gnu-efi).  Loaded by the firmware (a Driver#### entry, or "load
 * pvsmm.efi" in the UEFI shell) before the OS loader, it:
 *
 *   1. looks for the pvsmm CPUID leaf (KVM base + 0x80) and does
 *      nothing more if the host does not offer registration;
 *   2. allocates the private region as EfiReservedMemoryType pages below
 *      4 GiB: they survive ExitBootServices and the OS never counts them
 *      as usable memory (nor maps them: nothing in them is UEFI's);
 *   3. builds the region (region.h: the layout of include/pvsmm/layout.h,
 *      the same as the option ROM's and the self-test's) with
 *      firmware/handler.asm (unchanged, linked in as data), the private
 *      GDT and IDTs, the long-mode, PAE and 2-level address spaces (W^X,
 *      supervisor-only) and the three-entry descriptor, with a per-vCPU
 *      area for every vCPU the ABI allows (memory is cheap here, and
 *      vCPUs plugged later are covered too);
 *   4. writes the descriptor's address to PVSMM_MSR_REGISTER.
 *
 * The registration is VM-wide: the APs that the OS starts later, which
 * never run this driver, are covered all the same.  An OS booted from
 * here may run in long mode or, through a 32-bit loader, in 32-bit
 * protected mode with or without PAE: each has its entry.
 *
 * Loaded from a PCI option ROM (pvsmm-efi.rom), it runs while OVMF
 * enumerates PCI, before any console is connected: its line then goes
 * nowhere.  So the outcome, success or failure, is printed again when the
 * boot manager signals ReadyToBoot, just before it starts the OS loader,
 * with the consoles up.
 *
 * Firmware reads of the PM timer before this driver runs go to the VMM;
 * OVMF reads it throughout boot, which is what the QEMU shim uses to line
 * kvmclock up with QEMU's own PM timer.
 */
#include <efi.h>
#include <efilib.h>
#include <pvsmm/abi.h>
#include "region.h"

#define KVM_SIG_EBX	0x4b4d564b	/* "KVMK" */
#define KVM_SIG_ECX	0x564b4d56	/* "VMKV" */
#define KVM_SIG_EDX	0x0000004d	/* "M\0\0\0" */

/*
 * Test image (make -C firmware/uefi test-image): builds the region on any
 * host and never writes the MSR; firmware/region-check.sh validates it.
 */
#ifdef PVSMM_EFI_TEST
#define TEST_IMAGE	1
#else
#define TEST_IMAGE	0
#endif

extern const unsigned char pvsmm_handler_blob[];
extern const unsigned int pvsmm_handler_blob_size;
extern const unsigned int pvsmm_handler_offsets[4];

static void cpuid(UINT32 leaf, UINT32 *a, UINT32 *b, UINT32 *c, UINT32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(0));
}

static void wrmsr(UINT32 msr, UINT64 value)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((UINT32)value),
			 "d"((UINT32)(value >> 32)) : "memory");
}

/* The pvsmm leaf if the host offers registration with our ABI's MSR. */
static UINT32 find_pvsmm_leaf(void)
{
	UINT32 base, a, b, c, d;

	for (base = 0x40000000; base <= 0x40000100; base += 0x100) {
		cpuid(base, &a, &b, &c, &d);
		if (b != KVM_SIG_EBX || c != KVM_SIG_ECX || d != KVM_SIG_EDX)
			continue;
		cpuid(base + PVSMM_CPUID_LEAF_OFFSET, &a, &b, &c, &d);
		if (a == PVSMM_CPUID_SIGNATURE && (b & PVSMM_FEATURE_REGISTER) &&
		    c == PVSMM_MSR_REGISTER)
			return base + PVSMM_CPUID_LEAF_OFFSET;
		return 0;
	}
	return 0;
}

/* EFI_EVENT_GROUP_READY_TO_BOOT (UEFI 2.x, 7.1): not in gnu-efi. */
static EFI_GUID ready_to_boot_group = {
	0x7ce88fb3, 0x4bd7, 0x4679,
	{ 0x87, 0xa8, 0xa8, 0xd8, 0xde, 0xe5, 0x0d, 0x2b }
};

/* What the driver reports, now and again at ReadyToBoot. */
enum outcome { REGISTERED, TEST_REGION, TOO_LARGE, NOT_OFFERED, NO_MEMORY, FAILED };

static struct {
	enum outcome outcome;
	EFI_PHYSICAL_ADDRESS base;
	UINT32 nr;
	UINT32 status;		/* the host's, for FAILED */
	EFI_STATUS error;	/* AllocatePages', for NO_MEMORY */
} result;

static void report(void)
{
	switch (result.outcome) {
	case REGISTERED:
		Print(L"pvsmm: registered, %d vCPU areas at 0x%lx\n", result.nr,
		      result.base);
		break;
	case TEST_REGION:
		Print(L"pvsmm: test image, not registering; region of %d vCPU areas at 0x%lx\n",
		      result.nr, result.base);
		break;
	case TOO_LARGE:
		Print(L"pvsmm: handler too large\n");
		break;
	case NOT_OFFERED:
		Print(L"pvsmm: not offered by the host (no CPUID leaf), not registering\n");
		break;
	case NO_MEMORY:
		Print(L"pvsmm: no memory for the handler's region (%r)\n", result.error);
		break;
	case FAILED:
		Print(L"pvsmm: registration FAILED, status=%d\n", result.status);
		break;
	}
}

static VOID EFIAPI report_again(EFI_EVENT event, VOID *context)
{
	(void)context;
	report();
	uefi_call_wrapper(BS->CloseEvent, 1, event);	/* once is enough */
}

/*
 * Prints the outcome, and asks for it to be printed again at ReadyToBoot.
 * The driver must then stay loaded for the callback: it returns success
 * whenever the event exists, failures included (the region's pages are
 * freed all the same; what stays is the driver's image, boot-services
 * memory that the OS reclaims).  Without the event (a firmware older than
 * UEFI 2.0, or none left), the line printed now is the only one, and a
 * failure unloads the driver with FAIL_STATUS.
 */
static EFI_STATUS finish(enum outcome outcome, EFI_STATUS fail_status)
{
	EFI_EVENT event;
	EFI_STATUS r = EFI_UNSUPPORTED;

	result.outcome = outcome;
	report();
	if (ST->Hdr.Revision >= (2u << 16))
		r = uefi_call_wrapper(BS->CreateEventEx, 6, EVT_NOTIFY_SIGNAL,
				      TPL_CALLBACK, report_again, NULL,
				      &ready_to_boot_group, &event);
	if (outcome == REGISTERED || outcome == TEST_REGION || !EFI_ERROR(r))
		return EFI_SUCCESS;
	return fail_status;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_PHYSICAL_ADDRESS base = 0xffffffff;
	UINT32 nr = PVSMM_MAX_VCPUS;
	UINTN pages = PVSMM_REGION_SIZE(nr) / EFI_PAGE_SIZE;
	const struct pvsmm_blob blob = {
		.code = pvsmm_handler_blob, .size = pvsmm_handler_blob_size,
		.entry64 = pvsmm_handler_offsets[0],
		.stubs64 = pvsmm_handler_offsets[1],
		.entry32 = pvsmm_handler_offsets[2],
		.stubs32 = pvsmm_handler_offsets[3],
	};

	InitializeLib(image, systab);
	if (pvsmm_handler_blob_size > PVSMM_REGION_CODE_MAX)
		return finish(TOO_LARGE, EFI_LOAD_ERROR);
	if (!TEST_IMAGE && !find_pvsmm_leaf())
		return finish(NOT_OFFERED, EFI_UNSUPPORTED);
	result.error = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress,
					 EfiReservedMemoryType, pages, &base);
	if (EFI_ERROR(result.error))
		return finish(NO_MEMORY, result.error);
	ZeroMem((void *)base, pages * EFI_PAGE_SIZE);
	pvsmm_region_build((UINT8 *)base, base, nr, &blob);
	result.base = base;
	result.nr = nr;
	if (TEST_IMAGE)
		return finish(TEST_REGION, EFI_SUCCESS);
	/* The host validates the descriptor within the WRMSR. */
	wrmsr(PVSMM_MSR_REGISTER, base | PVSMM_MSR_ENABLE);
	result.status = ((volatile struct pvsmm_descriptor *)base)->status;
	if (result.status != PVSMM_STATUS_OK) {
		uefi_call_wrapper(BS->FreePages, 2, base, pages);
		return finish(FAILED, EFI_DEVICE_ERROR);
	}
	return finish(REGISTERED, EFI_SUCCESS);
}
