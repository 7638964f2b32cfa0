/* SPDX-License-Identifier: MIT */
/*
 * The worker's expectations (worker_expect.h): held for the verdict's
 * NFQA_EXP, created, looked up, removed and listed over ctnetlink
 * (worker_kreq.h).
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <string.h>
#include <sys/socket.h>

#include "worker_expect.h"
#include "kernel/expect.h"
#include "base/log.h"
#include "worker_count.h"

/* What worker_expect_do() and worker_expect_defer() answer for an
 * expectation past the per-packet limit: not made, and not an error
 * (plugin.h cth_expect()). */
#define WORKER_EXPECT_OVER 1
/* What worker_expect_do() answers for one held for the verdict only: its
 * outcome is never known (sent, not created: worker_expect_sent()). */
#define WORKER_EXPECT_HELD 2
/* What worker_expect_unconfirmed() answers when the expectation is there. */
#define WORKER_EXPECT_MADE 3

static int worker_expect_do(struct pkt_call *c, const struct cth_expect *e,
			    unsigned int how);
static void worker_expect_over(struct worker_expect_pkt *wp, const struct pkt_call *c,
			       const struct cth_expect *e);
static void worker_expect_failed(struct worker_expect_pkt *wp, const struct pkt_call *c,
				 int rc, uint16_t dport);
static int worker_expect_slot_free(struct worker_expect_pkt *wp, struct pkt_call *c);
static int worker_expect_ctnl(struct worker_expect_pkt *wp, const struct pkt_call *c,
			      const struct cth_expect *e);
static void worker_expect_hold(struct worker_expect_pkt *wp, const struct cth_expect *e,
			       bool pinned, bool unanswered);
static int worker_expect_refresh(struct worker_expect_pkt *wp, struct pkt_call *c,
				 const struct cth_expect *e);
static int worker_expect_forget(struct worker_expect_pkt *wp, unsigned int op,
				const struct cth_expect *e);
static int worker_expect_flush(struct worker_expect_pkt *wp, const struct pkt_call *c,
			       int class);
static int worker_expect_lookup(struct worker_kreq *k, const struct pkt_call *c,
				const struct cth_expect *e);
static int worker_expect_send(struct worker_kreq *k, const struct pkt_call *c,
			      const struct cth_expect *e, uint8_t type,
			      uint16_t flags, mnl_cb_t cb, void *data);
static int worker_expect_defer(struct worker_expect_pkt *wp, const struct cth_expect *e,
			       enum worker_later how);
static int worker_expect_unconfirmed(struct worker_expect_pkt *wp, const struct pkt_call *c,
				     const struct cth_expect *e, enum worker_later how);
static bool worker_expect_unshadow(struct worker_expect_pkt *wp);
static void worker_expect_listed_add(struct worker_expect_pkt *wp, const struct pkt_call *c,
				     const struct cth_expect *e);
static bool worker_expect_same(const struct cth_expect *x, const struct cth_expect *e);
static unsigned int worker_expect_src_bits(const struct cth_expect *e);
static void worker_expect_later_del(struct worker_expect_pkt *wp, unsigned int i);
static void worker_expect_listed_del(struct expect_list *l, unsigned int i);
static int worker_expect_timeout(struct worker_kreq *k, const struct pkt_call *c,
				 const struct cth_expect *e);

void worker_expect_pkt_init(struct worker_expect_pkt *wp, struct worker_kreq *kreq,
			    struct stats_block *stats)
{
	wp->kreq = kreq;
	wp->stats = stats;
	wp->has_exp = wp->exp_pinned = false;
	wp->n_later = 0;
	wp->listed = false;
}

/* Counted by outcome: one deferred until after the verdict counts then
 * (worker_expect_later), one the verdict alone carries as sent
 * (worker_expect_sent), one made over ctnetlink by its ack. */
int worker_expect(struct pkt_call *c, const struct cth_expect *e,
		  unsigned int how)
{
	struct worker_expect_pkt *wp = c->backend;
	unsigned int later = wp->n_later;
	int rc = worker_expect_do(c, e, how);

	if (rc == WORKER_EXPECT_OVER) {
		worker_expect_over(wp, c, e);
		return 0;
	}
	if (rc == WORKER_EXPECT_HELD)
		return 0;     /* counted when the verdict carries it */
	if (rc < 0)
		worker_expect_failed(wp, c, rc, e->dport);
	else if (wp->n_later == later)
		worker_count(wp->stats, c->inst, STATS_H_EXPECT_CREATED);
	return rc;
}

