/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real rpc plugin (plugins/rpc/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for up to 8 packets of one connection to port
 * 111: UDP or TCP, IPv4 or IPv6, source and/or destination NAT, calls
 * from the client and replies from the server in any order, its
 * "permanent" key, a host with or without cth_keep(), and expectation
 * answers (created, port taken, error) taken from the input.  Over TCP
 * each direction's segments follow one another (unless the input says a
 * segment was lost), so bytes the plugin kept are shown in front of the
 * next one.
 *
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: edits only of the
 * server's packets; every expectation valid, of class 0,
 * towards the address the client dialled, NATed only under NAT.  After
 * every packet the result is checked (fuzz_hostpath.h): lengths and
 * checksums right, headers otherwise unchanged; a rewritten UDP reply
 * still parses as a successful reply naming the dialled address, and a
 * rewritten TCP segment whose records were whole still is whole records.
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h; its error after N
 * for expectations that do not wait for their answer too), 32 bytes of
 * private state, then packets, each a byte (bit 0: from the server; bit
 * 1: the host holds only part of it; bit 2: a segment before it was
 * lost), a 16-bit length and the payload.
 */
#include "fuzz_plugin.h"
#include "../../plugins/rpc/rpc_parse.h"

#define RPC_CLASSES 1u
#define RPC_PACKETS_MAX 8u

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_TCP = 1u << 1,
	F_SNAT = 1u << 2,
	F_DNAT = 1u << 3,
	F_STATE = 1u << 4,      /* start from the input's private state */
	F_EXPECTED = 1u << 5,   /* an expected connection */
};

/* bits of the host byte */
enum {
	H_PERMANENT = 1u << 0,  /* permanent = yes */
	H_OLD_HOST = 1u << 1,   /* no cth_keep() */
	H_TCP_NEW = 1u << 2,    /* TCP packets not established */
	H_CTL_FAIL = 1u << 3,   /* remove fails */
};

/* bits of a packet's byte */
enum {
	P_REPLY = 1u << 0,
	P_TRUNCATED = 1u << 1,
	P_GAP = 1u << 2,
};

/* ------------------------------------------------------------ the plugin's requests */

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	const struct cth_tuple *o = &cur->tuple[CTH_DIR_ORIGINAL];

	FZ_ASSERT(e && e->class < RPC_CLASSES && e->family == o->family &&
		  (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP) && e->dport != 0,
		  "%s: class %u family %u proto %u port %u", what, e ? e->class : 0,
		  e ? e->family : 0, e ? e->proto : 0, e ? e->dport : 0);
	FZ_ASSERT(!(e->flags & ~(unsigned int)(CTH_EXPECT_PERMANENT | CTH_EXPECT_NAT)),
		  "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_PERMANENT) == !(host_bits & H_PERMANENT),
		  "%s: permanent flag %#x without the key", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || (e->nat_dir == CTH_DIR_ORIGINAL && e->fn &&
						  strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0),
		  "%s: nat_dir %d", what, e->nat_dir);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) == !cur->nat, "%s: NAT flag %#x, nat %u", what,
		  e->flags, cur->nat);
	/* only ever the client towards the server as it dialled it */
	FZ_ASSERT(memcmp(e->src.raw, o->src.raw, o->family == AF_INET6 ? 16 : 4) == 0 &&
		  memcmp(e->dst.raw, o->dst.raw, o->family == AF_INET6 ? 16 : 4) == 0 &&
		  e->sport == 0, "%s: not client -> dialled server", what);
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "%s: expectation from a client's packet", what);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE && e && e->family == cur->tuple[0].family,
		  "expect_ctl op %u", op);
	return real_host->expect_ctl(ctx, op, e);
}

/* ------------------------------------------------------------ the result */

