/* SPDX-License-Identifier: MIT */
/*
 * Detaches that wait for the connection's expectations (detach.h), on the
 * worker's ctnetlink socket.
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <string.h>

#include "kernel/expect.h"
#include "base/log.h"
#include "wdetach.h"

/* Update an existing connection (no NLM_F_CREATE): set its helper, or
 * with helper NULL change nothing (expect_ct_put_conn()). */
int worker_ct_update(struct worker *w, const struct cth_tuple *orig,
		     uint16_t zone, const char *helper)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_NEW, 0,
			    (uint8_t)orig->family);
	if ((rc = expect_ct_put_conn(nlh, orig, zone, helper)) < 0)
		return rc;
	return worker_ctnl_talk(w, nlh, NULL, NULL);
}

/* Detach e's connection over ctnetlink (it is not queued right now):
 * an empty helper name is the detach (Linux 6.1
 * ctnetlink_change_helper()). */
static int worker_detach_send(struct worker *w, const struct detach_entry *e)
{
	return worker_ct_update(w, &e->orig, e->zone, "");
}

void worker_detach_poll(struct worker *w, uint64_t now)
{
	unsigned int n = w->detach.waiting < DETACH_POLL_BATCH ?
			 w->detach.waiting : DETACH_POLL_BATCH;

	while (n--) {
		struct detach_entry *e = detach_next_waiting(&w->detach);
		int rc;

		if (!e)
			break;
		rc = worker_master_list(w, &e->orig, e->zone, -1);
		worker_count_name(w, e->helper, STATS_H_EXPECT_DUMPS);
		if (rc == -ENOENT) {
			detach_settle(&w->detach, e, false, now);
			continue;
		}
		if (rc < 0 || w->xlist->n)
			continue;     /* still expecting, or ask again later */
		rc = worker_detach_send(w, e);
		if (rc < 0 && rc != -ENOENT)
			log_warn("%s: cannot detach a connection whose expectations are done: %s",
				 e->helper, strerror(-rc));
		else
			log_debug("%s: connection detached, its expectations are done",
				  e->helper);
		if (rc == 0)
			worker_count_name(w, e->helper, STATS_H_DETACH_DONE);
		detach_settle(&w->detach, e, rc == 0, now);
	}
}

/*
 * The plugin asked to detach (cth_detach()): on this verdict when the
 * connection expects nothing, else once its expectations are used or
 * expired (detach.h says why).  An answer-less error counts as expecting.
 */
bool worker_detach_decide(struct worker *w, struct worker_pkt *wp,
			  struct pkt_call *c, uint64_t now)
{
	bool pending = wp->has_exp || wp->n_later || c->n_expect;

	if (detach_lookup(&w->detach, &c->pkt, now) == DETACH_WAIT) {
		c->detach = false;
		return false;
	}
	if (!pending && (c->pkt.ct_status & CTH_CT_CONFIRMED)) {
		int rc = worker_expect_listed(wp, c);

		pending = rc < 0 || w->xlist->n;
	}
	if (!pending) {
		detach_add(&w->detach, &c->pkt, c->inst->name, DETACH_DONE, now);
		worker_count(w, c->inst, STATS_H_DETACH_DONE);
		return false;
	}
	c->detach = false;
	if (detach_add(&w->detach, &c->pkt, c->inst->name, DETACH_WAIT, now) < 0)
		return false;   /* counted and logged (rate-limited) by detach_add() */
	worker_count(w, c->inst, STATS_H_DETACH_DEFERRED);
	log_debug("%s: detach waits for the connection's expectations", c->inst->name);
	return true;
}
