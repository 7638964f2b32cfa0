/* SPDX-License-Identifier: MIT */
/*
 * Detaches that wait for the connection's expectations (detach.h), on the
 * worker's ctnetlink socket.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "worker_detach.h"
#include "base/log.h"
#include "worker_count.h"

static int worker_detach_send(struct worker_detach *d, const struct detach_entry *e);

void worker_detach_init(struct worker_detach *d, struct worker_kreq *kreq,
			struct stats_block *stats, struct runtime *_Atomic *rtp)
{
	d->kreq = kreq;
	d->stats = d->table.stats = stats;
	d->rtp = rtp;
}

/*
 * The plugin asked to detach (cth_detach()): on this verdict when the
 * connection expects nothing, else once its expectations are used or
 * expired (detach.h says why).  An answer-less error counts as expecting.
 */
bool worker_detach_decide(struct worker_detach *d, struct worker_expect_pkt *wp,
			  struct pkt_call *c, uint64_t now)
{
	bool pending = wp->has_exp || wp->n_later || c->n_expect;

	if (detach_lookup(&d->table, &c->pkt, now) == DETACH_WAIT) {
		c->detach = false;
		return false;
	}
	if (!pending && (c->pkt.ct_status & CTH_CT_CONFIRMED)) {
		int rc = worker_expect_listed(wp, c);

		pending = rc < 0 || d->kreq->list->n;
	}
	if (!pending) {
		detach_add(&d->table, &c->pkt, c->inst->name, DETACH_DONE, now);
		worker_count(d->stats, c->inst, STATS_H_DETACH_DONE);
		return false;
	}
	c->detach = false;
	if (detach_add(&d->table, &c->pkt, c->inst->name, DETACH_WAIT, now) < 0)
		return false;   /* counted and logged (rate-limited) by detach_add() */
	worker_count(d->stats, c->inst, STATS_H_DETACH_DEFERRED);
	log_debug("%s: detach waits for the connection's expectations", c->inst->name);
	return true;
}

void worker_detach_poll(struct worker_detach *d, uint64_t now)
{
	const struct runtime *rt = atomic_load(d->rtp);
	unsigned int n = d->table.waiting < DETACH_POLL_BATCH ?
			 d->table.waiting : DETACH_POLL_BATCH;

	while (n--) {
		struct detach_entry *e = detach_next_waiting(&d->table);
		int rc;

		if (!e)
			break;
		rc = worker_kreq_master_list(d->kreq, &e->orig, e->zone, -1);
		worker_count_name(d->stats, rt, e->helper, STATS_H_EXPECT_DUMPS);
		if (rc == -ENOENT) {
			detach_settle(&d->table, e, false, now);
			continue;
		}
		if (rc < 0 || d->kreq->list->n)
			continue;     /* still expecting, or ask again later */
		rc = worker_detach_send(d, e);
		if (rc < 0 && rc != -ENOENT)
			log_warn("%s: cannot detach a connection whose expectations are done: %s",
				 e->helper, strerror(-rc));
		else
			log_debug("%s: connection detached, its expectations are done",
				  e->helper);
		if (rc == 0)
			worker_count_name(d->stats, rt, e->helper, STATS_H_DETACH_DONE);
		detach_settle(&d->table, e, rc == 0, now);
	}
}

/* Detach e's connection over ctnetlink (it is not queued right now):
 * an empty helper name is the detach (Linux 6.1
 * ctnetlink_change_helper()). */
static int worker_detach_send(struct worker_detach *d, const struct detach_entry *e)
{
	return worker_kreq_ct_update(d->kreq, &e->orig, e->zone, "");
}