int worker_expect_ctl(struct pkt_call *c, unsigned int op,
		      const struct cth_expect *e)
{
	struct worker_expect_pkt *wp = c->backend;
	int n, rc;

	if (op == CTH_EXPECT_OP_REFRESH)
		return worker_expect_refresh(wp, c, e);
	n = worker_expect_forget(wp, op, e);

	/* an unconfirmed master has nothing in the kernel yet */
	if (!(c->pkt.ct_status & CTH_CT_CONFIRMED))
		return n;
	if (op == CTH_EXPECT_OP_FLUSH) {
		rc = worker_expect_flush(wp, c, e ? (int)e->class : -1);
		return rc < 0 ? rc : n + rc;
	}
	rc = worker_expect_lookup(wp->kreq, c, e);
	if (rc != 1)
		return rc == -ENOENT || rc == 0 ? n : rc;
	rc = worker_expect_send(wp->kreq, c, e, IPCTNL_MSG_EXP_DELETE, 0, NULL, NULL);
	if (rc < 0)
		return rc == -ENOENT ? n : rc;
	return n + 1;
}

void worker_expect_sent(struct worker_expect_pkt *wp, const struct pkt_call *c)
{
	if (wp->has_exp && wp->exp_unanswered)
		worker_count(wp->stats, c->inst, STATS_H_EXPECT_SENT);
}

/* After the verdict: what waited for the master's confirmation. */
void worker_expect_later(struct worker_expect_pkt *wp, struct pkt_call *c, int verdict)
{
	if (!wp->n_later)
		return;
	if (verdict == CTH_VERDICT_DROP) {
		log_info("%s: %u expectation(s) not created: the packet was dropped",
			 c->inst->name, wp->n_later);
		/* a shadow's verdict copy was never created: nothing to count */
		for (unsigned int i = 0; i < wp->n_later; i++)
			if (wp->later_how[i] == WORKER_LATER_CREATE)
				worker_count(wp->stats, c->inst, STATS_H_EXPECT_FAILED);
		return;
	}
	c->pkt.ct_status |= CTH_CT_CONFIRMED;
	for (unsigned int i = 0; i < wp->n_later; i++) {
		enum worker_later how = wp->later_how[i];
		int rc = how == WORKER_LATER_TIMEOUT ? worker_expect_timeout(wp->kreq, c, &wp->later[i])
						     : worker_expect_ctnl(wp, c, &wp->later[i]);

		if (rc < 0)
			log_rl_info("%s: expectation to port %u after the verdict: %s",
				    c->inst->name, wp->later[i].dport, strerror(-rc));
		if (how == WORKER_LATER_TIMEOUT)
			continue;
		/* a shadow's success is the verdict's copy, counted created
		 * from its event (exprepair.c), or its stand-in */
		if (rc < 0)
			worker_expect_failed(wp, c, rc, wp->later[i].dport);
		else if (how == WORKER_LATER_CREATE)
			worker_count(wp->stats, c->inst, STATS_H_EXPECT_CREATED);
	}
}

int worker_expect_listed(struct worker_expect_pkt *wp, const struct pkt_call *c)
{
	if (wp->listed)
		return wp->list_rc;
	wp->list_rc = worker_kreq_master_list(wp->kreq, &c->pkt.tuple[CTH_DIR_ORIGINAL],
					      c->pkt.zone, -1);
	wp->listed = true;
	if (wp->list_rc != -ENOSPC)     /* a capped one never left */
		worker_count(wp->stats, c->inst, STATS_H_EXPECT_DUMPS);
	if (wp->kreq->list->truncated)
		log_rl_warn("%s: more than %u expectations for one connection: only the first %u are flushed",
			    c->inst->name, EXPECT_LIST_MAX, EXPECT_LIST_MAX);
	return wp->list_rc;
}

/*
 * Which path an expectation takes.  The verdict carries one (NFQA_EXP,
 * its result is never known); everything else, and whatever needs an
 * answer, goes over ctnetlink.  Measured on Linux 6.1 (docs/
 * architecture.md): ctnetlink EXP_NEW ignores the helper name, only
 * NFQA_EXP gives the expected connection a helper, so a
 * CTH_EXPECT_HELPER expectation always takes the verdict's place; with
 * CTH_EXPECT_SYNC it is also created over ctnetlink first for the answer,
 * and the verdict's copy replaces it (same tuple, class and master:
 * nf_ct_expect_related() replaces rather than refuses).
 */
