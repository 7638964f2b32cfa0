/* SPDX-License-Identifier: MIT */
/*
 * Replies: the port or universal address the server answers becomes an
 * expectation from the client (any source port) to the server, on the
 * protocol the call asked for.  Under NAT the expected connection follows
 * the master, and the answer is rewritten to what the client can reach:
 * the port (a same-length word) when the port search moved it, and a
 * universal address with the address the client dialled (a string whose
 * length may change: its XDR length, padding and the TCP record mark are
 * fixed with it; the host fixes the IP/UDP lengths).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "rpc.h"

static bool rpc_addr_unspecified(int family, const union cth_addr *a)
{
	static const union cth_addr zero;

	return cth_addr_equal(family, a, &zero);
}

/*
 * A universal address may name only the server itself: its own address
 * (as it sees itself, or as the client dialled it) or the unspecified
 * address, which rpcbind means as "this host".  Any other would open a
 * path to a third host on a server's word.
 */
static bool rpc_uaddr_is_server(struct rpc_ctx *s, const union cth_addr *a)
{
	const struct cth_packet *pkt = s->pkt;

	return cth_addr_equal(s->family, a, &pkt->tuple[CTH_DIR_REPLY].src) ||
	       cth_addr_equal(s->family, a, &pkt->tuple[CTH_DIR_ORIGINAL].dst) ||
	       rpc_addr_unspecified(s->family, a);
}

static int rpc_edit(struct rpc_ctx *s, size_t off, size_t len, const void *repl,
		    size_t repl_len)
{
	int ret = cth_mangle(s->ctx, off, len, repl, repl_len);

	if (ret < 0)
		cth_log(s->ctx, CTH_LOG_INFO, "cannot rewrite the reply (%d)", ret);
	return ret;
}

/* GETPORT's answer is one word: a same-length rewrite. */
static int rpc_nat_port(struct rpc_ctx *s, const struct rpc_msgref *m,
			const struct rpc_reply *r, uint16_t port)
{
	uint8_t word[4];

	rpc_put32(word, port);
	return rpc_edit(s, m->base + r->res_off, 4, word, sizeof(word));
}

/*
 * A universal address rewritten: the string's length word, the string
 * with its zero padding, and for TCP the record mark, whose fragment
 * grows or shrinks by the padded difference.
 */
static int rpc_nat_uaddr(struct rpc_ctx *s, const struct rpc_msgref *m,
			 const struct rpc_uaddr *u, uint16_t port)
{
	const struct cth_tuple *orig = &s->pkt->tuple[CTH_DIR_ORIGINAL];
	char text[RPC_UADDR_MAX + 4];
	uint8_t word[4];
	size_t n, padded;
	int len, ret;

	len = rpc_uaddr_format(s->family, &orig->dst, port, text, sizeof(text));
	if (len < 0)
		return len;
	n = (size_t)len;
	if (n == u->str_len && memcmp(text, m->msg + u->str_off, n) == 0)
		return 0;
	padded = (n + 3) & ~(size_t)3;
	memset(text + n, 0, padded - n);
	if (n != u->str_len) {
		rpc_put32(word, (uint32_t)n);
		ret = rpc_edit(s, m->base + u->len_off, 4, word, sizeof(word));
		if (ret < 0)
			return ret;
	}
	ret = rpc_edit(s, m->base + u->str_off, u->padded, text, padded);
	if (ret < 0 || !m->marked || padded == u->padded)
		return ret;
	/* one fragment, at most RPC_MSG_MAX bytes: no overflow */
	rpc_put32(word, (m->mark & RPC_MARK_LAST) |
			((m->mark & ~RPC_MARK_LAST) + (uint32_t)padded - (uint32_t)u->padded));
	return rpc_edit(s, m->mark_off, 4, word, sizeof(word));
}

/*
 * Under NAT: the expected connection follows the master (cth_expect_to()
 * mapped it: the client's source as the master's, its destination to the
 * server's real address on the port it answered), and the client is told
 * a port free on the address it dialled, searched upwards from the
 * server's.
 */
