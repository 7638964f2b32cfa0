/* SPDX-License-Identifier: MIT */
/*
 * The worker's side of detach.h: deciding a cth_detach() and polling the
 * waiting connections over ctnetlink (worker_kreq.h).  The tests run it
 * against an emulated kernel (tests/unit/nlfake.c).
 */
#ifndef CTH_WORKER_DETACH_H
#define CTH_WORKER_DETACH_H

#include <stdbool.h>
#include <stdint.h>

#include "detach.h"
#include "worker_expect.h"
#include "worker_kreq.h"

struct worker_detach {
	struct detach table;           /* detaches waiting for expectations */
	struct worker_kreq *kreq;
	struct stats_block *stats;     /* the worker's counters */
	/* the current runtime: a waiting detach counts by its helper's name */
	struct runtime *_Atomic *rtp;
};

void worker_detach_init(struct worker_detach *d, struct worker_kreq *kreq,
			struct stats_block *stats, struct runtime *_Atomic *rtp);
/* The plugin asked to detach (c->detach), wp what the packet did with
 * expectations: decide now or make it wait.  true when the caller must
 * start the detach poll. */
bool worker_detach_decide(struct worker_detach *d, struct worker_expect_pkt *wp,
			  struct pkt_call *c, uint64_t now);
/* Check a few waiting connections: detach those whose expectations are
 * all gone, forget those whose conntrack is gone. */
void worker_detach_poll(struct worker_detach *d, uint64_t now);

#endif
