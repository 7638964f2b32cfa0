/* SPDX-License-Identifier: MIT */
/*
 * The worker's side of detach.h: deciding a cth_detach() and polling the
 * waiting connections over ctnetlink.  Split from worker.c so the tests
 * can run it against an emulated kernel (tests/unit/nlfake.c).
 */
#ifndef CTH_WDETACH_H
#define CTH_WDETACH_H

#include <stdbool.h>
#include <stdint.h>

#include "wexpect.h"

/* Update an existing connection (no NLM_F_CREATE): set its helper, or
 * with helper NULL change nothing.  0 or a negative errno. */
int worker_ct_update(struct worker *w, const struct cth_tuple *orig,
		     uint16_t zone, const char *helper);
/* Check a few waiting connections: detach those whose expectations are
 * all gone, forget those whose conntrack is gone. */
void worker_detach_poll(struct worker *w, uint64_t now);
/* The plugin asked to detach (c->detach): decide now or make it wait.
 * true when the caller must start the detach poll. */
bool worker_detach_decide(struct worker *w, struct worker_pkt *wp,
			  struct pkt_call *c, uint64_t now);

#endif
