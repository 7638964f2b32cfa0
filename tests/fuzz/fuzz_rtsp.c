/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real RTSP plugin (plugins/rtsp/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for up to 8 segments of one TCP connection to
 * port 554, either direction (each direction's sequence numbers follow on,
 * or a segment is sent again), IPv4 or IPv6, source and/or destination
 * NAT, an expected connection, the plugin's keys, a host without
 * cth_keep(), private state from the input, and expectation answers.
 * Each segment is also read by the framing and Transport parsers alone,
 * whose every offset must lie in the segment.
 *
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: every expectation is
 * UDP, class media, of the connection's family, to a port; NAT ones only
 * under NAT; expectation operations only FLUSH (TEARDOWN) and REMOVE (a
 * half-made pair); no edit without NAT (fuzz_plugin.h).
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h), 28 bytes of
 * private state, then segments, each a byte (bit 0: from the server;
 * bit 1: the previous segment of that direction again; bit 2: the host
 * holds only part of it), a 16-bit length and the payload.
 */
#include "fuzz_plugin.h"
#include "../../plugins/rtsp/rtsp.h"

#define RTSP_SEGMENTS_MAX 8u

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_SNAT = 1u << 1,
	F_DNAT = 1u << 2,
	F_EXPECTED = 1u << 3,
};

/* bits of the host byte */
enum {
	H_THIRD_PARTY = 1u << 0,    /* third_party = yes */
	H_NO_REVERSE = 1u << 1,     /* reverse = no */
	H_SMALL = 1u << 2,          /* max_message = 256 */
	H_OLD_HOST = 1u << 3,       /* no cth_keep() */
	H_TCP_NEW = 1u << 4,        /* not established: nothing read */
	H_CTL_FAIL = 1u << 5,       /* flush and remove fail */
};

/* bits of a segment's byte */
enum {
	P_REPLY = 1u << 0,
	P_AGAIN = 1u << 1,
	P_TRUNCATED = 1u << 2,
};

/* ------------------------------------------------------------ the plugin's requests */

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	FZ_ASSERT(e && e->class == RTSP_CLASS_MEDIA && e->proto == IPPROTO_UDP &&
		  e->family == cur->tuple[0].family && e->dport != 0,
		  "%s: class %u proto %u family %u port %u", what, e ? e->class : 0,
		  e ? e->proto : 0, e ? e->family : 0, e ? e->dport : 0);
	FZ_ASSERT(!(cur->ct_status & CTH_CT_EXPECTED), "%s: for a media connection", what);
	FZ_ASSERT(!(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || (cur->nat && e->fn &&
		  strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0 && e->nat_port != 0),
		  "%s: NAT expectation, nat %u", what, cur->nat);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	if (op == CTH_EXPECT_OP_FLUSH)
		FZ_ASSERT(!e, "flush of one class");
	else
		FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE && e && e->class == RTSP_CLASS_MEDIA &&
			  e->proto == IPPROTO_UDP, "expect_ctl op %u", op);
	return real_host->expect_ctl(ctx, op, e);
}

/* ------------------------------------------------------------ the parsers alone */

static void fz_span_in(struct rtsp_span s, size_t off, size_t end, const char *what)
{
	FZ_ASSERT(s.off >= off && s.off <= end && s.len <= end - s.off,
		  "%s at %zu+%zu outside %zu..%zu", what, s.off, s.len, off, end);
}

static void fz_transport(const uint8_t *p, struct rtsp_span v, int family)
{
	struct rtsp_spec specs[RTSP_SPECS_MAX];
	unsigned int n = rtsp_transport_parse(p, v.off, v.len, family, specs, RTSP_SPECS_MAX);
	size_t end = v.off + v.len;

	FZ_ASSERT(n <= RTSP_SPECS_MAX, "%u specs", n);
	for (unsigned int i = 0; i < n; i++) {
		const struct rtsp_spec *s = &specs[i];
		const struct rtsp_ports *ps[2] = { &s->client, &s->server };
		const struct rtsp_host *hs[2] = { &s->dest, &s->src };
		uint16_t rtp, rtcp;

		for (unsigned int k = 0; k < 2; k++) {
			FZ_ASSERT(ps[k]->n <= 2 && hs[k]->n <= 2, "counts");
			for (unsigned int j = 0; j < ps[k]->n; j++) {
				FZ_ASSERT(ps[k]->port[j].val != 0, "port 0");
				fz_span_in(ps[k]->port[j].text, v.off, end, "port");
			}
			for (unsigned int j = 0; j < hs[k]->n; j++)
				fz_span_in(hs[k]->text[j], v.off, end, "host");
			if (!s->bad && rtsp_ports_pair(ps[k], s->rtcp_mux, &rtp, &rtcp))
				FZ_ASSERT(rtp != 0 && rtcp != 0, "pair %u-%u", rtp, rtcp);
		}
	}
}

