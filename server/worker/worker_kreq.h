/* SPDX-License-Identifier: MIT */
/*
 * The worker's kernel requests: everything it asks ctnetlink while it
 * helps (expectations, conntrack updates, a master's expectation dump),
 * synchronous on its own socket, after the verdicts collected so far, and
 * bounded per queued packet.
 */
#ifndef CTH_WORKER_KREQ_H
#define CTH_WORKER_KREQ_H

#include <stdint.h>

#include "kernel/expect.h"
#include "kernel/nlreq.h"
#include "runtime/runtime.h"
#include "worker_verdict.h"

/*
 * Most ctnetlink requests (dumps, gets, creates, deletes, conntrack
 * updates) one queued packet may cost, from its plugin call to what
 * follows its verdict; past it a request fails with -ENOSPC, which the
 * plugin sees, and counts as kernel_capped.  Each request is a
 * synchronous round trip on the worker's thread, so without a bound one
 * TCP segment of back-to-back SIP messages (each flushing three classes)
 * held the queue for thousands of them.  A legitimate packet needs far
 * fewer: one dump and a delete per expectation of its own to flush,
 * then up to WORKER_EXPECT_MAX expectations at two requests each at
 * most (a lookup, or a create answered EEXIST and its lookup), 33 plus
 * the deletes.  A NAT port search past that finds the range crowded.
 * A packet past it is logged rate-limited (log_rl_*, log.h): a flood of
 * them would flood the log.
 */
#define WORKER_KREQ_MAX 64u

struct stats_block;

struct worker_kreq {
	struct nlreq *ctnl;            /* the worker's ctnetlink socket */
	struct worker_verdict *verdict;  /* sent before each request */
	struct stats_block *stats;     /* the worker's counters */
	/* a master's expectations, every class or one, as the last
	 * worker_kreq_master_list() found them */
	struct expect_list *list;
	/* the per-packet bound: requests left for the packet being helped,
	 * and whose helper it counts for (NULL: no packet, no bound; the
	 * detach poll has its own, DETACH_POLL_BATCH) */
	unsigned int left;
	const struct instance *inst;
};

/* The listing's room; 0 or -ENOMEM (then worker_kreq_free() is still
 * safe). */
int worker_kreq_init(struct worker_kreq *k, struct nlreq *ctnl,
		     struct worker_verdict *verdict, struct stats_block *stats);
void worker_kreq_free(struct worker_kreq *k);
/* The bound starts for a packet of helper in, and ends. */
void worker_kreq_begin(struct worker_kreq *k, const struct instance *in);
void worker_kreq_end(struct worker_kreq *k);
/* Send nlh, its answers to cb when given: 0 or a negative errno
 * (-ENOSPC: past the packet's bound, not sent). */
int worker_kreq_talk(struct worker_kreq *k, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data);
/* Update an existing connection (no NLM_F_CREATE): set its helper, or
 * with helper NULL change nothing.  0 or a negative errno. */
int worker_kreq_ct_update(struct worker_kreq *k, const struct cth_tuple *orig,
			  uint16_t zone, const char *helper);
/* The master's expectations (of one class, or -1: all) into k->list:
 * 0 or a negative errno (-ENOENT: no such master). */
int worker_kreq_master_list(struct worker_kreq *k, const struct cth_tuple *orig,
			    uint16_t zone, int class);

#endif
