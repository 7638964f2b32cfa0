/* SPDX-License-Identifier: MIT */
/*
 * The path of one queued packet (worker_help.h): the queue message read,
 * its helper found, the plugin called (in process, or posted to its
 * sandbox with the receive's other packets for it and taken in order:
 * worker_help_flush()), the verdict batched, then what follows the
 * verdict (expectations that waited for it, a sequence adjustment
 * announced).
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <stdatomic.h>
#include <string.h>

#include "worker_help.h"
#include "base/log.h"
#include "host/call.h"
#include "qmsg.h"
#include "sandbox/sandbox.h"
#include "seqsync.h"
#include "worker_count.h"
#include "worker_expect.h"
#include "worker_link.h"

static void worker_help_msg(struct worker_help *h, const struct nlmsghdr *nlh,
			    uint64_t now);
static void worker_help_accept(struct worker_help *h, uint16_t queue, uint32_t id);
static void worker_batch_order(struct worker_batch *b, uint16_t queue, uint32_t id, int slot);
static void worker_help_payload(struct worker_help *h, struct qmsg *m, uint64_t now);
static void worker_help_post(struct worker_help *h, struct qmsg *m,
			     const struct instance *in, uint64_t now);
static void worker_help_take(struct worker_help *h, unsigned int i, uint64_t now);
static bool worker_help_detached(struct worker_help *h, const struct qmsg *m, uint64_t now);
static bool worker_help_wanted(struct worker_help *h, const struct qmsg *m,
			       const struct instance *in, uint64_t now);
static void worker_help_call_init(struct worker_help *h, struct pkt_call *c,
				  struct worker_expect_pkt *wp, const struct qmsg *m,
				  const struct instance *in, uint64_t now);
static int worker_help_lost(struct pkt_call *c, struct worker_expect_pkt *wp);
static void worker_help_verdict(struct worker_help *h, const struct qmsg *m,
				struct pkt_call *c, struct worker_expect_pkt *wp,
				int verdict, uint64_t now);
static void worker_help_seqsync(struct worker_help *h, const struct pkt_call *c);
static void worker_help_cut(struct worker_help *h, struct nlmsghdr *nlh, size_t len);
static void worker_help_count(struct worker_help *h, uint32_t id);
static bool worker_help_is_packet(const struct nlmsghdr *nlh);

/* Walk every message ourselves: mnl_cb_run() stops at the first error
 * message, which would strand the packets queued behind it.  In a cut
 * datagram the message left over is the cut one. */
void worker_help_datagram(struct worker_help *h, char *buf, size_t len, bool cut,
			  uint64_t now)
{
	struct nlmsghdr *nlh = (void *)buf;
	int rem = (int)len;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (e->error) {
				worker_count_queue(h->stats, STATS_Q_VERDICT_ERRORS);
				log_warn("queue %u: kernel refused a verdict or setting: %s",
					 h->queue, strerror(-e->error));
			}
			continue;
		}
		if (worker_help_is_packet(nlh))
			worker_help_msg(h, nlh, now);
	}
	if (cut)
		worker_help_cut(h, nlh, (size_t)rem);
}

static void worker_help_msg(struct worker_help *h, const struct nlmsghdr *nlh,
			    uint64_t now)
{
	struct qmsg m;
	int kind = qmsg_read(nlh, &m);

	if (kind == QMSG_NO_ID) {
		log_err("queue %u: malformed queue message without packet id", m.queue);
		return;
	}
	worker_help_count(h, m.id);
	switch (kind) {
	case QMSG_MALFORMED:
		worker_count_queue(h->stats, STATS_Q_PARSE_ERRORS);
		log_warn("queue %u: packet %u: malformed queue message, accepted", m.queue, m.id);
		worker_help_accept(h, m.queue, m.id);
		return;
	case QMSG_ACCEPT:
		/* no payload (pure ACK), no conntrack, or not IP: cheaply */
		worker_count_queue(h->stats, STATS_Q_NO_PAYLOAD);
		worker_help_accept(h, m.queue, m.id);
		return;
	default:
		worker_help_payload(h, &m, now);
	}
}

void worker_help_flush(struct worker_help *h)
{
	struct worker_batch *b = &h->batch;

	if (!b->sb)
		return;
	for (unsigned int i = 0; i < b->n_order; i++) {
		if (b->order[i].slot < 0)
			worker_verdict_add(&h->verdict, b->order[i].queue, b->order[i].id,
					   CTH_VERDICT_ACCEPT, NULL, NULL);
		else
			worker_help_take(h, (unsigned int)b->order[i].slot, b->now_ms);
	}
	sandbox_batch_close(b->sb, h->stats);
	b->sb = NULL;
	b->n = b->n_order = 0;
}

