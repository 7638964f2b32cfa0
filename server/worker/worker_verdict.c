/* SPDX-License-Identifier: MIT */
/* The worker's verdicts (worker_verdict.h): batched, sent, counted. */
#include <errno.h>
#include <string.h>

#include "worker_verdict.h"
#include "base/log.h"
#include "host/call.h"
#include "runtime/stats.h"
#include "verdict.h"

static int worker_verdict_send(void *arg, const void *buf, size_t len);
static void worker_verdict_failed(struct worker_verdict *v, const struct vbatch_sent *r);

int worker_verdict_init(struct worker_verdict *v, uint16_t queue, struct nlreq *nfq,
			struct stats_block *stats)
{
	v->queue = queue;
	v->nfq = nfq;
	v->stats = stats;
	return vbatch_init(&v->vb, verdict_size_max(PKT_OUT_MAX, true), WORKER_VERDICT_GOAL);
}

void worker_verdict_free(struct worker_verdict *v)
{
	vbatch_free(&v->vb);
}

/*
 * Added to the batch, sent at the end of this receive, before any
 * ctnetlink request, or now when the batch is full.  A dropped packet
 * needs no new payload.
 */
size_t worker_verdict_add(struct worker_verdict *v, uint16_t queue, uint32_t id,
			  int verdict, struct pkt_call *c, const struct cth_expect *exp)
{
	bool drop = verdict == CTH_VERDICT_DROP;
	const uint8_t *pkt = NULL;
	size_t len = 0, need;
	char *buf;

	if (c && !drop)
		pkt = pkt_call_mangled(c, &len);
	need = verdict_size_max(pkt ? len : 0, exp != NULL);
	if (!(buf = vbatch_room(&v->vb, need))) {
		worker_verdict_flush(v);
		buf = vbatch_room(&v->vb, need);
	}
	verdict_put(buf, queue, id, drop, c, pkt, len, exp);
	vbatch_add(&v->vb, id, pkt ? (int)c->inst->slot : -1);
	return pkt ? len : 0;
}

/*
 * In one datagram (vbatch.h); when that fails, one by one.  A refusal of
 * one verdict comes back later as its own error message
 * (worker_help_datagram()).
 */
void worker_verdict_flush(struct worker_verdict *v)
{
	struct vbatch *b = &v->vb;
	struct vbatch_sent r;

	if (!b->n)
		return;
	vbatch_send(b, worker_verdict_send, v, &r);
	if (r.err)
		worker_verdict_failed(v, &r);
	for (unsigned int i = 0; i < b->n; i++)
		if (r.ok[i] && b->tag[i] >= 0)  /* a rewritten packet: its helper's slot */
			stats_add(&v->stats->h[b->tag[i]][STATS_H_MANGLED], 1);
	vbatch_clear(b);
}

/* The queue socket's send, for vbatch_send(). */
static int worker_verdict_send(void *arg, const void *buf, size_t len)
{
	struct worker_verdict *v = arg;

	return mnl_socket_sendto(v->nfq->nl, buf, len) < 0 ? -errno : 0;
}

/* What a failed batch cost (vbatch.h: no verdict of it was applied). */
static void worker_verdict_failed(struct worker_verdict *v, const struct vbatch_sent *r)
{
	stats_add(&v->stats->q[STATS_Q_VERDICT_RETRIES], r->retried);
	stats_add(&v->stats->q[STATS_Q_VERDICT_ERRORS], r->dropped + r->lost);
	if (r->dropped || r->lost)
		log_err("queue %u: %u verdicts could not be sent (%s): %u dropped instead, "
			"%u lost (their packets stay queued)", v->queue,
			r->dropped + r->lost, strerror(-r->err), r->dropped, r->lost);
}
