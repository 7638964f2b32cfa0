/* SPDX-License-Identifier: MIT */
/*
 * The conntrack entries a kernel would keep for the capture's flows, as
 * far as a plugin sees them: tuples both ways (NAT applied by nat.c), direction,
 * ctinfo and status bits, and the TCP sequence adjustment a length
 * change leaves.  The rules follow Linux 6.1:
 *  - ctinfo (resolve_normal_ct): a reply-direction packet is
 *    ESTABLISHED_REPLY; an original-direction one is ESTABLISHED once a
 *    reply was seen, else RELATED for an expected connection, else NEW;
 *  - seq adjustment (nf_ct_seqadj_set/nf_ct_seq_adjust): one correction
 *    position per direction; a packet after it moves by the newer
 *    offset, one at or before it by the older; the other direction's
 *    acknowledgements move back by the same amounts; a change at or
 *    before the position is not counted again.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay.h"

void rp_tuple_invert(struct cth_tuple *out, const struct cth_tuple *t)
{
	*out = *t;
	out->src = t->dst;
	out->dst = t->src;
	out->sport = t->dport;
	out->dport = t->sport;
}

int rp_tuple_of(const struct cth_packet *p, int family, struct cth_tuple *t,
		uint8_t *tcp_flags)
{
	const uint8_t *l4 = p->data + p->l4_offset;

	memset(t, 0, sizeof(*t));
	t->family = (uint8_t)family;
	if (family == AF_INET) {
		const struct iphdr *ip = (const void *)p->data;

		t->proto = ip->protocol;
		memcpy(t->src.raw, &ip->saddr, 4);
		memcpy(t->dst.raw, &ip->daddr, 4);
	} else {
		const struct ip6_hdr *ip6 = (const void *)p->data;

		memcpy(t->src.raw, &ip6->ip6_src, 16);
		memcpy(t->dst.raw, &ip6->ip6_dst, 16);
		/* pkt_view_parse() walked the extension headers already:
		 * follow their next-header fields to the transport's */
		t->proto = ip6->ip6_nxt;
		for (size_t o = sizeof(*ip6); o + 2 <= p->l4_offset;
		     o += ((size_t)p->data[o + 1] + 1) * 8)
			t->proto = p->data[o];
	}
	t->sport = (uint16_t)(l4[0] << 8 | l4[1]);
	t->dport = (uint16_t)(l4[2] << 8 | l4[3]);
	*tcp_flags = t->proto == IPPROTO_TCP ? l4[13] : 0;
	return t->proto == IPPROTO_TCP || t->proto == IPPROTO_UDP ? 0 : -EINVAL;
}

struct rp_conn *rp_conn_find(struct rp_conns *ct, const struct cth_tuple *hdr,
			     enum cth_dir *dir)
{
	for (struct rp_conn *c = ct->head; c; c = c->next) {
		for (int d = 0; d < 2; d++) {
			if (pkt_tuple_eq(&c->seen[d], hdr)) {
				*dir = (enum cth_dir)d;
				return c;
			}
		}
		/* a reply taken where it carries the NATed tuple (the
		 * server side of the router) */
		if (c->nat && pkt_tuple_eq(&c->t[CTH_DIR_REPLY], hdr)) {
			*dir = CTH_DIR_REPLY;
			c->helper_view = true;
			return c;
		}
	}
	return NULL;
}

struct rp_conn *rp_conn_new(struct rp_conns *ct, const struct cth_tuple *hdr, bool nat)
{
	struct rp_conn *c = rp_conn_add(ct, hdr, hdr);

	/* SNAT: the reply comes back to the mapped source; DNAT: from the
	 * real destination (Linux's reply tuple, nf_nat_setup_info) */
	if (c && nat)
		rp_nat_rules(ct, c, RP_RULE_SNAT | RP_RULE_DNAT);
	return c;
}

struct rp_conn *rp_conn_add(struct rp_conns *ct, const struct cth_tuple *hdr,
			    const struct cth_tuple *arrival)
{
	struct rp_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->id = ++ct->n;
	c->t[CTH_DIR_ORIGINAL] = *arrival;
	rp_tuple_invert(&c->t[CTH_DIR_REPLY], arrival);
	c->seen[CTH_DIR_ORIGINAL] = *hdr;
	rp_tuple_invert(&c->seen[CTH_DIR_REPLY], hdr);
	c->next = ct->head;
	ct->head = c;
	return c;
}