static int worker_expect_do(struct pkt_call *c, const struct cth_expect *e,
			    unsigned int how)
{
	struct worker_expect_pkt *wp = c->backend;
	bool helped = e->flags & CTH_EXPECT_HELPER;
	int rc;

	/* only created expectations count: a NAT port search may try many */
	if (c->n_expect >= WORKER_EXPECT_MAX)
		return WORKER_EXPECT_OVER;
	if (helped && (rc = worker_expect_slot_free(wp, c)) < 0)
		return rc;
	/*
	 * A master not confirmed yet: the verdict's copy alone is not
	 * enough, nor is creating it after the verdict alone.  Datagrams of
	 * a new UDP flow queued behind its first each carry a conntrack of
	 * their own, and at their verdicts 6.1 __nf_conntrack_confirm()
	 * resolves the clash by moving the packet to the entry the first
	 * confirmed (nf_ct_resolve_clash()) and freeing its own, with every
	 * expectation the verdict attached to it (measured: a SIP trunk's
	 * INVITEs, tests/sip trunk, NEW then DESTROY at once).  Created only
	 * after the verdict, an answer can come first: the verdict sends the
	 * packet on inside sendto(), and a NetBIOS name server next to the
	 * firewall answered before the worker's EXP_NEW (tests/more
	 * netbios-outside, measured once in a CI run).  So the first rides
	 * on the verdict and a shadow is made by tuple after it: EEXIST
	 * when the verdict's copy lives, the stand-in when it was freed.
	 */
	if (!helped && !(how & CTH_EXPECT_SYNC) && !wp->has_exp &&
	    !(c->pkt.ct_status & CTH_CT_CONFIRMED)) {
		rc = worker_expect_unconfirmed(wp, c, e, WORKER_LATER_SHADOW);
		if (rc < 0 || rc == WORKER_EXPECT_OVER)
			return rc;
		c->n_expect++;
		if (rc == WORKER_EXPECT_MADE)
			return 0;
		worker_expect_hold(wp, e, false, true);
		return WORKER_EXPECT_HELD;
	}
	if ((how & CTH_EXPECT_SYNC) ||
	    (!helped && (wp->has_exp || !(c->pkt.ct_status & CTH_CT_CONFIRMED)))) {
		rc = worker_expect_ctnl(wp, c, e);
		if (rc < 0 || rc == WORKER_EXPECT_OVER)
			return rc;
		if (!helped) {
			c->n_expect++;
			return 0;
		}
	}
	worker_expect_hold(wp, e, helped, !(how & CTH_EXPECT_SYNC));
	c->n_expect++;
	return how & CTH_EXPECT_SYNC ? 0 : WORKER_EXPECT_HELD;
}

/* An expectation past the packet's limit: what fits was made, this one
 * is counted, and the packet goes on (dropping it would drop its
 * retransmission the same way: a SIP trunk would stall). */
static void worker_expect_over(struct worker_expect_pkt *wp, const struct pkt_call *c,
			       const struct cth_expect *e)
{
	worker_count(wp->stats, c->inst, STATS_H_EXPECT_OVER_LIMIT);
	log_rl_info("%s: more than %u expectations for one packet: the one to port %u "
		    "and any further are not made (expectations_over_limit)",
		    c->inst->name, WORKER_EXPECT_MAX, e->dport);
}

/*
 * An expectation the kernel (or the host) refused, counted by why.  Linux
 * 6.1 __nf_ct_expect_check() answers EMFILE both when the expectation
 * table holds nf_conntrack_expect_max and when the master holds its
 * class's max_expected and evict_oldest_expect() freed none of that
 * class (it evicts the oldest of the class otherwise, silently), and
 * EBUSY when another master's expectation clashes: the first two are
 * the operator's to size, hence a line of their own, rate-limited (a
 * full table fails every session at once).
 */
static void worker_expect_failed(struct worker_expect_pkt *wp, const struct pkt_call *c,
				 int rc, uint16_t dport)
{
	int quiet;

	worker_count(wp->stats, c->inst, STATS_H_EXPECT_FAILED);
	if (rc == -EBUSY || rc == -EEXIST) {
		worker_count(wp->stats, c->inst, STATS_H_EXPECT_CLASH);
		return;
	}
	if (rc != -EMFILE)
		return;
	worker_count(wp->stats, c->inst, STATS_H_EXPECT_TABLE_FULL);
	quiet = log_rl_warn("%s: expectation to port %u refused: the kernel's expectation table "
			    "is full (nf_conntrack_expect_max) or the class's max is reached "
			    "(expectations_table_full)", c->inst->name, dport);
	stats_add(&wp->stats->q[STATS_Q_LOG_SUPPRESSED], (uint64_t)quiet);
}

