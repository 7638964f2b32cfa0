/* SPDX-License-Identifier: MIT */
/*
 * The daemon's check of a sandbox's turn (chan_check.c).  Each returns 0
 * (chan_check_done(): the verdict) or -EPROTO with *why saying which rule
 * was broken; the caller kills the sandbox then.
 */
#ifndef CTH_CHAN_CHECK_H
#define CTH_CHAN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "chan.h"
#include "runtime/stats.h"

/* The worker's copy of the sandbox's turn (never read twice from shared
 * memory). */
struct chan_check {
	struct chan_res res;
};

/* A doorbell word rung while the worker waits on slot: CHAN_RING_CALL
 * or CHAN_RING_DONE of that slot, or -EPROTO (another slot, ring, or
 * stray bits). */
int chan_check_word(uint32_t word, unsigned int slot, const char **why);
/* A CHAN_RING_CALL: the records before it done, the call answered into
 * sl->ans.  c->pub.host must be set (pkt_call_host()). */
int chan_check_call(struct chan_check *k, struct chan_slot *sl, struct pkt_call *c,
		    const char **why);
/* A CHAN_RING_DONE: the records left done, the verdict (>= 0) returned,
 * the state in c->priv; kpriv is the kernel's copy. */
int chan_check_done(struct chan_check *k, const struct chan_slot *sl, struct pkt_call *c,
		    const uint8_t *kpriv, size_t klen, struct stats_block *st,
		    const char **why);

#endif
