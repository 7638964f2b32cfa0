// SPDX-License-Identifier: MIT
/* This process's netlink port ids (portids.h). */
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

#include "portids.h"

/* portid << 8 | kind; 0: free.  Port ids are 32-bit: 64-bit slots. */
static _Atomic uint64_t portids[PORTIDS_MAX];

static uint64_t portids_slot(uint32_t portid, enum portid_kind kind);

int portids_add(uint32_t portid, enum portid_kind kind)
{
	if (portid == 0 || kind == PORTID_NONE)
		return -EINVAL;
	for (size_t i = 0; i < PORTIDS_MAX; i++) {
		uint64_t free_slot = 0;

		if (atomic_compare_exchange_strong(&portids[i], &free_slot,
						   portids_slot(portid, kind)))
			return 0;
	}
	return -ENOSPC;
}

void portids_del(uint32_t portid)
{
	for (size_t i = 0; i < PORTIDS_MAX; i++) {
		uint64_t v = atomic_load(&portids[i]);

		if (v && (uint32_t)(v >> 8) == portid)
			atomic_compare_exchange_strong(&portids[i], &v, 0);
	}
}

enum portid_kind portids_kind(uint32_t portid)
{
	if (portid == 0)
		return PORTID_NONE;
	for (size_t i = 0; i < PORTIDS_MAX; i++) {
		uint64_t v = atomic_load(&portids[i]);

		if (v && (uint32_t)(v >> 8) == portid)
			return (enum portid_kind)(v & 0xff);
	}
	return PORTID_NONE;
}

static uint64_t portids_slot(uint32_t portid, enum portid_kind kind)
{
	return (uint64_t)portid << 8 | (uint64_t)kind;
}