/* Make room on the verdict for an expectation that must ride on it. */
static int worker_expect_slot_free(struct worker_expect_pkt *wp, struct pkt_call *c)
{
	unsigned int later;
	int rc;

	if (!wp->has_exp)
		return 0;
	if (wp->exp_pinned)
		return -EOPNOTSUPP;   /* the verdict carries one */
	/* its shadow becomes the creation, counted after the verdict */
	if (worker_expect_unshadow(wp)) {
		wp->has_exp = false;
		return 0;
	}
	/* the held one was promised without an answer: create it now,
	 * counted by this answer (or after the verdict, when deferred) */
	later = wp->n_later;
	rc = worker_expect_ctnl(wp, c, &wp->exp);
	if (rc < 0) {
		log_rl_info("%s: expectation to port %u (moved off the verdict) failed",
			    c->inst->name, wp->exp.dport);
		worker_expect_failed(wp, c, rc, wp->exp.dport);
	} else if (rc == WORKER_EXPECT_OVER) {
		worker_count(wp->stats, c->inst, STATS_H_EXPECT_OVER_LIMIT);
	} else if (wp->n_later == later) {
		worker_count(wp->stats, c->inst, STATS_H_EXPECT_CREATED);
	}
	wp->has_exp = false;
	return 0;
}

/*
 * IPCTNL_MSG_EXP_NEW with an ack: the kernel's answer now.  A master that
 * is not confirmed yet (the first packet of a UDP flow, queued) cannot
 * get one over ctnetlink (ENOENT, Linux 6.1): the tuple is checked now
 * (taken by another master: -EBUSY, so a NAT port search works) and the
 * expectation created right after the verdict, which confirms the master
 * before sendto() returns.
 */
static int worker_expect_ctnl(struct worker_expect_pkt *wp, const struct pkt_call *c,
			      const struct cth_expect *e)
{
	int rc;

	if (!(c->pkt.ct_status & CTH_CT_CONFIRMED)) {
		rc = worker_expect_unconfirmed(wp, c, e, WORKER_LATER_CREATE);
		return rc == WORKER_EXPECT_MADE ? 0 : rc;
	}
	/* NLM_F_EXCL: a NAT port search must not mistake another master's
	 * expectation for a free port.  EEXIST says the tuple is taken, not
	 * by whom: when this very master and class hold it (a retransmitted
	 * PORT/227 asking again), the kernel's own helpers would simply
	 * replace it (nf_ct_expect_related), so it counts as created and the
	 * plugin announces the same port again. */
	rc = worker_expect_send(wp->kreq, c, e, IPCTNL_MSG_EXP_NEW,
				NLM_F_CREATE | NLM_F_EXCL, NULL, NULL);
	if (rc == 0)
		worker_expect_listed_add(wp, c, e);
	if (rc == -EEXIST && worker_expect_lookup(wp->kreq, c, e) == 1)
		rc = 0;
	log_debug("%s: expectation to port %u over ctnetlink: %s", c->inst->name,
		  e->dport, rc ? strerror(-rc) : "created");
	return rc;
}

/* Keep an expectation for the verdict's NFQA_EXP (the plugin's fn string
 * may not outlive the call). */
static void worker_expect_hold(struct worker_expect_pkt *wp, const struct cth_expect *e,
			       bool pinned, bool unanswered)
{
	wp->exp = *e;
	if (e->fn)
		wp->exp.fn = strcpy(wp->fn, e->fn);
	wp->has_exp = true;
	wp->exp_pinned = pinned;
	wp->exp_unanswered = unanswered;
}

/*
 * REFRESH: the expectation must be this connection's; its copy rides on
 * the verdict without CTH_EXPECT_INACTIVE (Linux replaces an expectation
 * of the same master, tuple and class, and an inactive one cannot be
 * activated over ctnetlink), and a timeout is set after the verdict.
 */
