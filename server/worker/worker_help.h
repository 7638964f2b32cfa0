/* SPDX-License-Identifier: MIT */
/*
 * Helping a queue's packets: each message of a received datagram is read
 * (qmsg.h), its connection's helper found in the current runtime, the
 * plugin called with the connection's newest private state
 * (host/call.h), and the verdict added to the batch (worker_verdict.h);
 * expectations and detaches go through the worker's kernel requests
 * (worker_expect.h, worker_detach.h).  What a helper keeps between
 * packets lives here, one set per worker: every packet of a connection
 * comes to one queue, so nothing is shared with another worker.
 */
#ifndef CTH_WORKER_HELP_H
#define CTH_WORKER_HELP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/inflight.h"
#include "host/keep.h"
#include "kernel/nlreq.h"
#include "prefilter.h"
#include "qmsg.h"
#include "runtime/runtime.h"
#include "sandbox/sandbox.h"
#include "worker_detach.h"
#include "worker_expect.h"
#include "worker_kreq.h"
#include "worker_link.h"
#include "worker_verdict.h"

/* A packet posted to a sandbox, its result not taken yet: what the
 * unbatched path keeps on its stack for one packet, kept per slot. */
struct worker_slot {
	struct qmsg m;                 /* points into the receive's buffers */
	const struct instance *in;
	struct pkt_call c;
	struct worker_expect_pkt wp;
};

/* Verdicts that wait for their place while a batch is posted. */
#define WORKER_BATCH_ORDER 32u

/*
 * The packets of one receive for one sandbox (sandbox.h sandbox_post()):
 * posted as they are read, the sandbox woken once, the results taken in
 * the receive's order; a packet of the receive that no plugin sees (no
 * payload, not ours, malformed) waits in order[] for its place in the
 * verdict batch.  A packet for an in-process plugin or another sandbox
 * ends the batch first.
 */
struct worker_batch {
	struct sandbox *sb;            /* the batch's sandbox, NULL: none */
	uint64_t now_ms;               /* the receive's */
	unsigned int n;                /* slots posted */
	struct worker_slot slot[SANDBOX_BATCH_MAX];
	unsigned int n_order;
	struct {
		uint16_t queue;
		uint32_t id;
		int slot;              /* -1: accepted unread */
	} order[WORKER_BATCH_ORDER];
};

struct worker_help {
	uint16_t queue;                /* for the log */
	struct runtime *_Atomic *rtp;  /* the current runtime, swappable */
	struct stats_block *stats;     /* the worker's counters */
	uint32_t last_id;              /* of the last packet: skipped ids count */
	struct worker_verdict verdict; /* verdicts waiting for one sendmsg() */
	struct worker_kreq kreq;       /* ctnetlink requests, bounded per packet */
	struct worker_detach detach;   /* detaches waiting for expectations (cth_detach) */
	struct inflight inflight;      /* newest state of connections in flight */
	struct keep keep;              /* bytes kept for the next segment (cth_keep) */
	struct worker_link link;       /* the link view's addresses (cth_link) */
	struct worker_batch batch;     /* packets posted to a sandbox */
	struct prefilter prefilter;    /* lines the match rules left open */
};

/* For the worker of queue, with its in-flight table's size ([server]
 * inflight_entries), counters and sockets (the queue's, ctnetlink).  0
 * or -ENOMEM (then worker_help_free() is still safe). */
int worker_help_init(struct worker_help *h, uint16_t queue, unsigned int inflight_entries,
		     struct runtime *_Atomic *rtp, struct stats_block *stats,
		     struct nlreq *nfq, struct nlreq *ctnl);
void worker_help_free(struct worker_help *h);
/* The messages of one received datagram, len bytes at buf (cut: it was
 * cut to its receive slot), received at now (monotonic ms).  Their
 * verdicts wait in h->verdict for worker_verdict_flush(); a connection
 * that now waits to detach waits in h->detach for worker_detach_poll(). */
void worker_help_datagram(struct worker_help *h, char *buf, size_t len, bool cut,
			  uint64_t now);
/* After a receive's datagrams, before its verdicts leave: the packets
 * posted to a sandbox answered, every verdict of the receive in its
 * order in h->verdict (the datagrams' buffers must still hold them). */
void worker_help_flush(struct worker_help *h);

#endif
