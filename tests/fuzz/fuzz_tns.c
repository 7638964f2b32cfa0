/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real TNS plugin (plugins/tns/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for one or two TCP segments of one connection:
 * IPv4 or IPv6, source and/or destination NAT, the server's direction or
 * the client's, an expected connection or not, tns_detach, a host with or
 * without cth_keep(), and expectation answers (created, port taken,
 * error) taken from the input.  A second segment in the same direction is
 * the one that follows the first, so bytes the plugin kept are shown in
 * front of it; private state carries over from the first.
 *
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: every expectation
 * valid (NATed only under NAT); a detach only after an expectation of the
 * same packet or an ACCEPT, and never with tns_detach = no; nothing at all
 * for a client packet.  After every
 * packet the result is checked (fuzz_hostpath.h): at most 65531 bytes,
 * lengths and checksums right, headers otherwise unchanged; and a payload
 * whose TNS packets tiled it still does once rewritten, each REDIRECT's
 * data length inside its packet.
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h), the first
 * payload's length (16 bits), 16 bytes of private state, then the first payload and, when
 * anything is left, the second one.
 */
#include "fuzz_plugin.h"

#define TNS_PRIV_LEN 16u
#define TNS_CLASSES 1u

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_SNAT = 1u << 1,
	F_DNAT = 1u << 2,
	F_CLIENT = 1u << 3,     /* the first packet from the client */
	F_TURN = 1u << 4,       /* the second packet in the other direction */
	F_EXPECTED = 1u << 5,   /* an expected connection */
	F_TRUNCATED = 1u << 6,  /* the host holds only part of the first packet */
	F_GAP = 1u << 7,        /* the second segment does not follow the first */
};

/* bits of the host byte */
enum {
	H_NO_DETACH = 1u << 0,  /* tns_detach = no */
	H_OLD_HOST = 1u << 1,   /* no cth_keep() */
	H_TCP_NEW = 1u << 2,    /* a packet not established */
	H_CTL_FAIL = 1u << 3,   /* remove fails */
	H_DETACH_FAIL = 1u << 4,
};

/* ------------------------------------------------------------ the plugin's requests */

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "%s on a client packet", what);
	FZ_ASSERT(e && e->class < TNS_CLASSES && e->family == cur->tuple[0].family &&
		  e->proto == IPPROTO_TCP && e->dport != 0 && e->sport == 0,
		  "%s: class %u family %u proto %u port %u", what, e ? e->class : 0,
		  e ? e->family : 0, e ? e->proto : 0, e ? e->dport : 0);
	FZ_ASSERT(!(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || e->nat_dir == CTH_DIR_ORIGINAL,
		  "%s: nat_dir %d", what, e->nat_dir);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || cur->nat, "%s: NAT expectation without NAT",
		  what);
	FZ_ASSERT(!memcmp(&e->src, &cur->tuple[CTH_DIR_ORIGINAL].src, sizeof(e->src)),
		  "%s: not from the client", what);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE, "expect_ctl op %u", op);
	fz_check_exp(e, "remove");
	return real_host->expect_ctl(ctx, op, e);
}

static int wrap_detach(struct cth_ctx *ctx)
{
	FZ_ASSERT(!(host_bits & H_NO_DETACH), "detach with tns_detach = no");
	/* or an ACCEPT went by (type 2 somewhere in the payload: loose,
	 * but a detach out of nothing still trips it) */
	FZ_ASSERT(call_expects > 0 ||
		  memchr(((struct pkt_call *)ctx)->pkt.payload, 2,
			 ((struct pkt_call *)ctx)->pkt.payload_len),
		  "detach without an expectation or an ACCEPT");
	detach_calls++;
	if (host_bits & H_DETACH_FAIL)
		return -EOPNOTSUPP;
	return real_host->detach(ctx);
}

/* ------------------------------------------------------------ the result */

static uint16_t fz_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Do TNS packets tile the bytes, each REDIRECT's data length inside its
 * packet?  (The plugin's reading: a 2-byte length, or a 4-byte one when
 * the first two bytes are 0; types 1..19.) */
static bool fz_tiles(const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		uint32_t len;

		if (n - off < 8)
			return false;
		len = fz_get16(p + off);
		if (len == 0)
			len = fz_get16(p + off + 2);
		if (len < 8 || len > n - off || p[off + 4] == 0 || p[off + 4] > 19)
			return false;
		if (p[off + 4] == 5 && len >= 10 && fz_get16(p + off + 8) > len - 10)
			return false;
		off += len;
	}
	return true;
}

/* A payload whose TNS packets tiled it still does once rewritten. */
static void fz_after(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o)
{
	size_t off = o->c->pkt.payload_offset;

	(void)fc;
	(void)dir;
	if (o->r && o->edits && o->c->pkt.kept == 0 && fz_tiles(o->payload, o->n))
		FZ_ASSERT(fz_tiles(o->r + off, o->rlen - off),
			  "rewritten TNS packets no longer tile the payload");
}

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	size_t n1 = fz_u16(in);

	fzp_conn_init(fc, flags & F_IPV6, IPPROTO_TCP, flags & F_SNAT, flags & F_DNAT,
		      flags & F_EXPECTED);
	fz_bytes(in, fc->priv, TNS_PRIV_LEN);
	/* the sequence numbers wrap within a long input */
	fzp_two_packets(fc, in, n1, flags & F_CLIENT ? CTH_DIR_ORIGINAL : CTH_DIR_REPLY,
			0xfffffe00, flags & F_TURN, flags & F_GAP ? 1000u : 0u,
			flags & F_TRUNCATED);
}

/* The seeds' addresses (mkseeds_tns.py, like tests/unit/test_tns.c): the
 * client calls the listener on 1521 and shows as PUB:61000 under SNAT. */
static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "192.168.1.10", "10.0.0.5", "203.0.113.5", "203.0.113.6" },
	.v6 = { "2001:db8:1::10", "2001:db8:2::5", "2001:db8:ffff::5", "2001:db8:ffff::6" },
	.sport = 40000,
	.dport = 1521,
	.snat_port = 61000,
	.tcp_flags = 0x18,      /* PSH, ACK */
	.keys = { { H_NO_DETACH, "tns_detach=no" } },
	.h_old_host = H_OLD_HOST,
	.h_tcp_new = H_TCP_NEW,
	.h_ctl_fail = H_CTL_FAIL,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.detach = wrap_detach,
	.server_edits_only = true,
	.server_keeps_only = true,
	.after = fz_after,
};
