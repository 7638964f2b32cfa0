/* SPDX-License-Identifier: MIT */
/*
 * The kernel's expectation table, emulated for one capture: the backend
 * of cth_expect() and cth_expect_ctl() (pkt_call::expect_fn), and the
 * match of a new connection's first packet.  The rules follow Linux 6.1
 * (nf_conntrack_expect.c) and the daemon's worker
 * (server/worker/worker_expect.c):
 *  - two expectations clash when their tuples overlap (a zero source
 *    port or CTH_EXPECT_ANY_SRC matches any); the same master, class and
 *    tuple replaces the old one (a retransmitted command asking again),
 *    anything else is -EBUSY;
 *  - a class at its policy's max evicts its oldest expectation;
 *  - an expectation lives its class's timeout, counted in capture time,
 *    matches once unless CTH_EXPECT_PERMANENT, never while INACTIVE;
 *  - one packet creates at most PKT_EXPECT_PER_CALL, and its verdict
 *    carries one helped expectation or one refresh (the daemon's limit).
 * Without CTH_EXPECT_SYNC the plugin is told 0 whatever happens, as the
 * verdict's expectation is never answered; the report says what did.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "host/link.h"

/* How many leading bits of an expectation's source the kernel matches:
 * none (any source), a network's prefix, or all of it. */
static unsigned int rp_src_bits(const struct cth_expect *e)
{
	if (e->flags & CTH_EXPECT_ANY_SRC)
		return 0;
	if (e->flags & CTH_EXPECT_SRC_PREFIX)
		return e->src_prefix;
	return link_addr_bits(e->family);
}

/* Do two expectations' tuples overlap (expect_clash, masks included:
 * the sources agree on the bits both masks hold)? */
static bool rp_expect_overlap(const struct cth_expect *a, const struct cth_expect *b)
{
	unsigned int ba = rp_src_bits(a), bb = rp_src_bits(b);

	return a->family == b->family && a->proto == b->proto &&
	       a->dport == b->dport && rp_addr_eq(&a->dst, &b->dst) &&
	       link_addr_in(a->family, &a->src, &b->src, ba < bb ? ba : bb) &&
	       (!a->sport || !b->sport || a->sport == b->sport);
}

/* The tuple REMOVE and REFRESH name. */
static bool rp_expect_same_tuple(const struct cth_expect *a, const struct cth_expect *b)
{
	return a->family == b->family && a->proto == b->proto &&
	       a->dport == b->dport && a->sport == b->sport &&
	       rp_addr_eq(&a->dst, &b->dst) && rp_src_bits(a) == rp_src_bits(b) &&
	       ((a->flags & CTH_EXPECT_ANY_SRC) || rp_addr_eq(&a->src, &b->src));
}

static void rp_expect_unlink(struct rp_expects *x, struct rp_exp *e)
{
	for (struct rp_exp **pp = &x->head; *pp; pp = &(*pp)->next) {
		if (*pp == e) {
			*pp = e->next;
			free(e);
			return;
		}
	}
}

unsigned int rp_expect_count(const struct rp_expects *x, unsigned int master)
{
	unsigned int n = 0;

	for (const struct rp_exp *e = x->head; e; e = e->next)
		n += e->master == master;
	return n;
}

/* The oldest of a master's class, when the class is full. */
static struct rp_exp *rp_expect_full(struct rp_expects *x, unsigned int master,
				     unsigned int class)
{
	struct rp_exp *oldest = NULL;
	unsigned int n = 0;

	for (struct rp_exp *e = x->head; e; e = e->next) {
		if (e->master != master || e->e.class != class)
			continue;
		n++;
		if (!oldest || e->created_ms < oldest->created_ms ||
		    (e->created_ms == oldest->created_ms && e->id < oldest->id))
			oldest = e;
	}
	return n >= x->inst->classes[class].max ? oldest : NULL;
}

static void rp_expect_arm(struct rp_expects *x, struct rp_exp *e, uint32_t seconds)
{
	if (!seconds)
		seconds = x->inst->classes[e->e.class].timeout;
	e->expires_ms = x->now_ms + (uint64_t)seconds * 1000u;
}

int rp_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	struct rp_expects *x = c->backend;
	bool helped = e->flags & CTH_EXPECT_HELPER;
	struct rp_exp *n, *old;
	size_t off = 0;

	x->last[0] = 0;
	x->last_id = 0;
	/* the daemon's limit: not made, not an error (plugin.h cth_expect) */
	if (c->n_expect >= PKT_EXPECT_PER_CALL) {
		snprintf(x->last, sizeof(x->last), "not created: over the limit of %u per packet",
			 PKT_EXPECT_PER_CALL);
		return 0;
	}
	if (helped && x->helped_in_call)
		return -EOPNOTSUPP;
	for (old = x->head; old; old = old->next)
		if (rp_expect_overlap(&old->e, e))
			break;
	if (old && (old->master != x->conn->id || old->e.class != e->class ||
		    !rp_expect_same_tuple(&old->e, e))) {
		if (how & CTH_EXPECT_SYNC)
			return -EBUSY;
		snprintf(x->last, sizeof(x->last),
			 "not created: clashes with expectation %u (the verdict's fails)",
			 old->id);
		return 0;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	if (old) {
		off += (size_t)snprintf(x->last, sizeof(x->last), ", replaces %u", old->id);
		rp_expect_unlink(x, old);
		x->removed++;
	} else if ((old = rp_expect_full(x, x->conn->id, e->class))) {
		snprintf(x->last + off, sizeof(x->last) - off,
			 ", evicts %u (class max %u)", old->id,
			 x->inst->classes[e->class].max);
		rp_expect_unlink(x, old);
		x->evicted++;
	}
	n->id = ++x->next_id;
	n->master = x->conn->id;
	n->master_t[0] = x->conn->t[0];
	n->master_t[1] = x->conn->t[1];
	n->e = *e;
	if (e->fn) {
		snprintf(n->fn, sizeof(n->fn), "%s", e->fn);
		n->e.fn = n->fn;
	}
	n->created_ms = x->now_ms;
	rp_expect_arm(x, n, 0);
	n->next = x->head;
	x->head = n;
	x->created++;
	x->helped_in_call |= helped;
	c->n_expect++;
	x->last_id = n->id;
	return 0;
}

