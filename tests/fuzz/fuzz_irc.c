/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real IRC plugin (plugins/irc/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for up to 8 segments of one TCP connection to
 * port 6667, either direction (each direction's sequence numbers follow
 * on, or a segment is sent again), IPv4 or IPv6, source and/or
 * destination NAT, an expected connection, a host without cth_keep(), and
 * expectation answers.  Each segment's lines are also read by the line
 * parser alone, whose offsets must lie in the line.
 *
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: every expectation is
 * TCP, class irc, from anywhere, to the client as the server knows it,
 * for a segment from the client only, never for an expected connection;
 * expectation operations only REMOVE (a rewrite that failed); no edit
 * without NAT (fuzz_plugin.h).
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h), then segments,
 * each a byte (bit 0: from the server; bit 1: the previous segment of
 * that direction again; bit 2: the host holds only part of it), a 16-bit
 * length and the payload.
 */
#include "fuzz_plugin.h"
#include "../../plugins/irc/irc.h"
#include "../../plugins/irc/irc_parse.h"

#define IRC_SEGMENTS_MAX 8u

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_SNAT = 1u << 1,
	F_DNAT = 1u << 2,
	F_EXPECTED = 1u << 3,
};

/* bits of the host byte */
enum {
	H_OLD_HOST = 1u << 0,   /* no cth_keep() */
	H_TCP_NEW = 1u << 1,
	H_CTL_FAIL = 1u << 2,
};

/* bits of a segment's byte */
enum {
	P_REPLY = 1u << 0,
	P_AGAIN = 1u << 1,
	P_TRUNCATED = 1u << 2,
};

static bool fz_addr_eq(int family, const union cth_addr *a, const union cth_addr *b)
{
	return memcmp(a->raw, b->raw, family == AF_INET6 ? 16 : 4) == 0;
}

static enum cth_dir fz_dir;

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	const struct cth_tuple *r = &cur->tuple[CTH_DIR_REPLY];
	int f = r->family;

	FZ_ASSERT(e && e->class == IRC_CLASS && e->family == f && e->proto == IPPROTO_TCP &&
		  e->dport != 0 && (e->flags & CTH_EXPECT_ANY_SRC),
		  "%s: class %u family %u proto %u dport %u flags %#x", what, e ? e->class : 0,
		  e ? e->family : 0, e ? e->proto : 0, e ? e->dport : 0, e ? e->flags : 0);
	FZ_ASSERT(!(cur->ct_status & CTH_CT_EXPECTED) && fz_dir == CTH_DIR_ORIGINAL,
		  "%s: for an expected connection or from the server", what);
	FZ_ASSERT(fz_addr_eq(f, &e->dst, &r->dst), "%s: not to the client", what);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || cur->nat, "%s: NAT without NAT", what);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE && e, "expect_ctl op %u", op);
	return real_host->expect_ctl(ctx, op, e);
}

/* The line parser alone on each line of what went in. */
static void fz_after(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o)
{
	size_t off = 0;

	(void)fc;
	(void)dir;
	while (off < o->n) {
		const uint8_t *nl = memchr(o->payload + off, '\n', o->n - off);
		size_t len = nl ? (size_t)(nl - o->payload) - off : o->n - off;
		struct irc_dcc d;
		int ret = irc_parse_line(o->payload, off, len, nl != NULL, &d);

		FZ_ASSERT(ret >= -EINVAL && ret <= IRC_PARSE_MORE, "parse %d", ret);
		FZ_ASSERT(nl || ret != IRC_PARSE_DCC, "an offer without its line's end");
		if (ret == IRC_PARSE_DCC)
			FZ_ASSERT(d.addr_text.off >= off && d.port_text.off > d.addr_text.off &&
				  d.port_text.off + d.port_text.len <= off + len &&
				  (d.family == AF_INET || d.family == AF_INET6),
				  "offer spans outside the line");
		if (ret == -EINVAL)
			FZ_ASSERT(d.why != NULL, "malformed without a reason");
		off += len + 1;
	}
}

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	uint32_t last[2];

	fzp_conn_init(fc, flags & F_IPV6, IPPROTO_TCP, flags & F_SNAT, flags & F_DNAT,
		      flags & F_EXPECTED);
	fc->seq[CTH_DIR_ORIGINAL] = last[CTH_DIR_ORIGINAL] = 1000;
	fc->seq[CTH_DIR_REPLY] = last[CTH_DIR_REPLY] = 0xfffff000u;    /* wraps */
	for (unsigned int i = 0; i < IRC_SEGMENTS_MAX && in->n >= 3; i++) {
		uint8_t pb = fz_u8(in);
		size_t n = fzp_clamp(fz_u16(in), in->n);
		const uint8_t *p = fz_take(in, &n);
		enum cth_dir dir = pb & P_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
		uint32_t seq = pb & P_AGAIN ? last[dir] : fc->seq[dir];

		if (!n)
			continue;
		fz_dir = dir;
		fzp_packet(fc, dir, seq, p, n, pb & P_TRUNCATED, 1000 + i);
		last[dir] = seq;
		if (!(pb & P_AGAIN))
			fc->seq[dir] = seq + (uint32_t)n;
	}
}

/* The seeds' addresses (mkseeds_irc.py, like tests/unit/test_irc.c): the
 * client at port 40000 talks to the server's 6667 and shows as
 * PUB:61000 under SNAT. */
static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "10.0.1.2", "10.0.2.2", "10.0.2.1", "198.51.100.1" },
	.v6 = { "fd00:1::2", "fd00:2::2", "fd00:2::1", "fd00:1::1" },
	.sport = 40000,
	.dport = 6667,
	.snat_port = 61000,
	.tcp_flags = 0x18,      /* ACK PSH */
	.h_old_host = H_OLD_HOST,
	.h_tcp_new = H_TCP_NEW,
	.h_ctl_fail = H_CTL_FAIL,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.after = fz_after,
};
