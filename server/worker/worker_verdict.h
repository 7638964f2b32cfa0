/* SPDX-License-Identifier: MIT */
/*
 * The worker's verdicts: each queued packet's verdict message (verdict.h)
 * joins a batch (vbatch.h) that leaves on the queue socket in one
 * datagram, at the end of a receive or before any ctnetlink request
 * (worker_kreq.h), and is counted.
 */
#ifndef CTH_WORKER_VERDICT_H
#define CTH_WORKER_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/nlreq.h"
#include "host/packet.h"
#include "vbatch.h"

/* Verdicts leave together, a datagram of several within 3 KiB (below
 * NLMSG_GOODSIZE with 4 KiB pages: vbatch.h); the buffer holds the
 * largest single verdict, a rewritten GSO packet with an expectation. */
#define WORKER_VERDICT_GOAL 3072u

struct stats_block;

struct worker_verdict {
	struct vbatch vb;              /* verdicts waiting for one sendmsg() */
	struct nlreq *nfq;             /* the queue's socket (the worker's) */
	uint16_t queue;                /* for the log */
	struct stats_block *stats;     /* the worker's counters */
};

/* 0 or -ENOMEM (then worker_verdict_free() is still safe). */
int worker_verdict_init(struct worker_verdict *v, uint16_t queue, struct nlreq *nfq,
			struct stats_block *stats);
void worker_verdict_free(struct worker_verdict *v);
/* Packet id of queue gets verdict (CTH_VERDICT_*): with what the plugin
 * call c asked for (NULL: a packet no plugin saw) and the expectation
 * exp riding on it (NULL: none).  Returns the length of the rewritten
 * packet it carries, 0 when unchanged. */
size_t worker_verdict_add(struct worker_verdict *v, uint16_t queue, uint32_t id,
			  int verdict, struct pkt_call *c, const struct cth_expect *exp);
/* Send the verdicts collected so far. */
void worker_verdict_flush(struct worker_verdict *v);

#endif