/* A packet no plugin sees: accepted, in its place behind a batch. */
static void worker_help_accept(struct worker_help *h, uint16_t queue, uint32_t id)
{
	struct worker_batch *b = &h->batch;

	if (b->sb && b->n_order == WORKER_BATCH_ORDER)
		worker_help_flush(h);
	if (!b->sb) {
		worker_verdict_add(&h->verdict, queue, id, CTH_VERDICT_ACCEPT, NULL, NULL);
		return;
	}
	worker_batch_order(b, queue, id, -1);
}

/* The verdict of packet id takes its place: slot's result, or -1 for an
 * accept.  Room was made by the caller (WORKER_BATCH_ORDER). */
static void worker_batch_order(struct worker_batch *b, uint16_t queue, uint32_t id, int slot)
{
	b->order[b->n_order].queue = queue;
	b->order[b->n_order].id = id;
	b->order[b->n_order++].slot = slot;
}

/* A packet with payload: its helper found, then the plugin run in
 * process, or posted to its sandbox (the result taken by
 * worker_help_flush()); its verdict joins the batch in its place. */
static void worker_help_payload(struct worker_help *h, struct qmsg *m, uint64_t now)
{
	const struct runtime *rt = atomic_load(h->rtp);
	/* only the counters are cleared: the arrays behind them are large
	 * and filled as used, and this runs for every payload packet */
	struct worker_expect_pkt wp;
	struct pkt_call c;
	const struct instance *in = NULL;
	int verdict;

	if (qmsg_conn_read(m) < 0) {
		log_debug("queue %u: packet %u: incomplete conntrack, accepted",
			  m->queue, m->id);
		worker_count_queue(h->stats, STATS_Q_PARSE_ERRORS);
		worker_help_accept(h, m->queue, m->id);
		return;
	}
	if (m->helper[0])
		in = runtime_find(rt, m->helper, m->family, m->view.tuple[0].proto);
	if (!in) {
		log_debug("queue %u: packet %u: helper '%s' is not ours, accepted",
			  m->queue, m->id, m->helper[0] ? m->helper : "(none)");
		worker_count_queue(h->stats, STATS_Q_NOT_OURS);
		worker_help_accept(h, m->queue, m->id);
		return;
	}
	if (worker_help_detached(h, m, now) || !worker_help_wanted(h, m, in, now)) {
		worker_help_accept(h, m->queue, m->id);
		return;
	}
	if (in->sb) {
		worker_help_post(h, m, in, now);
		return;
	}
	/* in process: what was posted before it goes first */
	worker_help_flush(h);
	worker_help_call_init(h, &c, &wp, m, in, now);
	worker_kreq_begin(&h->kreq, in);
	keep_join(&h->keep, &c, now);
	verdict = pkt_call_run_newest(&c, &h->inflight, m->kpriv, m->klen, now);
	keep_done(&h->keep, &c, verdict, now);
	worker_help_verdict(h, m, &c, &wp, verdict, now);
}

/*
 * Into the batch of in's sandbox (a batch of another sandbox, or a full
 * one, is taken first).  A sandbox that is down gets the packet's
 * sandbox_verdict at once: no batch is open for it then.
 */
static void worker_help_post(struct worker_help *h, struct qmsg *m,
			     const struct instance *in, uint64_t now)
{
	struct worker_batch *b = &h->batch;
	struct worker_slot *s;
	int rc;

	if (b->sb && (b->sb != in->sb || b->n == SANDBOX_BATCH_MAX ||
		      b->n_order == WORKER_BATCH_ORDER))
		worker_help_flush(h);
	s = &b->slot[b->n];
	s->m = *m;
	s->in = in;
	worker_help_call_init(h, &s->c, &s->wp, &s->m, in, now);
	rc = sandbox_post(in->sb, &s->c, s->m.kpriv, s->m.klen, now, h->stats);
	if (rc < 0) {
		/* down (counted lost there) */
		worker_kreq_begin(&h->kreq, in);
		worker_help_verdict(h, &s->m, &s->c, &s->wp, worker_help_lost(&s->c, &s->wp),
				    now);
		return;
	}
	b->sb = in->sb;
	b->now_ms = now;
	worker_batch_order(b, m->queue, m->id, (int)b->n++);
}