static int rpc_nat(struct rpc_ctx *s, const struct rpc_msgref *m, const struct rpc_reply *r,
		   const struct rpc_uaddr *u, struct cth_expect *exp, uint16_t port)
{
	int ret;

	if (!m->rewritable) {
		cth_log(s->ctx, CTH_LOG_INFO, "reply split across fragments or segments under NAT: "
			"nothing expected");
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect_free_port(s->ctx, exp, port, RPC_NAT_PORT_TRIES);
	if (ret < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "no free port from %u (%d)", (unsigned int)port, ret);
		return CTH_VERDICT_DROP;
	}
	if (u)
		ret = rpc_nat_uaddr(s, m, u, exp->dport);
	else if (exp->dport != port)
		ret = rpc_nat_port(s, m, r, exp->dport);
	if (ret < 0) {
		/* the client will not learn this port */
		if (cth_expect_ctl(s->ctx, CTH_EXPECT_OP_REMOVE, exp) < 0)
			cth_log(s->ctx, CTH_LOG_INFO, "cannot take back the expectation");
		return CTH_VERDICT_DROP;
	}
	cth_count(s->ctx, RPC_CNT_EXPECTATIONS);
	return CTH_VERDICT_ACCEPT;
}

int rpc_reply_handle(struct rpc_ctx *s, const struct rpc_msgref *m,
		     const struct rpc_reply *r, uint8_t call)
{
	enum rpc_kind kind = (enum rpc_kind)(call & RPC_CALL_KIND_MASK);
	uint8_t proto = call & RPC_CALL_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	struct rpc_uaddr u, *up = NULL;
	struct cth_expect exp;
	uint16_t port;
	int ret;

	if (!r->success) {
		cth_log(s->ctx, CTH_LOG_DEBUG, "%s xid %#x refused (status %u)",
			rpc_kind_name(kind), r->xid, r->stat);
		return CTH_VERDICT_ACCEPT;
	}
	if (kind == RPC_KIND_GETPORT) {
		ret = rpc_port_result(m->msg, m->len, r, &port);
	} else {
		ret = rpc_uaddr_result(m->msg, m->len, r, s->family, &u);
		port = u.port;
		up = &u;
	}
	if (ret < 0) {
		cth_log(s->ctx, CTH_LOG_DEBUG, "%s xid %#x: malformed answer ignored",
			rpc_kind_name(kind), r->xid);
		cth_count(s->ctx, RPC_CNT_PARSE_ERRORS);
		return CTH_VERDICT_ACCEPT;
	}
	if (port == 0)                  /* not registered */
		return CTH_VERDICT_ACCEPT;
	cth_count(s->ctx, RPC_CNT_REPLIES);
	if (up && !rpc_uaddr_is_server(s, &u.addr)) {
		cth_log_addr(s->ctx, CTH_LOG_INFO, "universal address of another host ignored:",
			     s->family, &u.addr, port);
		cth_count(s->ctx, RPC_CNT_FOREIGN);
		return CTH_VERDICT_ACCEPT;
	}
	/* the client (the master's original source, any source port) to the
	 * server it dialled, on the call's protocol: whatever address a
	 * universal address names (the server's, as either side knows it, or
	 * unspecified), the connection goes to the server's own */
	cth_expect_to(&exp, s->pkt, RPC_CLASS_PROGRAM, proto,
		      &s->pkt->tuple[CTH_DIR_REPLY].src, port);
	if (s->cfg->permanent)
		exp.flags |= CTH_EXPECT_PERMANENT;
	if (s->nat)
		return rpc_nat(s, m, r, up, &exp, port);
	ret = cth_expect(s->ctx, &exp, 0);
	if (ret < 0) {
		cth_log_addr(s->ctx, CTH_LOG_INFO, "cannot expect", s->family, &exp.dst, port);
		return cth_expect_verdict(ret);
	}
	cth_count(s->ctx, RPC_CNT_EXPECTATIONS);
	return CTH_VERDICT_ACCEPT;
}
