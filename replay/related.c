/* SPDX-License-Identifier: MIT */
/*
 * A connection's first packet, as the kernel takes it: an expectation
 * matched by its own tuple as the packet reaches the firewall (view.c),
 * the expected connection mapped by nf_nat_follow_master when the
 * expectation names it and by the firewall's own rules otherwise
 * (nat.c); else a helped connection when it goes to a helped port; else
 * one a firewall that admits only helped traffic blocks.  Every one of
 * them gets a line, and an expected one the account of where the kernel
 * delivers it against where the capture says its receiver is: the test a
 * NAT helper must pass.
 */
#include <stdio.h>
#include <string.h>

#include "replay.h"

static struct rp_conn *rp_related_expected(struct rp_engine *r, const struct cth_tuple *hdr,
					   const struct rp_arrival *a, const struct rp_exp *e);
static struct rp_conn *rp_related_other(struct rp_engine *r, const struct cth_tuple *hdr,
					const struct rp_arrival *a);
static void rp_related_map(struct rp_engine *r, struct rp_conn *c, const struct rp_exp *e);
static void rp_related_say(struct rp_engine *r, const struct rp_conn *c,
			   const struct rp_exp *e);

struct rp_conn *rp_related_new(struct rp_engine *r, const struct cth_tuple *hdr)
{
	struct rp_arrival a[RP_ARRIVALS_MAX];
	size_t n = rp_view_arrivals(&r->ct, &r->x, hdr, a);
	struct rp_exp e;

	for (size_t i = 0; i < n; i++)
		if (rp_expect_match(&r->x, &a[i].t, &e))
			return rp_related_expected(r, hdr, &a[i], &e);
	/* when the addresses could not tell, the capture's own tuple */
	return rp_related_other(r, hdr, a[n - 1].view == RP_VIEW_CAPTURED ? &a[n - 1] : &a[0]);
}

/*
 * In a helper's-view capture the receiver of an expected connection
 * answers from where it really is.  When the kernel delivered the
 * connection elsewhere (a wrong NAT port, or no NAT), that answer is no
 * tuple of it: it is taken as the connection's answer, and the
 * connection as delivered wrong.
 */
struct rp_conn *rp_related_answer(struct rp_engine *r, const struct cth_tuple *hdr)
{
	char got[64], sent[64];
	struct rp_conn *c;
	const struct cth_tuple *rt = NULL;

	for (c = r->ct.head; c; c = c->next) {
		rt = &c->t[CTH_DIR_REPLY];
		/* only where the emulated kernel changed the capture's tuple,
		 * or sent the connection somewhere else */
		if (!(c->status & CTH_CT_EXPECTED) || c->packets[CTH_DIR_REPLY] ||
		    (!c->wrong && pkt_tuple_eq(rt, &c->seen[CTH_DIR_REPLY])))
			continue;
		/* from where the capture's receiver is, back to the sender as
		 * the kernel sent it or as the receiver knows it */
		if (rt->family == hdr->family && rt->proto == hdr->proto &&
		    rt->dport == hdr->dport && rp_addr_eq(&c->want.dst, &hdr->src) &&
		    (!c->want.dport || c->want.dport == hdr->sport) &&
		    (rp_addr_eq(&rt->dst, &hdr->dst) || rp_addr_eq(&c->want.src, &hdr->dst)))
			break;
	}
	if (!c)
		return NULL;
	/* the rest of its answers are found by this tuple */
	c->seen[CTH_DIR_REPLY] = *hdr;
	if (c->wrong || pkt_tuple_eq(rt, hdr))
		return c;
	c->wrong = true;
	r->wrong++;
	rp_report_line(&r->rep, false, "conn %u answered from %s, NAT delivered it to %s: WRONG",
		       c->id, rp_fmt_addr_port(got, sizeof(got), hdr->family, &hdr->src, hdr->sport),
		       rp_fmt_addr_port(sent, sizeof(sent), rt->family, &rt->src, rt->sport));
	return c;
}

static struct rp_conn *rp_related_expected(struct rp_engine *r, const struct cth_tuple *hdr,
					   const struct rp_arrival *a, const struct rp_exp *e)
{
	struct rp_conn *c = rp_conn_add(&r->ct, hdr, &a->t);
	struct cth_tuple got;

	if (!c)
		return NULL;
	c->status |= CTH_CT_EXPECTED;
	c->master = e->master;
	c->master_tuple = e->master_t[CTH_DIR_ORIGINAL];
	c->expectation = e->id;
	c->helped = e->e.flags & CTH_EXPECT_HELPER;
	rp_related_map(r, c, e);
	rp_view_endpoint(e, a, hdr, &c->want);
	rp_tuple_invert(&got, &c->t[CTH_DIR_REPLY]);
	c->wrong = !rp_addr_eq(&got.dst, &c->want.dst) ||
		   (c->want.dport && got.dport != c->want.dport) ||
		   !rp_addr_eq(&got.src, &c->want.src);
	r->related++;
	r->wrong += c->wrong;
	rp_related_say(r, c, e);
	return c;
}