/*
 * Slot i's result, in its place.  A slot whose connection an earlier
 * slot detached is skipped (its result not read, its calls refused) and
 * accepted unread, as the unbatched path accepts a packet queued before
 * its connection was detached.
 */
static void worker_help_take(struct worker_help *h, unsigned int i, uint64_t now)
{
	struct worker_slot *s = &h->batch.slot[i];
	struct sandbox *sb = h->batch.sb;
	int verdict;

	if (worker_help_detached(h, &s->m, now)) {
		sandbox_take(sb, i, &s->c, s->m.kpriv, s->m.klen, true, h->stats);
		worker_verdict_add(&h->verdict, s->m.queue, s->m.id, CTH_VERDICT_ACCEPT, NULL, NULL);
		pkt_call_release(&s->c);
		return;
	}
	worker_kreq_begin(&h->kreq, s->in);
	worker_link_now(&h->link, now);
	verdict = sandbox_take(sb, i, &s->c, s->m.kpriv, s->m.klen, false, h->stats);
	if (verdict < 0)
		verdict = worker_help_lost(&s->c, &s->wp);
	worker_help_verdict(h, &s->m, &s->c, &s->wp, verdict, now);
}

/* The plugin's match rules (prefilter.h): a packet none selects is
 * accepted unread, without its plugin's call or sandbox turn. */
static bool worker_help_wanted(struct worker_help *h, const struct qmsg *m,
			       const struct instance *in, uint64_t now)
{
	bool evicted;

	if (!in->match.n)
		return true;
	if (prefilter_wanted(&h->prefilter, &in->match, &m->view, now, &evicted)) {
		if (evicted)
			worker_count_queue(h->stats, STATS_Q_MATCH_EVICTED);
		return true;
	}
	worker_count(h->stats, in, STATS_H_UNMATCHED);
	return false;
}

/* A packet queued before its connection was detached: the kernel no
 * longer helps the connection, so the packet is accepted unread. */
static bool worker_help_detached(struct worker_help *h, const struct qmsg *m, uint64_t now)
{
	if (!h->detach.table.used ||
	    detach_lookup(&h->detach.table, &m->view, now) != DETACH_DONE)
		return false;
	log_debug("queue %u: packet %u: queued before its connection was detached, accepted",
		  m->queue, m->id);
	worker_count_queue(h->stats, STATS_Q_NOT_OURS);
	return true;
}

/* The call of packet m for helper in, with the worker's backends. */
static void worker_help_call_init(struct worker_help *h, struct pkt_call *c,
				  struct worker_expect_pkt *wp, const struct qmsg *m,
				  const struct instance *in, uint64_t now)
{
	worker_expect_pkt_init(wp, &h->kreq, h->stats);
	*c = (struct pkt_call){ .backend = wp, .expect_fn = worker_expect,
				.expect_ctl_fn = worker_expect_ctl };
	c->pkt = m->view;
	c->inst = in;
	c->truncated = m->truncated;
	c->gso = m->gso;
	c->in_ifindex = m->in_ifindex;
	c->out_ifindex = m->out_ifindex;
	c->link_fn = worker_link_fn;
	c->link_backend = &h->link;
	worker_link_now(&h->link, now);
	c->keep = &h->keep;
	c->stats = h->stats;
}

/*
 * A sandbox that could not answer leaves nothing of the call to do
 * (what it had asked for is forgotten: its edits, the expectation held
 * for the verdict) and the packet gets the helper's sandbox_verdict,
 * unhelped.
 */
static int worker_help_lost(struct pkt_call *c, struct worker_expect_pkt *wp)
{
	pkt_call_forget(c);
	wp->has_exp = wp->exp_pinned = wp->exp_unanswered = false;
	wp->n_later = 0;
	return c->inst->sandbox.drop ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
}

/* The plugin's answer counted, its verdict into the batch, then what
 * follows the verdict. */
