/* SPDX-License-Identifier: MIT */
/*
 * The two kinds of capture the replay takes (cthelper-replay(1), "What a
 * capture must show"), and what each says about a connection's first
 * packet under the emulated NAT:
 *  (a) a session without NAT, replayed with --snat/--dnat: every packet
 *      is as the client side sees the session (itself under its own
 *      address, the server under the address it dialled).  A packet the
 *      server side sends reaches the firewall in the server side's terms
 *      (the master's reply tuple: the client under its mapped address and
 *      port, the server under its own), and the captured packet is where
 *      its receiver on the client side really is.
 *  (b) a helper's view of a NATed session: every packet as it reached
 *      the firewall, each side in its own terms.  Where the receiver
 *      really is comes from the master's mapping run backwards; a port
 *      the master's tuples do not name, moved by the plugin (its
 *      expectation's port differs from its NAT port), is known only from
 *      the receiver's first answer (related.c).
 * A first packet is read by its addresses against every NATed master: one
 * that names the client's own address, or the server under the address
 * the client dialled, where the master's mapping changes them, is of
 * kind (a).  Where the addresses cannot tell (a loopback session: client
 * and server share one address), both readings are tried, kind (a)'s
 * first.
 */
#include <string.h>

#include "replay.h"

static bool rp_view_client_terms(const struct rp_conn *m, const struct cth_tuple *h);
static bool rp_view_server_terms(const struct rp_conn *m, const struct cth_tuple *h);
static bool rp_view_to_server(const struct rp_expects *x, const struct rp_conn *m,
			      const struct cth_tuple *h, struct cth_tuple *out);
static bool rp_view_told(const struct rp_expects *x, const struct rp_conn *m,
			 const struct cth_tuple *h, struct cth_tuple *out);
static size_t rp_view_add(struct rp_arrival *out, size_t n, const struct cth_tuple *t,
			  enum rp_view view, bool first);

size_t rp_view_arrivals(const struct rp_conns *ct, const struct rp_expects *x,
			const struct cth_tuple *hdr, struct rp_arrival *out)
{
	bool client_terms = false, server_terms = false, client_sends = false, exact;
	struct cth_tuple t;
	size_t n = 0;

	for (const struct rp_conn *m = ct->head; m; m = m->next) {
		if (!m->nat || m->t[0].family != hdr->family)
			continue;
		server_terms |= rp_view_server_terms(m, hdr);
		client_sends |= rp_addr_eq(&hdr->src, &m->t[0].src);
		if (rp_view_told(x, m, hdr, &t))
			n = rp_view_add(out, n, &t, RP_VIEW_CLIENT, false);
		if (!rp_view_client_terms(m, hdr))
			continue;
		client_terms = true;
		/* a master's own port named: the likeliest reading */
		exact = rp_view_to_server(x, m, hdr, &t);
		if (exact || !pkt_tuple_eq(&t, hdr))
			n = rp_view_add(out, n, &t, RP_VIEW_SERVER, exact);
	}
	/* certainly a server's packet in the client's terms: not as captured */
	if (n && client_terms && !server_terms && !client_sends)
		return n;
	return rp_view_add(out, n, hdr, RP_VIEW_CAPTURED, false);
}

void rp_view_endpoint(const struct rp_exp *e, const struct rp_arrival *a,
		      const struct cth_tuple *hdr, struct rp_endpoint *want)
{
	const struct cth_tuple *o = &e->master_t[CTH_DIR_ORIGINAL];
	const struct cth_tuple *r = &e->master_t[CTH_DIR_REPLY];
	bool from_client, exact;

	memset(want, 0, sizeof(*want));
	if (a->view == RP_VIEW_SERVER) {
		/* kind (a): the capture is the client side's own view */
		want->dst = hdr->dst;
		want->dport = hdr->dport;
		want->src = hdr->src;
		return;
	}
	from_client = rp_addr_eq(&hdr->src, &o->src) ||
		      (!rp_addr_eq(&hdr->dst, &o->src) && !rp_addr_eq(&hdr->dst, &r->dst));
	if (from_client) {
		/* to the server side, in its own terms */
		bool to_server = rp_addr_eq(&hdr->dst, &o->dst);

		exact = to_server && hdr->dport == o->dport && hdr->proto == o->proto;
		want->dst = to_server ? r->src : hdr->dst;
		want->dport = exact ? r->sport : hdr->dport;
		want->src = rp_addr_eq(&hdr->src, &o->src) ? r->dst : hdr->src;
	} else {
		/* to the client side, in its own terms: the mapping backwards */
		bool to_client = rp_addr_eq(&hdr->dst, &r->dst);

		exact = to_client && hdr->dport == r->dport && hdr->proto == r->proto;
		want->dst = to_client ? o->src : hdr->dst;
		want->dport = exact ? o->sport : hdr->dport;
		want->src = rp_addr_eq(&hdr->src, &r->src) ? o->dst : hdr->src;
	}
	/* kind (a)'s told port was read from the expectation: the captured
	 * one is the truth; a port the plugin moved in a helper's view is
	 * known from the receiver's answer only */
	if (a->view == RP_VIEW_CLIENT)
		want->dport = hdr->dport;
	else if (!exact && rp_nat_follows(&e->e) && e->e.nat_port != e->e.dport)
		want->dport = 0;
}