static int worker_expect_refresh(struct worker_expect_pkt *wp, struct pkt_call *c,
				 const struct cth_expect *e)
{
	struct cth_expect copy = *e;
	int rc;

	if (!(c->pkt.ct_status & CTH_CT_CONFIRMED))
		return -ENOENT;      /* nothing of it can be in the kernel yet */
	rc = worker_expect_lookup(wp->kreq, c, e);
	if (rc != 1)
		return rc < 0 && rc != -ENOENT ? rc : -ENOENT;
	if ((rc = worker_expect_slot_free(wp, c)) < 0)
		return rc;
	copy.flags &= ~(unsigned int)CTH_EXPECT_INACTIVE;
	/* past the limit the copy still rides, with the class's timeout */
	if (e->timeout && worker_expect_defer(wp, &copy, WORKER_LATER_TIMEOUT) == WORKER_EXPECT_OVER)
		worker_expect_over(wp, c, e);
	worker_expect_hold(wp, &copy, true, false);
	return 0;
}

/* Expectations asked for in this call but not created yet. */
static int worker_expect_forget(struct worker_expect_pkt *wp, unsigned int op,
				const struct cth_expect *e)
{
	int n = 0;

	if (wp->has_exp && (op == CTH_EXPECT_OP_FLUSH ? !e || wp->exp.class == e->class
						       : worker_expect_same(&wp->exp, e))) {
		wp->has_exp = wp->exp_pinned = false;
		n++;
	}
	for (unsigned int i = 0; i < wp->n_later; ) {
		if (op == CTH_EXPECT_OP_FLUSH ? !e || wp->later[i].class == e->class
					      : worker_expect_same(&wp->later[i], e)) {
			worker_expect_later_del(wp, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

/*
 * Linux 6.1 has no "delete by master": the master's expectations come
 * from the packet's one dump (CTA_EXPECT_MASTER, worker_expect_listed()),
 * then each of the class is deleted by tuple and id (an expectation
 * created meanwhile with the same tuple is not touched) and leaves the
 * listing: a second flush of the class in the same packet asks nothing.
 */
static int worker_expect_flush(struct worker_expect_pkt *wp, const struct pkt_call *c,
			       int class)
{
	struct expect_list *l = wp->kreq->list;
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc, n = 0;

	if ((rc = worker_expect_listed(wp, c)) < 0)
		return rc;
	for (unsigned int i = 0; i < l->n; ) {
		if (class >= 0 && l->e[i].class != (uint32_t)class) {
			i++;
			continue;
		}
		nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_DELETE,
				    0, c->pkt.tuple[0].family);
		expect_list_put_del(nlh, l, i, c->pkt.zone);
		rc = worker_kreq_talk(wp->kreq, nlh, NULL, NULL);
		if (rc == -ENOSPC)
			return rc;        /* the packet's bound: the rest stays */
		if (rc == 0)
			n++;
		else if (rc != -ENOENT)   /* gone meanwhile: fine */
			log_info("%s: cannot remove an expectation: %s", c->inst->name,
				 strerror(-rc));
		worker_expect_listed_del(l, i);
	}
	return n;
}

/* Is there an expectation with e's tuple, and is it this connection's
 * (same master and class)?  1 ours, 0 another's, -ENOENT none. */
static int worker_expect_lookup(struct worker_kreq *k, const struct pkt_call *c,
				const struct cth_expect *e)
{
	struct expect_owner own = {
		.master = &c->pkt.tuple[CTH_DIR_ORIGINAL],
		.class = e->class,
	};
	int rc = worker_expect_send(k, c, e, IPCTNL_MSG_EXP_GET, 0,
				    expect_master_cb, &own);

	return rc < 0 ? rc : own.ours;
}

/* One ctnetlink expectation request about e (its tuple, master, zone,
 * class...), answered through cb when given: 0 or a negative errno. */
static int worker_expect_send(struct worker_kreq *k, const struct pkt_call *c,
			      const struct cth_expect *e, uint8_t type,
			      uint16_t flags, mnl_cb_t cb, void *data)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, type, flags, e->family);
	if ((rc = expect_put(nlh, e, &c->pkt, c->inst->name, true)) < 0)
		return rc;
	return worker_kreq_talk(k, nlh, cb, data);
}

/* An expectation kept for after the verdict: to create (the master is
 * not confirmed yet), or whose timeout to set.  0, or WORKER_EXPECT_OVER
 * when the packet already keeps WORKER_EXPECT_MAX. */
static int worker_expect_defer(struct worker_expect_pkt *wp, const struct cth_expect *e,
			       enum worker_later how)
{
	struct cth_expect *l = &wp->later[wp->n_later];

	if (wp->n_later == WORKER_EXPECT_MAX)
		return WORKER_EXPECT_OVER;
	wp->later_how[wp->n_later] = (uint8_t)how;
	*l = *e;
	if (e->fn)
		l->fn = strcpy(wp->later_fn[wp->n_later], e->fn);
	wp->n_later++;
	return 0;
}

/* An expectation of a master not confirmed yet, for worker_expect_ctnl()
 * (a creation) and worker_expect_do() (the verdict copy's shadow): its
 * tuple checked now (another master's: -EBUSY, so a NAT port search goes
 * on), kept for after the verdict as how says.  0, WORKER_EXPECT_OVER, or
 * WORKER_EXPECT_MADE when the master's confirmed entry holds it already
 * (a retransmission; a verdict's copy, of another master entry, would be
 * refused as a clash: 6.1 __nf_ct_expect_check()). */
static int worker_expect_unconfirmed(struct worker_expect_pkt *wp, const struct pkt_call *c,
				     const struct cth_expect *e, enum worker_later how)
{
	int rc = worker_expect_lookup(wp->kreq, c, e);

	if (rc == 1)
		return WORKER_EXPECT_MADE;
	if (rc != -ENOENT)
		return rc < 0 ? rc : -EBUSY;
	return worker_expect_defer(wp, e, how);
}

/* The verdict's copy is taken off it: its shadow is the creation now. */
static bool worker_expect_unshadow(struct worker_expect_pkt *wp)
{
	for (unsigned int i = 0; i < wp->n_later; i++) {
		if (wp->later_how[i] == WORKER_LATER_SHADOW) {
			wp->later_how[i] = WORKER_LATER_CREATE;
			return true;
		}
	}
	return false;
}

/* An expectation this packet created over ctnetlink joins the listing
 * (a flush later in the packet removes it, as a fresh dump would).  Its
 * tuple is taken from the request as the dump would give it; with no id
 * it is deleted by tuple. */
static void worker_expect_listed_add(struct worker_expect_pkt *wp, const struct pkt_call *c,
				     const struct cth_expect *e)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	struct expect_list *l = wp->kreq->list;

	if (!wp->listed || wp->list_rc < 0)
		return;
	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_NEW, 0, e->family);
	if (expect_put(nlh, e, &c->pkt, c->inst->name, true) == 0)
		expect_list_cb(nlh, l);
}