static void worker_help_verdict(struct worker_help *h, const struct qmsg *m,
				struct pkt_call *c, struct worker_expect_pkt *wp,
				int verdict, uint64_t now)
{
	const struct instance *in = c->inst;
	size_t sent_len;

	worker_count(h->stats, in, STATS_H_PAYLOAD);
	worker_count(h->stats, in, verdict == CTH_VERDICT_DROP ? STATS_H_DROPS : STATS_H_ACCEPTS);
	if (c->n_refused)
		stats_add(&h->stats->h[in->slot][STATS_H_EXPECT_REFUSED], c->n_refused);
	if (c->mark_masked)
		worker_count(h->stats, in, STATS_H_MARK_MASKED);
	/* one that must wait is polled for (worker.c) */
	if (c->detach)
		worker_detach_decide(&h->detach, wp, c, now);
	sent_len = worker_verdict_add(&h->verdict, m->queue, m->id, verdict, c,
				      wp->has_exp ? &wp->exp : NULL);
	worker_expect_sent(wp, c);
	worker_expect_later(wp, c, verdict);
	/* the next segment holds the rest of what the plugin kept */
	if (c->kept_next && in->match.n && prefilter_kept(&h->prefilter, &m->view, now))
		worker_count_queue(h->stats, STATS_Q_MATCH_EVICTED);
	if (seqsync_needed(&c->pkt, sent_len))
		worker_help_seqsync(h, c);
	worker_kreq_end(&h->kreq);
	pkt_call_release(c);
}

/* After a verdict that changed a TCP payload's length: a no-op update,
 * whose event lets conntrackd see the sequence adjustment (seqsync.c).
 * A connection gone meanwhile has nothing to sync. */
static void worker_help_seqsync(struct worker_help *h, const struct pkt_call *c)
{
	int rc = worker_kreq_ct_update(&h->kreq, &c->pkt.tuple[CTH_DIR_ORIGINAL],
				       c->pkt.zone, NULL);

	if (rc == 0)
		worker_count(h->stats, c->inst, STATS_H_SEQADJ_SYNCED);
	else if (rc != -ENOENT)
		log_warn("%s: cannot announce a sequence adjustment (a backup firewall "
			 "would not learn it): %s", c->inst->name, strerror(-rc));
}

/*
 * A message cut to its receive slot (never expected: rxvec.h, the slot
 * size in worker.c) lost the end of its packet: that packet is answered
 * ACCEPT, unread, if its id made it, and counted as a parse error.
 */
static void worker_help_cut(struct worker_help *h, struct nlmsghdr *nlh, size_t len)
{
	struct qmsg m;

	if (len < sizeof(*nlh)) {
		log_err("queue %u: a datagram was cut (receive slot too small)", h->queue);
		return;
	}
	nlh->nlmsg_len = (uint32_t)len;
	if (!worker_help_is_packet(nlh) || qmsg_read(nlh, &m) == QMSG_NO_ID) {
		log_err("queue %u: a message was cut to %zu bytes (receive slot too small)",
			h->queue, len);
		return;
	}
	worker_help_count(h, m.id);
	worker_count_queue(h->stats, STATS_Q_PARSE_ERRORS);
	log_err("queue %u: packet %u: message cut to %zu bytes (receive slot too small), accepted",
		m.queue, m.id, len);
	worker_help_accept(h, m.queue, m.id);
}

/* Every packet with an id: counted, and ids skipped since the last one. */
static void worker_help_count(struct worker_help *h, uint32_t id)
{
	worker_count_queue(h->stats, STATS_Q_PACKETS);
	stats_add(&h->stats->q[STATS_Q_UNDELIVERED], stats_id_gap(h->last_id, id));
	h->last_id = id;
}

/* An nfnetlink_queue packet message (the rest are answers to our own
 * requests). */
static bool worker_help_is_packet(const struct nlmsghdr *nlh)
{
	return (nlh->nlmsg_type & 0xff) == NFQNL_MSG_PACKET &&
	       (nlh->nlmsg_type >> 8) == NFNL_SUBSYS_QUEUE;
}

int worker_help_init(struct worker_help *h, uint16_t queue, unsigned int inflight_entries,
		     struct runtime *_Atomic *rtp, struct stats_block *stats,
		     struct nlreq *nfq, struct nlreq *ctnl)
{
	h->queue = queue;
	h->rtp = rtp;
	h->stats = stats;
	h->keep.stats = h->inflight.stats = stats;
	worker_detach_init(&h->detach, &h->kreq, stats, rtp);
	worker_link_init(&h->link, queue);
	if (inflight_init(&h->inflight, inflight_entries) < 0 ||
	    worker_kreq_init(&h->kreq, ctnl, &h->verdict, stats) < 0 ||
	    worker_verdict_init(&h->verdict, queue, nfq, stats) < 0)
		return -ENOMEM;
	return 0;
}

void worker_help_free(struct worker_help *h)
{
	keep_free(&h->keep);
	inflight_free(&h->inflight);
	worker_link_free(&h->link);
	worker_kreq_free(&h->kreq);
	worker_verdict_free(&h->verdict);
}