/* Whole records from 0 to len exactly. */
static bool fz_records_whole(const uint8_t *buf, size_t len)
{
	struct rpc_record r;
	size_t off = 0;

	while (off < len) {
		if (rpc_record_scan(buf, len, off, &r) < 0)
			return false;
		off = r.end;
	}
	return true;
}

/* A rewritten datagram is a successful reply naming the dialled server. */
static void fz_check_udp_reply(const struct fz_conn *fc, const uint8_t *p, size_t n)
{
	const union cth_addr *dialled = &fc->t[CTH_DIR_ORIGINAL].dst;
	struct rpc_reply r;
	struct rpc_uaddr u;
	uint16_t port;

	FZ_ASSERT(rpc_reply_parse(p, n, &r) == 0 && r.success, "rewritten reply does not parse");
	if (rpc_port_result(p, n, &r, &port) == 0) {
		FZ_ASSERT(port != 0, "rewritten to port 0");
		return;
	}
	FZ_ASSERT(rpc_uaddr_result(p, n, &r, fc->family, &u) == 0 && u.port != 0 &&
		  memcmp(u.addr.raw, dialled->raw, fc->family == AF_INET6 ? 16 : 4) == 0,
		  "rewritten universal address does not name the dialled server");
}

/* Each direction's next segment follows what was accepted; a rewritten
 * reply still parses, rewritten whole records stay whole. */
static void fz_after(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o)
{
	size_t off = o->c->pkt.payload_offset;

	if (o->verdict != CTH_VERDICT_ACCEPT)
		return;
	fc->seq[dir] += (uint32_t)o->n;
	if (!o->r)
		return;
	if (fc->proto == IPPROTO_UDP)
		fz_check_udp_reply(fc, o->r + off, o->rlen - off);
	if (fc->proto == IPPROTO_TCP && fz_records_whole(o->payload, o->n) &&
	    o->c->pkt.kept == 0)
		FZ_ASSERT(fz_records_whole(o->r + off, o->rlen - off),
			  "rewritten records no longer whole");
}

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	uint8_t state[CTH_PRIV_MAX];

	fzp_conn_init(fc, flags & F_IPV6, flags & F_TCP ? IPPROTO_TCP : IPPROTO_UDP,
		      flags & F_SNAT, flags & F_DNAT, flags & F_EXPECTED);
	fc->seq[0] = 0x10203040;
	fc->seq[1] = 0xfffffc00;        /* wraps within a few segments */
	fz_bytes(in, state, sizeof(state));
	if (flags & F_STATE)
		memcpy(fc->priv, state, sizeof(state));

	for (unsigned int i = 0; i < RPC_PACKETS_MAX && in->n >= 3; i++) {
		uint8_t pb = fz_u8(in);
		size_t n = fzp_clamp(fz_u16(in), in->n);
		const uint8_t *p = fz_take(in, &n);
		enum cth_dir dir = pb & P_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;

		if (pb & P_GAP)
			fc->seq[dir] += 1000;
		if (n)
			fzp_packet(fc, dir, fc->seq[dir], p, n, pb & P_TRUNCATED, 1000 + i);
	}
}

/* The seeds' addresses (mkseeds_rpc.py, like tests/unit/test_rpc.c): the
 * client at port 812 asks the server's 111 and shows as PUB:40000 under
 * SNAT. */
static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "192.168.1.10", "198.51.100.2", "203.0.113.5", "203.0.113.6" },
	.v6 = { "2001:db8::10", "2001:db8:1::2", "2001:db8:ffff::1", "2001:db8:ffff::2" },
	.sport = 812,
	.dport = 111,
	.snat_port = 40000,
	.tcp_flags = 0x10,      /* ACK */
	.keys = { { H_PERMANENT, "permanent=yes" } },
	.h_old_host = H_OLD_HOST,
	.h_tcp_new = H_TCP_NEW,
	.h_ctl_fail = H_CTL_FAIL,
	.async_errors = true,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.server_edits_only = true,
	.after = fz_after,
};