/* Does e (the plugin's selector) name the tuple of x? */
static bool worker_expect_same(const struct cth_expect *x, const struct cth_expect *e)
{
	size_t n = e->family == AF_INET6 ? 16 : 4;

	return x->family == e->family && x->proto == e->proto &&
	       x->dport == e->dport && x->sport == e->sport &&
	       memcmp(&x->dst, &e->dst, n) == 0 &&
	       ((x->flags & e->flags & CTH_EXPECT_ANY_SRC) ||
		(!((x->flags | e->flags) & CTH_EXPECT_ANY_SRC) &&
		 memcmp(&x->src, &e->src, n) == 0 &&
		 worker_expect_src_bits(x) == worker_expect_src_bits(e)));
}

/* How much of the source the kernel matches: a network's prefix (the
 * host cleared the bits past it, host/call.c), else all of it. */
static unsigned int worker_expect_src_bits(const struct cth_expect *e)
{
	if (e->flags & CTH_EXPECT_SRC_PREFIX)
		return e->src_prefix;
	return e->family == AF_INET6 ? 128u : 32u;
}

/* Drop deferred entry i: the last one moves into its slot, unless it is
 * the last (copying a slot onto itself overlaps: strcpy and memcpy may
 * not). */
static void worker_expect_later_del(struct worker_expect_pkt *wp, unsigned int i)
{
	unsigned int last = --wp->n_later;

	if (i == last)
		return;
	wp->later_how[i] = wp->later_how[last];
	wp->later[i] = wp->later[last];
	if (wp->later[i].fn) {
		memcpy(wp->later_fn[i], wp->later_fn[last], sizeof(wp->later_fn[i]));
		wp->later[i].fn = wp->later_fn[i];
	}
}

/* Drop entry i of the listing (the last one takes its place). */
static void worker_expect_listed_del(struct expect_list *l, unsigned int i)
{
	if (i != --l->n)
		memcpy(&l->e[i], &l->e[l->n], sizeof(l->e[i]));
}

/* EXP_NEW without NLM_F_EXCL on an existing expectation restarts its
 * timer with CTA_EXPECT_TIMEOUT (Linux 6.1 ctnetlink_change_expect). */
static int worker_expect_timeout(struct worker_kreq *k, const struct pkt_call *c,
				 const struct cth_expect *e)
{
	return worker_expect_send(k, c, e, IPCTNL_MSG_EXP_NEW, 0, NULL, NULL);
}
