/* SPDX-License-Identifier: MIT */
/*
 * The worker's link view (cth_link()): the packet's interfaces from its
 * queue message, this host's addresses from the worker's own address
 * table (kernel/addrtab.h), read when a plugin first asks and again when
 * the copy is older than WORKER_LINK_TTL_MS, and host/link.c's rules.  A
 * plugin that never asks costs nothing; one that does costs one dump a
 * second per worker at most.
 */
#ifndef CTH_WORKER_LINK_H
#define CTH_WORKER_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "host/link.h"
#include "host/packet.h"
#include "kernel/addrtab.h"

/* How old the worker's copy of the addresses may get: an address added
 * or removed is seen this much later at most. */
#define WORKER_LINK_TTL_MS 1000u

struct worker_link {
	uint16_t queue;                /* for the log */
	struct addrtab tab;
	struct link_addr addr[ADDRTAB_MAX];
	size_t n;
	int rc;                        /* the last read's answer */
	bool read;                     /* read at least once */
	bool warned;                   /* "more addresses than..." said */
	uint64_t read_ms, now_ms;
};

void worker_link_init(struct worker_link *l, uint16_t queue);
void worker_link_free(struct worker_link *l);
/* The time of the packet about to be helped (monotonic ms). */
void worker_link_now(struct worker_link *l, uint64_t now_ms);
/* The pkt_call's link_fn (c->link_backend is the worker_link). */
int worker_link_fn(struct pkt_call *c, struct cth_link *link);

#endif