/* Every message of the segment as the plugin frames it, offsets inside. */
static void fz_parse(const uint8_t *p, size_t n, size_t max, int family)
{
	size_t off = 0;

	while (off < n) {
		struct rtsp_msg m;
		enum rtsp_parse ret = rtsp_msg_parse(p, n, off, max, &m);
		struct rtsp_span v;
		size_t pos = 0, next;

		if (ret == RTSP_PARSE_GARBAGE) {
			next = rtsp_line_next(p, n, off);
			FZ_ASSERT(next > off && next <= n, "line_next %zu at %zu", next, off);
			off = next;
			continue;
		}
		if (ret != RTSP_PARSE_OK)
			return;
		FZ_ASSERT(m.start == off && m.head_end > off && m.head_end <= n &&
			  m.end >= m.head_end, "message %zu..%zu..%llu of %zu", m.start, m.head_end,
			  (unsigned long long)m.end, n);
		if (m.kind == RTSP_KIND_REQUEST)
			fz_span_in(m.method, off, m.head_end, "method");
		if (m.kind != RTSP_KIND_FRAME) {
			FZ_ASSERT(m.head_end - m.start <= max, "headers %zu over %zu",
				  m.head_end - m.start, max);
			while (rtsp_header_next(p, &m, "Transport", &pos, &v)) {
				fz_span_in(v, m.start, m.head_end, "Transport");
				fz_transport(p, v, family);
			}
		}
		if (m.end >= n)
			return;
		off = (size_t)m.end;
	}
}

/* ------------------------------------------------------------ the result */

static void fz_after(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o)
{
	const struct rtsp_config *cfg = (const void *)fc->config;
	const struct rtsp_priv *priv = (const void *)fc->priv;

	(void)dir;
	FZ_ASSERT(o->verdict == CTH_VERDICT_ACCEPT || expect_calls > 0, "dropped, %u expect",
		  expect_calls);
	FZ_ASSERT(priv->version == 0 || priv->version == RTSP_PRIV_VERSION, "state version %u",
		  priv->version);
	fz_parse(o->payload, o->n, cfg->max_message, fc->family);
}

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	uint32_t last[2];

	fzp_conn_init(fc, flags & F_IPV6, IPPROTO_TCP, flags & F_SNAT, flags & F_DNAT,
		      flags & F_EXPECTED);
	fz_bytes(in, fc->priv, sizeof(struct rtsp_priv));
	fc->seq[CTH_DIR_ORIGINAL] = last[CTH_DIR_ORIGINAL] = 1000;
	fc->seq[CTH_DIR_REPLY] = last[CTH_DIR_REPLY] = 0xfffff000u;    /* wraps */
	for (unsigned int i = 0; i < RTSP_SEGMENTS_MAX && in->n >= 3; i++) {
		uint8_t pb = fz_u8(in);
		size_t n = fzp_clamp(fz_u16(in), in->n);
		const uint8_t *p = fz_take(in, &n);
		enum cth_dir dir = pb & P_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
		uint32_t seq = pb & P_AGAIN ? last[dir] : fc->seq[dir];

		if (!n)
			continue;
		fzp_packet(fc, dir, seq, p, n, pb & P_TRUNCATED, 1000 + i);
		last[dir] = seq;
		if (!(pb & P_AGAIN))
			fc->seq[dir] = seq + (uint32_t)n;
	}
}

/* The seeds' addresses (mkseeds_rtsp.py, like tests/unit/test_rtsp.c):
 * the client at port 40000 talks to the server's 554 and shows as
 * PUB:61000 under SNAT. */
static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "10.0.1.2", "10.0.2.2", "10.0.2.1", "198.51.100.1" },
	.v6 = { "fd00:1::2", "fd00:2::2", "fd00:2::1", "fd00:1::1" },
	.sport = 40000,
	.dport = 554,
	.snat_port = 61000,
	.tcp_flags = 0x18,      /* ACK PSH */
	.keys = { { H_THIRD_PARTY, "third_party=yes" },
		  { H_NO_REVERSE, "reverse=no" },
		  { H_SMALL, "max_message=256" } },
	.h_old_host = H_OLD_HOST,
	.h_tcp_new = H_TCP_NEW,
	.h_ctl_fail = H_CTL_FAIL,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.after = fz_after,
};
