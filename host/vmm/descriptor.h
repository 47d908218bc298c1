/* SPDX-License-Identifier: MIT */
#ifndef PVSMM_DESCRIPTOR_H
#define PVSMM_DESCRIPTOR_H

#include <stdbool.h>
#include <stdint.h>
#include "pvsmm/abi.h"

/* Guest RAM as the validator sees it: [0, size) at ram. */
struct pvsmm_guest_mem {
	const uint8_t *ram;
	uint64_t size;
};

/*
 * Validates a registration descriptor (the host's own copy) against a VM
 * with the given RAM and online_vcpus vCPUs, including a walk of the
 * firmware's private page tables in guest memory (abi.h: W^X,
 * supervisor-only, the per-vCPU areas at exactly their GPAs, 4 KiB leaves
 * and no NX bit in the 32-bit tables, GDT and IDT mapped with at least
 * their minimum limits, no table reachable twice at different levels).
 * Returns a PVSMM_STATUS_* value; PVSMM_STATUS_OK means the host may use
 * it.  Pure: reads mem, no I/O, no global state.
 *
 * pae_pdptes (4 entries, may be NULL): the PAE entry's PDPTEs, read from
 * guest memory once, checked, walked from, and returned there (zero
 * without a PAE entry).  The host loads these, never the PDPT again:
 * another vCPU may rewrite it at any time.
 */
int pvsmm_validate_descriptor(const struct pvsmm_descriptor *d,
			      const struct pvsmm_guest_mem *mem,
			      unsigned int online_vcpus, uint64_t *pae_pdptes);

/* One translation by a software page walk. */
enum pvsmm_walk_status {
	PVSMM_WALK_OK,
	PVSMM_WALK_NOT_PRESENT,
	PVSMM_WALK_RESERVED,	/* a bit the mode (or strictness) forbids */
	PVSMM_WALK_OUTSIDE_RAM,	/* a table or CR3 outside guest RAM */
	PVSMM_WALK_NONCANONICAL,
};

struct pvsmm_walk_config {
	unsigned int levels;	/* 2 (32-bit), 3 (PAE), 4 or 5 (long mode) */
	bool pse;		/* 2-level paging: CR4.PSE, 4 MiB pages */
	/* The private tables' rules: 4 KiB leaves only in 32-bit and PAE
	 * tables (2 MiB allowed in long mode), no NX bit outside long mode,
	 * clean PAE PDPTEs (no Accessed bit either). */
	bool strict;
	/* PAE: the PDPTEs the CPU loaded at its last CR3 load, used instead
	 * of the PDPT in memory (NULL: read the PDPT at cr3). */
	const uint64_t *pdptrs;
};

#define PVSMM_WALK_MAX_LEVELS	5

struct pvsmm_walk {
	uint64_t gpa;		/* where the linear address lands */
	bool writable;		/* every level's R/W set */
	bool user;		/* every level's U/S set */
	bool nx;		/* any level's NX set */
	unsigned int nr_tables;	/* the table pages read, top first */
	uint64_t tables[PVSMM_WALK_MAX_LEVELS];
};

enum pvsmm_walk_status pvsmm_walk(const struct pvsmm_guest_mem *mem,
				  const struct pvsmm_walk_config *cfg,
				  uint64_t cr3, uint64_t va,
				  struct pvsmm_walk *out);

#endif