bool rp_conn_taken(const struct rp_conns *ct, const struct rp_conn *self,
		   const struct cth_tuple *t)
{
	for (const struct rp_conn *c = ct->head; c; c = c->next)
		if (c != self && (pkt_tuple_eq(&c->t[CTH_DIR_ORIGINAL], t) ||
				  pkt_tuple_eq(&c->t[CTH_DIR_REPLY], t)))
			return true;
	return false;
}

bool rp_addr_eq(const union cth_addr *a, const union cth_addr *b)
{
	return memcmp(a->raw, b->raw, sizeof(a->raw)) == 0;
}

void rp_conn_forget(struct rp_conns *ct, struct rp_conn *c)
{
	for (struct rp_conn **pp = &ct->head; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			free(c);
			return;
		}
	}
}

void rp_conns_free(struct rp_conns *ct)
{
	while (ct->head) {
		struct rp_conn *c = ct->head;

		ct->head = c->next;
		free(c);
	}
}

enum cth_ctinfo rp_conn_ctinfo(const struct rp_conn *c, enum cth_dir dir)
{
	if (dir == CTH_DIR_REPLY)
		return CTH_CT_ESTABLISHED_REPLY;
	if (c->status & CTH_CT_SEEN_REPLY)
		return CTH_CT_ESTABLISHED;
	return c->status & CTH_CT_EXPECTED ? CTH_CT_RELATED : CTH_CT_NEW;
}

void rp_conn_seen(struct rp_conn *c, enum cth_dir dir, uint8_t tcp_flags)
{
	c->packets[dir]++;
	c->status |= CTH_CT_CONFIRMED;
	if (dir == CTH_DIR_REPLY)
		c->status |= CTH_CT_SEEN_REPLY;
	/* assured: TCP once the handshake's last ACK (or any later
	 * original-direction packet) follows a reply; UDP once both ways
	 * carried more than one packet in all */
	if ((c->status & CTH_CT_SEEN_REPLY) && dir == CTH_DIR_ORIGINAL &&
	    c->packets[CTH_DIR_ORIGINAL] > 1)
		c->status |= CTH_CT_ASSURED;
	if (c->t[0].proto == IPPROTO_TCP) {
		if (tcp_flags & TH_RST)
			c->closed = true;
		if (tcp_flags & TH_FIN)
			c->fin |= (uint8_t)(1u << dir);
		if (c->fin == 3)
			c->closed = true;
	}
}

/* after(a, b) of the kernel: a comes later than b, modulo 2^32 */
static bool rp_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) < 0;
}

void rp_seqadj_set(struct rp_conn *c, enum cth_dir dir, uint32_t seq, int32_t delta)
{
	struct rp_seqadj *a = &c->adj[dir];

	if (delta == 0)
		return;
	/* a change at or before the position (a retransmitted segment
	 * rewritten again) leaves the offsets as they are */
	if (!a->set || rp_seq_after(seq, a->pos)) {
		a->pos = seq;
		a->before = a->after;
		/* modulo 2^32 like the sequence numbers, never overflowing */
		a->after = (int32_t)((uint32_t)a->after + (uint32_t)delta);
	}
	a->set = true;
}

static int32_t rp_seqadj_off(const struct rp_seqadj *a, uint32_t seq)
{
	return rp_seq_after(seq, a->pos) ? a->after : a->before;
}

bool rp_seqadj_apply(const struct rp_conn *c, enum cth_dir dir, uint8_t *l4)
{
	/* acknowledgements: only in a helper's-view capture (see replay.h) */
	bool acks = c->helper_view;
	const struct rp_seqadj *mine = &c->adj[dir], *other = &c->adj[!dir];
	struct tcphdr *th = (struct tcphdr *)l4;
	bool changed = false;

	if (mine->set) {
		uint32_t seq = ntohl(th->seq);
		int32_t off = rp_seqadj_off(mine, seq);

		if (off) {
			th->seq = htonl(seq + (uint32_t)off);
			changed = true;
		}
	}
	if (acks && other->set && th->ack) {
		uint32_t ack = ntohl(th->ack_seq);
		/* the acknowledged byte is the other direction's, numbered as
		 * it left us (nf_ct_seq_adjust compares ack - offset_before) */
		int32_t off = rp_seq_after(ack - (uint32_t)other->before, other->pos)
			      ? other->after : other->before;

		if (off) {
			th->ack_seq = htonl(ack - (uint32_t)off);
			changed = true;
		}
	}
	return changed;
}