static int rp_expect_refresh(struct pkt_call *c, struct rp_expects *x,
			     const struct cth_expect *e)
{
	if (!(c->pkt.ct_status & CTH_CT_CONFIRMED))
		return -ENOENT;
	for (struct rp_exp *o = x->head; o; o = o->next) {
		if (o->master != x->conn->id || !rp_expect_same_tuple(&o->e, e))
			continue;
		if (x->helped_in_call)
			return -EOPNOTSUPP;     /* the verdict carries one */
		x->helped_in_call = 1;
		o->e.flags &= ~(unsigned int)CTH_EXPECT_INACTIVE;
		rp_expect_arm(x, o, e->timeout);
		snprintf(x->last, sizeof(x->last), "%u", o->id);
		return 0;
	}
	return -ENOENT;
}

int rp_expect_ctl_fn(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	struct rp_expects *x = c->backend;
	struct rp_exp *o, *next;
	int n = 0;

	x->last[0] = 0;
	if (op == CTH_EXPECT_OP_REFRESH)
		return rp_expect_refresh(c, x, e);
	for (o = x->head; o; o = next) {
		next = o->next;
		if (o->master != x->conn->id)
			continue;
		if (op == CTH_EXPECT_OP_FLUSH ? e && o->e.class != e->class
					      : !rp_expect_same_tuple(&o->e, e))
			continue;
		size_t len = strlen(x->last);

		snprintf(x->last + len, sizeof(x->last) - len, "%s%u", n ? "," : "", o->id);
		rp_expect_unlink(x, o);
		x->removed++;
		n++;
	}
	return n;
}

void rp_expect_age(struct rp_expects *x, unsigned long frame, uint64_t now_ms)
{
	struct rp_exp *e, *next;

	for (e = x->head; e; e = next) {
		next = e->next;
		if (e->expires_ms > now_ms)
			continue;
		x->rep->frame = frame;
		rp_report_line(x->rep, false, "expectation %u of conn %u expired", e->id,
			       e->master);
		rp_expect_unlink(x, e);
		x->expired++;
	}
}

/*
 * The kernel's match (nf_ct_expect_find_get: the tuple under the mask) of
 * a new connection's first packet as it reaches the firewall: its own
 * tuple only, never where its NAT would send it.
 */
static bool rp_expect_matches(const struct rp_exp *x, const struct cth_tuple *t)
{
	const struct cth_expect *e = &x->e;

	return !(e->flags & CTH_EXPECT_INACTIVE) && e->family == t->family &&
	       e->proto == t->proto && (!e->sport || e->sport == t->sport) &&
	       e->dport == t->dport && rp_addr_eq(&e->dst, &t->dst) &&
	       link_addr_in(e->family, &e->src, &t->src, rp_src_bits(e));
}

struct rp_exp *rp_expect_match(struct rp_expects *x, const struct cth_tuple *t,
			       struct rp_exp *out)
{
	for (struct rp_exp *e = x->head; e; e = e->next) {
		if (!rp_expect_matches(e, t))
			continue;
		*out = *e;
		out->next = NULL;
		if (out->e.fn)
			out->e.fn = out->fn;
		x->matched++;
		if (!(e->e.flags & CTH_EXPECT_PERMANENT))
			rp_expect_unlink(x, e);
		return out;
	}
	return NULL;
}

uint16_t rp_expect_told_port(const struct rp_expects *x, const struct rp_conn *m,
			     const union cth_addr *dst, uint16_t port)
{
	for (const struct rp_exp *e = x->head; e; e = e->next)
		if (e->master == m->id && rp_nat_follows(&e->e) && e->e.nat_port == port &&
		    e->e.family == m->t[0].family &&
		    rp_addr_eq(rp_nat_follow_dst(e->master_t, &e->e), dst))
			return e->e.dport;
	return port;
}

unsigned int rp_expect_forget_master(struct rp_expects *x, unsigned int master)
{
	struct rp_exp *e, *next;
	unsigned int n = 0;

	for (e = x->head; e; e = next) {
		next = e->next;
		if (e->master != master)
			continue;
		rp_expect_unlink(x, e);
		x->removed++;
		n++;
	}
	return n;
}

void rp_expects_free(struct rp_expects *x)
{
	while (x->head) {
		struct rp_exp *e = x->head;

		x->head = e->next;
		free(e);
	}
}