/* Does h name, as the client side does, an address the master's
 * mapping changes (the client's own, the server as dialled)? */
static bool rp_view_client_terms(const struct rp_conn *m, const struct cth_tuple *h)
{
	const struct cth_tuple *o = &m->t[CTH_DIR_ORIGINAL], *r = &m->t[CTH_DIR_REPLY];

	return (rp_addr_eq(&h->src, &o->dst) && !rp_addr_eq(&o->dst, &r->src)) ||
	       (rp_addr_eq(&h->dst, &o->src) && !rp_addr_eq(&o->src, &r->dst));
}

/* Does h name, as the server side does, an address the mapping made? */
static bool rp_view_server_terms(const struct rp_conn *m, const struct cth_tuple *h)
{
	const struct cth_tuple *o = &m->t[CTH_DIR_ORIGINAL], *r = &m->t[CTH_DIR_REPLY];

	return (rp_addr_eq(&h->src, &r->src) && !rp_addr_eq(&r->src, &o->dst)) ||
	       (rp_addr_eq(&h->dst, &r->dst) && !rp_addr_eq(&r->dst, &o->src));
}

/*
 * A server side's packet h, in the client side's terms, as it reaches
 * the firewall: from the server's own address (and port, the master's),
 * to the client's mapped address and port; another port of the client is
 * the one the plugin told the server for it (its NAT expectation's).
 * True when h names the master's own client port.
 */
static bool rp_view_to_server(const struct rp_expects *x, const struct rp_conn *m,
			      const struct cth_tuple *h, struct cth_tuple *out)
{
	const struct cth_tuple *o = &m->t[CTH_DIR_ORIGINAL], *r = &m->t[CTH_DIR_REPLY];
	bool exact = false;

	*out = *h;
	if (rp_addr_eq(&h->src, &o->dst)) {
		out->src = r->src;
		if (h->sport == o->dport && h->proto == o->proto)
			out->sport = r->sport;
	}
	if (rp_addr_eq(&h->dst, &o->src)) {
		out->dst = r->dst;
		exact = h->dport == o->sport && h->proto == o->proto;
		out->dport = exact ? r->dport : rp_expect_told_port(x, m, &h->dst, h->dport);
	}
	return exact;
}

/*
 * A client's packet h to the server, in a capture without NAT, to a port
 * the plugin moved: the client dials the port it was told (the NAT
 * expectation's for the server's real one).  False when nothing moved.
 */
static bool rp_view_told(const struct rp_expects *x, const struct rp_conn *m,
			 const struct cth_tuple *h, struct cth_tuple *out)
{
	const struct cth_tuple *o = &m->t[CTH_DIR_ORIGINAL], *r = &m->t[CTH_DIR_REPLY];

	if (!rp_addr_eq(&h->src, &o->src) || !rp_addr_eq(&h->dst, &o->dst) ||
	    (h->dport == o->dport && h->proto == o->proto))
		return false;
	*out = *h;
	out->dport = rp_expect_told_port(x, m, &r->src, h->dport);
	return out->dport != h->dport;
}

/* t added to the readings once (first: in front), n + 1 or n; the last
 * place is kept for the reading as captured. */
static size_t rp_view_add(struct rp_arrival *out, size_t n, const struct cth_tuple *t,
			  enum rp_view view, bool first)
{
	for (size_t i = 0; i < n; i++)
		if (pkt_tuple_eq(&out[i].t, t))
			return n;
	if (n + (view == RP_VIEW_CAPTURED ? 0 : 1) >= RP_ARRIVALS_MAX)
		return n;
	if (first) {
		memmove(out + 1, out, n * sizeof(*out));
		out[0] = (struct rp_arrival){ .t = *t, .view = view };
	} else {
		out[n] = (struct rp_arrival){ .t = *t, .view = view };
	}
	return n + 1;
}
