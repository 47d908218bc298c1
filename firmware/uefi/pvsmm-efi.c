// SPDX-License-Identifier: MIT
/*
 * pvsmm.efi -- the pvsmm handler for UEFI guests, as a UEFI runtime driver
 * (gnu-efi).  Loaded by the firmware (a Driver#### entry, or "load
 * pvsmm.efi" in the UEFI shell) before the OS loader, it:
 *
 *   1. looks for the pvsmm CPUID leaf (KVM base + 0x80) and unloads
 *      itself if the host does not offer registration;
 *   2. allocates the private region as EfiReservedMemoryType pages below
 *      4 GiB: they survive ExitBootServices and the OS never counts them
 *      as usable memory (nor maps them: nothing in them is UEFI's);
 *   3. copies firmware/handler.asm (unchanged, as a flat blob) there and
 *      builds the window page tables and the descriptor, with a per-vCPU
 *      area for every vCPU the ABI allows (memory is cheap here, and vCPUs
 *      plugged later are covered too);
 *   4. writes the descriptor's address to PVSMM_MSR_REGISTER.
 *
 * The registration is VM-wide: the APs that the OS starts later, which
 * never run this driver, are covered all the same.  The layout of the
 * region is the option ROM's (firmware/optionrom/region.asm).
 *
 * Firmware reads of the PM timer before this driver runs go to the VMM;
 * OVMF reads it throughout boot, which is what the QEMU shim uses to line
 * kvmclock up with QEMU's own PM timer.
 */
#include <efi.h>
#include <efilib.h>
#include <pvsmm/abi.h>

#define FIXED_PAGES		5	/* descriptor+handler, PML4, PDPT, PD, PT */
#define PML4_OFF		0x1000
#define PDPT_OFF		0x2000
#define PD_OFF			0x3000
#define PT_OFF			0x4000
#define PERCPU_OFF		(FIXED_PAGES * 0x1000)
#define HANDLER_OFFSET		0x100
#define PERCPU_WINDOW_OFFSET	0x10000

#define PTE_P	(1ull << 0)
#define PTE_RW	(1ull << 1)
#define PTE_A	(1ull << 5)
#define PTE_D	(1ull << 6)
#define TABLE_FLAGS	(PTE_P | PTE_RW | PTE_A)
#define LEAF_RO_FLAGS	(PTE_P | PTE_A)		/* no NX: EFER.NXE may be off */
#define LEAF_RW_FLAGS	(PTE_P | PTE_RW | PTE_A | PTE_D)

#define KVM_SIG_EBX	0x4b4d564b	/* "KVMK" */
#define KVM_SIG_ECX	0x564b4d56	/* "VMKV" */
#define KVM_SIG_EDX	0x0000004d	/* "M\0\0\0" */

extern const unsigned char pvsmm_handler_blob[];
extern const unsigned long pvsmm_handler_blob_size;

_Static_assert((PERCPU_WINDOW_OFFSET >> 12) + PVSMM_MAX_VCPUS <= 512,
	       "the window needs more than one page table");

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

static void fill_region(UINT64 base, UINT32 nr)
{
	volatile UINT64 *pml4 = (UINT64 *)(base + PML4_OFF);
	volatile UINT64 *pdpt = (UINT64 *)(base + PDPT_OFF);
	volatile UINT64 *pd = (UINT64 *)(base + PD_OFF);
	volatile UINT64 *pt = (UINT64 *)(base + PT_OFF);
	struct pvsmm_descriptor *desc = (struct pvsmm_descriptor *)base;
	UINT32 i;

	ZeroMem((void *)base, (FIXED_PAGES + nr) * EFI_PAGE_SIZE);
	CopyMem((void *)(base + HANDLER_OFFSET), (void *)pvsmm_handler_blob,
		pvsmm_handler_blob_size);

	pml4[PVSMM_WINDOW_SLOT] = (base + PDPT_OFF) | TABLE_FLAGS;
	pdpt[0] = (base + PD_OFF) | TABLE_FLAGS;
	pd[0] = (base + PT_OFF) | TABLE_FLAGS;
	pt[0] = base | LEAF_RO_FLAGS;
	for (i = 0; i < nr; i++)
		pt[(PERCPU_WINDOW_OFFSET >> 12) + i] =
			(base + PERCPU_OFF + (UINT64)i * PVSMM_PERCPU_SIZE) | LEAF_RW_FLAGS;

	desc->magic = PVSMM_DESC_MAGIC;
	desc->version = PVSMM_ABI_VERSION;
	desc->size = sizeof(*desc);
	desc->nr_vcpus = nr;
	desc->handler_va = PVSMM_WINDOW_BASE + HANDLER_OFFSET;
	desc->handler_size = pvsmm_handler_blob_size;
	desc->private_cr3 = base + PML4_OFF;
	desc->window_pdpt = base + PDPT_OFF;
	desc->percpu_gpa = base + PERCPU_OFF;
	desc->percpu_va = PVSMM_WINDOW_BASE + PERCPU_WINDOW_OFFSET;
	desc->status = PVSMM_STATUS_NONE;
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	EFI_PHYSICAL_ADDRESS base = 0xffffffff;
	UINT32 nr = PVSMM_MAX_VCPUS, status;
	UINTN pages = FIXED_PAGES + nr;
	EFI_STATUS r;

	InitializeLib(image, systab);
	if (HANDLER_OFFSET + pvsmm_handler_blob_size > EFI_PAGE_SIZE) {
		Print(L"pvsmm: handler too large\n");
		return EFI_LOAD_ERROR;
	}
	if (!find_pvsmm_leaf()) {
		Print(L"pvsmm: not offered by the host (no CPUID leaf), driver unloaded\n");
		return EFI_UNSUPPORTED;
	}
	r = uefi_call_wrapper(BS->AllocatePages, 4, AllocateMaxAddress,
			      EfiReservedMemoryType, pages, &base);
	if (EFI_ERROR(r)) {
		Print(L"pvsmm: no memory for the handler's region (%r)\n", r);
		return r;
	}
	fill_region(base, nr);
	/* The host validates the descriptor within the WRMSR. */
	wrmsr(PVSMM_MSR_REGISTER, base | PVSMM_MSR_ENABLE);
	status = ((volatile struct pvsmm_descriptor *)base)->status;
	if (status != PVSMM_STATUS_OK) {
		Print(L"pvsmm: registration FAILED, status=%d\n", status);
		uefi_call_wrapper(BS->FreePages, 2, base, pages);
		return EFI_DEVICE_ERROR;
	}
	Print(L"pvsmm: registered, %d vCPU areas at 0x%lx\n", nr, base);
	return EFI_SUCCESS;
}
