/* SPDX-License-Identifier: MIT */
/*
 * The NAT a kernel would apply to the capture's connections: the
 * firewall's own rules (--snat, --dnat) on a new connection, and
 * nf_nat_follow_master on an expected one whose expectation names it.
 * The rules follow Linux 6.1 (nf_nat_core.c, nf_nat_helper.c):
 *  - a mapping that changes nothing sets no NAT bit (nf_nat_setup_info
 *    marks a connection only when its tuple changed);
 *  - a source mapping keeps the source port while the resulting tuple
 *    is no other connection's (nf_nat_used_tuple), else takes another
 *    port of the same class (below 512, 600..1023, 1024 and up);
 *  - nf_nat_follow_master maps the expected connection's source to
 *    master->tuplehash[!exp->dir].tuple.dst and its destination to that
 *    tuple's source with port exp->saved_proto; exp->saved_addr (the
 *    plugin's nat_addr) is not read.
 * Where the kernel picks a port at random (a moved source port), the
 * replay takes the next free one upward, so that runs repeat.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "replay.h"

static void rp_nat_source(struct rp_conns *ct, struct rp_conn *c, const union cth_addr *a,
			  uint16_t first, uint16_t lo, uint16_t hi);
static void rp_nat_port_class(uint16_t port, uint16_t *lo, uint16_t *hi);
static void rp_nat_mark(struct rp_conn *c);

int rp_nat_parse(const char *s, struct rp_nat *n)
{
	char host[64];
	const char *port = NULL;
	size_t len;

	memset(n, 0, sizeof(*n));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		len = (size_t)(end - s - 1);
		if (len >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, len);
		host[len] = 0;
		port = end[1] ? end + 2 : NULL;
	} else {
		const char *colon = strchr(s, ':');

		/* more than one colon without brackets: an IPv6 address alone */
		if (colon && strchr(colon + 1, ':'))
			colon = NULL;
		len = colon ? (size_t)(colon - s) : strlen(s);
		if (len >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, len);
		host[len] = 0;
		port = colon ? colon + 1 : NULL;
	}
	if (inet_pton(AF_INET, host, n->addr.raw) == 1)
		n->family = AF_INET;
	else if (inet_pton(AF_INET6, host, n->addr.raw) == 1)
		n->family = AF_INET6;
	else
		return -EINVAL;
	if (port) {
		char *end;
		unsigned long v = strtoul(port, &end, 10);

		if (*port < '0' || *port > '9' || *end || v < 1 || v > 65535)
			return -EINVAL;
		n->port = (uint16_t)v;
	}
	return 0;
}

void rp_nat_rules(struct rp_conns *ct, struct rp_conn *c, unsigned int rules)
{
	const struct cth_tuple *o = &c->t[CTH_DIR_ORIGINAL];
	struct cth_tuple *r = &c->t[CTH_DIR_REPLY];
	uint16_t lo, hi;

	/* PREROUTING's DNAT comes before POSTROUTING's SNAT, whose port
	 * must then be free against the whole tuple */
	if ((rules & RP_RULE_DNAT) && ct->dnat.family == o->family) {
		memcpy(r->src.raw, ct->dnat.addr.raw, sizeof(r->src.raw));
		if (ct->dnat.port)
			r->sport = ct->dnat.port;
	}
	if ((rules & RP_RULE_SNAT) && ct->snat.family == o->family) {
		/* ADDR:PORT stands for the range PORT-65535 starting at PORT
		 * (see cthelper-replay(1)); ADDR alone keeps the port */
		if (ct->snat.port)
			rp_nat_source(ct, c, &ct->snat.addr, ct->snat.port, ct->snat.port, 65535);
		else {
			rp_nat_port_class(o->sport, &lo, &hi);
			rp_nat_source(ct, c, &ct->snat.addr, o->sport, lo, hi);
		}
	}
	rp_nat_mark(c);
}

bool rp_nat_inside(const struct rp_conns *ct, int family, const union cth_addr *a)
{
	if (ct->snat.family != family)
		return false;
	for (const struct rp_conn *c = ct->head; c; c = c->next)
		if (!(c->status & CTH_CT_EXPECTED) && (c->nat & CTH_NAT_SRC) &&
		    rp_addr_eq(&c->t[CTH_DIR_ORIGINAL].src, a) &&
		    rp_addr_eq(&c->t[CTH_DIR_REPLY].dst, &ct->snat.addr))
			return true;
	return false;
}

bool rp_nat_follows(const struct cth_expect *e)
{
	return (e->flags & CTH_EXPECT_NAT) && e->fn &&
	       strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0;
}

const union cth_addr *rp_nat_follow_dst(const struct cth_tuple mt[2],
					const struct cth_expect *e)
{
	return &mt[e->nat_dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL].src;
}

void rp_nat_follow_master(struct rp_conns *ct, struct rp_conn *c, const struct rp_exp *e)
{
	/* the master's tuple in the direction other than the expectation's */
	const struct cth_tuple *m = &e->master_t[e->e.nat_dir == CTH_DIR_ORIGINAL
						 ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL];
	struct cth_tuple *r = &c->t[CTH_DIR_REPLY];
	uint16_t lo, hi;

	/* destination: to the master's source there, the saved port */
	memcpy(r->src.raw, m->src.raw, sizeof(r->src.raw));
	r->sport = e->e.nat_port;
	/* source: from where the master sends there, the port kept if free */
	rp_nat_port_class(c->t[CTH_DIR_ORIGINAL].sport, &lo, &hi);
	rp_nat_source(ct, c, &m->dst, c->t[CTH_DIR_ORIGINAL].sport, lo, hi);
	rp_nat_mark(c);
}

/* The source of c mapped to a, its port the first of first, first + 1,
 * ... (wrapping in lo..hi) that leaves c's reply tuple no other
 * connection's.  All taken: first, a clash whose insertion the kernel
 * would refuse. */
static void rp_nat_source(struct rp_conns *ct, struct rp_conn *c, const union cth_addr *a,
			  uint16_t first, uint16_t lo, uint16_t hi)
{
	struct cth_tuple *r = &c->t[CTH_DIR_REPLY];
	uint32_t span = (uint32_t)hi - lo + 1u, p = first;

	memcpy(r->dst.raw, a->raw, sizeof(r->dst.raw));
	for (uint32_t i = 0; i < span; i++) {
		r->dport = (uint16_t)p;
		if (!rp_conn_taken(ct, c, r))
			return;
		p = p >= hi ? lo : p + 1;
	}
	r->dport = first;
}

/* The ports a moved source port stays among. */
static void rp_nat_port_class(uint16_t port, uint16_t *lo, uint16_t *hi)
{
	if (port >= 1024) {
		*lo = 1024;
		*hi = 65535;
	} else if (port >= 512) {
		*lo = 600;
		*hi = 1023;
	} else {
		*lo = 1;
		*hi = 511;
	}
}

/* The NAT bits for what the mappings changed of the reply tuple. */
static void rp_nat_mark(struct rp_conn *c)
{
	struct cth_tuple plain;

	rp_tuple_invert(&plain, &c->t[CTH_DIR_ORIGINAL]);
	if (!rp_addr_eq(&plain.dst, &c->t[CTH_DIR_REPLY].dst) ||
	    plain.dport != c->t[CTH_DIR_REPLY].dport)
		c->nat |= CTH_NAT_SRC;
	if (!rp_addr_eq(&plain.src, &c->t[CTH_DIR_REPLY].src) ||
	    plain.sport != c->t[CTH_DIR_REPLY].sport)
		c->nat |= CTH_NAT_DST;
}