/*
 * Where the kernel sends an expected connection: nf_nat_follow_master
 * when the expectation names it; with NAT and another function, that
 * function's business (not emulated); without NAT, what the firewall's
 * own rules do to any new connection: the --snat rule to one from behind
 * it, the --dnat rule to one for a helped port.
 */
static void rp_related_map(struct rp_engine *r, struct rp_conn *c, const struct rp_exp *e)
{
	const struct cth_tuple *o = &c->t[CTH_DIR_ORIGINAL];
	unsigned int rules = 0;

	if (rp_nat_follows(&e->e)) {
		rp_nat_follow_master(&r->ct, c, e);
		return;
	}
	if (e->e.flags & CTH_EXPECT_NAT)
		return;
	if (rp_nat_inside(&r->ct, o->family, &o->src))
		rules |= RP_RULE_SNAT;
	if (rp_engine_helps(r, o))
		rules |= RP_RULE_DNAT;
	rp_nat_rules(&r->ct, c, rules);
}

/* "conn N related TUPLE to conn M by expectation E (class C)[ helped]:
 * delivered to ADDR:PORT[, what is wrong: WRONG]" */
static void rp_related_say(struct rp_engine *r, const struct rp_conn *c,
			   const struct rp_exp *e)
{
	const struct instance *in = r->inst;
	const char *cls = e->e.class < in->n_classes ? in->classes[e->e.class].name : "?";
	char t[160], to[64], want[64], from[64], tail[256] = "";
	struct cth_tuple got;

	rp_tuple_invert(&got, &c->t[CTH_DIR_REPLY]);
	rp_fmt_tuple(t, sizeof(t), &c->t[CTH_DIR_ORIGINAL]);
	rp_fmt_addr_port(to, sizeof(to), got.family, &got.dst, got.dport);
	if (c->want.dport)
		rp_fmt_addr_port(want, sizeof(want), got.family, &c->want.dst, c->want.dport);
	else
		rp_fmt_addr(want, sizeof(want), got.family, &c->want.dst);
	if (c->wrong && (!rp_addr_eq(&got.dst, &c->want.dst) ||
			 (c->want.dport && got.dport != c->want.dport)))
		snprintf(tail, sizeof(tail), ", the capture's endpoint is %s: WRONG", want);
	else if (c->wrong)
		snprintf(tail, sizeof(tail), " from %s, the capture's endpoint knows its peer as %s: WRONG",
			 rp_fmt_addr(from, sizeof(from), got.family, &got.src),
			 rp_fmt_addr(want, sizeof(want), got.family, &c->want.src));
	else if (!c->want.dport)
		snprintf(tail, sizeof(tail), " (the plugin moved the port: checked at the answer)");
	else if ((e->e.flags & CTH_EXPECT_NAT) && !rp_nat_follows(&e->e))
		snprintf(tail, sizeof(tail), " (fn %s is not emulated: not mapped)",
			 e->e.fn ? e->e.fn : "none");
	rp_report_line(&r->rep, false, "conn %u related %s to conn %u by expectation %u (class %s)%s: "
		       "delivered to %s%s", c->id, t, c->master, c->expectation, cls,
		       c->helped ? " helped" : "", to, tail);
}

/* A helped new connection, or one nothing admits. */
static struct rp_conn *rp_related_other(struct rp_engine *r, const struct cth_tuple *hdr,
					const struct rp_arrival *a)
{
	bool helped = rp_engine_helps(r, &a->t);
	struct rp_conn *c = rp_conn_add(&r->ct, hdr, &a->t);
	const struct cth_tuple *rt;
	char t[160], s[64], d[64], n[160] = "";

	if (!c)
		return NULL;
	rp_fmt_tuple(t, sizeof(t), &c->t[CTH_DIR_ORIGINAL]);
	if (!helped) {
		r->blocked++;
		rp_report_line(&r->rep, false, "conn %u new %s: not related: a firewall that admits "
			       "only helped traffic blocks it", c->id, t);
		return c;
	}
	rp_nat_rules(&r->ct, c, RP_RULE_SNAT | RP_RULE_DNAT);
	c->helped = true;
	r->helped++;
	rt = &c->t[CTH_DIR_REPLY];
	/* the reply without its protocol: said once already */
	if (c->nat)
		snprintf(n, sizeof(n), " nat reply %s > %s",
			 rp_fmt_addr_port(s, sizeof(s), rt->family, &rt->src, rt->sport),
			 rp_fmt_addr_port(d, sizeof(d), rt->family, &rt->dst, rt->dport));
	rp_report_line(&r->rep, false, "conn %u new %s helped%s", c->id, t, n);
	return c;
}
