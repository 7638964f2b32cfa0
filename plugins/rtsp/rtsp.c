/* SPDX-License-Identifier: MIT */
/*
 * RTSP helper plugin (RFC 2326, RFC 7826): a SETUP's Transport header
 * names the UDP ports where the client wants RTP and RTCP; this lets the
 * server's media through the firewall to them, and with `reverse` the
 * client's own media to the server_port of the reply.  Under NAT the
 * media follows the master to the client, on a free port pair of the NAT
 * address when the announced one is taken (rtsp_nat.c).  TEARDOWN closes
 * what was never used.  Interleaved data ('$' frames) and bodies are
 * skipped unread, also across segments.  Behaviour and the differences
 * from the out-of-tree nf_conntrack_rtsp are in docs/plugins/rtsp.md.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include "rtsp.h"

static bool rtsp_packet_wanted(const struct cth_packet *pkt, const struct rtsp_config *cfg);
static size_t rtsp_skip_start(struct rtsp_run *r);
static void rtsp_stream(struct rtsp_run *r, size_t off);
static void rtsp_message(struct rtsp_run *r, const struct rtsp_msg *m);

static int rtsp_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	const struct rtsp_config *cfg = config;
	struct rtsp_run r = {
		.ctx = ctx,
		.pkt = pkt,
		.priv = priv,
		.cfg = cfg,
		.buf = pkt->payload,
		.len = pkt->payload_len,
		.kept = cth_kept(ctx, pkt),
		.family = pkt->tuple[CTH_DIR_ORIGINAL].family,
		.verdict = CTH_VERDICT_ACCEPT,
	};

	if (!rtsp_packet_wanted(pkt, cfg))
		return CTH_VERDICT_ACCEPT;
	rtsp_stream(&r, rtsp_skip_start(&r));
	return r.verdict;
}

/* The signalling of an established connection to one of the server
 * ports; media connections (expected) carry no RTSP. */
static bool rtsp_packet_wanted(const struct cth_packet *pkt, const struct rtsp_config *cfg)
{
	const struct cth_tuple *orig = &pkt->tuple[CTH_DIR_ORIGINAL];

	if (pkt->ct_status & CTH_CT_EXPECTED)
		return false;
	if (pkt->ctinfo != CTH_CT_ESTABLISHED && pkt->ctinfo != CTH_CT_ESTABLISHED_REPLY)
		return false;
	if (orig->proto != IPPROTO_TCP || (orig->family != AF_INET && orig->family != AF_INET6))
		return false;
	if (!pkt->payload || pkt->payload_len == 0)
		return false;
	for (unsigned int i = 0; i < cfg->ports.n && i < CTH_PORTS_MAX; i++)
		if (cfg->ports.port[i] == orig->dport)
			return true;
	return false;
}

/* ------------------------------------------------------------ framing */

/* A skip further ahead than this is stale state (the stream wrapped). */
#define RTSP_SKIP_WINDOW (1u << 30)

/* The sequence number of buf[0]: kept bytes come before pkt->seq. */
static uint32_t rtsp_seq0(const struct rtsp_run *r)
{
	return r->pkt->seq - (uint32_t)r->kept;
}

/*
 * Where the first message of this segment starts: past the rest of a
 * frame or body an earlier segment began.  The mark stays once passed,
 * so a retransmitted segment of that frame is skipped too; it goes only
 * when far behind.
 */
static size_t rtsp_skip_start(struct rtsp_run *r)
{
	unsigned int dir = r->pkt->dir;
	int32_t d;

	if (!(r->priv->flags & RTSP_PRIV_SKIP(dir)))
		return 0;
	d = (int32_t)(r->priv->skip_end[dir] - rtsp_seq0(r));
	if (d > (int32_t)RTSP_SKIP_WINDOW || d < -(int32_t)RTSP_SKIP_WINDOW) {
		r->priv->flags &= (uint8_t)~RTSP_PRIV_SKIP(dir);
		return 0;
	}
	if (d <= 0)
		return 0;
	return (size_t)d < r->len ? (size_t)d : r->len;
}

static void rtsp_skip_set(struct rtsp_run *r, uint64_t end)
{
	unsigned int dir = r->pkt->dir;

	r->priv->skip_end[dir] = rtsp_seq0(r) + (uint32_t)end;
	r->priv->flags |= (uint8_t)RTSP_PRIV_SKIP(dir);
}

/* A message cut by the segment's end: shown again with the next one. */
static void rtsp_keep(struct rtsp_run *r, size_t off)
{
	int ret = cth_keep(r->ctx, off);

	if (ret < 0)
		cth_log(r->ctx, CTH_LOG_DEBUG, "cannot keep %zu bytes of a message (%d)",
			r->len - off, ret);
}

/*
 * Where to look for a message after bytes that start none.  Between
 * text messages a line start is a fair guess.  A direction that carries
 * '$' frames holds binary data, which may hold any text (a stream of
 * RTSP captures, a hostile server's "RTSP/1.0 200" inside a frame): a
 * segment shown alone in the middle of a frame (its predecessor lost,
 * reordered, or its kept start dropped) must not be read line by line,
 * so such a direction picks up again only at a later segment's start.
 */
static size_t rtsp_garbage_next(const struct rtsp_run *r, size_t off)
{
	if (r->priv->flags & RTSP_PRIV_FRAMED(r->pkt->dir))
		return r->len;
	return rtsp_line_next(r->buf, r->len, off);
}

/* Every message and frame of the segment from off on. */
static void rtsp_stream(struct rtsp_run *r, size_t off)
{
	bool garbage = false;
	struct rtsp_msg m;

	while (off < r->len) {
		switch (rtsp_msg_parse(r->buf, r->len, off, r->cfg->max_message, &m)) {
		case RTSP_PARSE_GARBAGE:
			garbage = true;
			off = rtsp_garbage_next(r, off);
			continue;
		case RTSP_PARSE_MORE:
			rtsp_keep(r, off);
			off = r->len;
			continue;
		case RTSP_PARSE_OVERSIZED:
			/* its rest comes as lines that start no message */
			cth_count(r->ctx, RTSP_C_OVERSIZED);
			cth_log(r->ctx, CTH_LOG_DEBUG, "message over %u bytes: not read",
				r->cfg->max_message);
			off = r->len;
			continue;
		case RTSP_PARSE_OK:
			break;
		}
		garbage |= m.bad_length;
		if (m.kind == RTSP_KIND_FRAME)
			r->priv->flags |= (uint8_t)RTSP_PRIV_FRAMED(r->pkt->dir);
		else
			rtsp_message(r, &m);
		/* a dropped packet comes again: nothing to remember */
		if (r->verdict == CTH_VERDICT_DROP)
			return;
		if (m.end > r->len) {
			rtsp_skip_set(r, m.end);
			break;
		}
		off = (size_t)m.end;
	}
	if (garbage)
		cth_count(r->ctx, RTSP_C_MALFORMED);
}

/* ------------------------------------------------------------ messages */

static void rtsp_setup(struct rtsp_run *r, const struct rtsp_msg *m);
static void rtsp_teardown(struct rtsp_run *r);
static void rtsp_reply(struct rtsp_run *r, const struct rtsp_msg *m);

/* Requests come from the client (the original direction), replies from
 * the server; a server's own requests (ANNOUNCE, GET_PARAMETER) and
 * every other method open nothing. */
static void rtsp_message(struct rtsp_run *r, const struct rtsp_msg *m)
{
	r->rewritten = false;
	if (r->pkt->dir == CTH_DIR_ORIGINAL && m->kind == RTSP_KIND_REQUEST) {
		if (rtsp_method_is(r->buf, m, "SETUP"))
			rtsp_setup(r, m);
		else if (rtsp_method_is(r->buf, m, "TEARDOWN"))
			rtsp_teardown(r);
	} else if (r->pkt->dir == CTH_DIR_REPLY && m->kind == RTSP_KIND_STATUS &&
		   m->status >= 200 && m->status < 300) {
		rtsp_reply(r, m);
	}
	if (r->rewritten)
		cth_count(r->ctx, RTSP_C_NAT_REWRITES);
}

/* The specs of every Transport header of m, at most RTSP_SPECS_MAX. */
static unsigned int rtsp_specs(const struct rtsp_run *r, const struct rtsp_msg *m,
			       struct rtsp_spec *specs)
{
	struct rtsp_span v;
	unsigned int n = 0;
	size_t pos = 0;

	while (n < RTSP_SPECS_MAX && rtsp_header_next(r->buf, m, "Transport", &pos, &v))
		n += rtsp_transport_parse(r->buf, v.off, v.len, r->family, specs + n,
					  RTSP_SPECS_MAX - n);
	return n;
}

/* A failed expectation decides the packet's verdict (plugin.h
 * cth_expect_verdict()); a drop stays a drop. */
static void rtsp_failed(struct rtsp_run *r, int err)
{
	cth_count(r->ctx, RTSP_C_EXPECT_ERRORS);
	if (cth_expect_verdict(err) == CTH_VERDICT_DROP)
		r->verdict = CTH_VERDICT_DROP;
}

/* One port of a pair: to port, from sport (0: any), under NAT on to
 * nat_port. */
static void rtsp_expect_port(struct cth_expect *exp, uint16_t port, uint16_t sport,
			     uint16_t nat_port)
{
	exp->dport = port;
	exp->sport = sport;
	if (exp->flags & CTH_EXPECT_NAT)
		exp->nat_port = nat_port;
}

int rtsp_expect_pair(struct rtsp_run *r, struct cth_expect *exp, const struct rtsp_pair *to,
		     const struct rtsp_pair *from, const struct rtsp_pair *nat, unsigned int how)
{
	struct cth_expect rtp;
	int ret;

	if (!nat)
		nat = to;
	rtsp_expect_port(exp, to->rtp, from ? from->rtp : 0, nat->rtp);
	ret = cth_expect(r->ctx, exp, how);
	if (ret < 0 || to->rtcp == to->rtp)
		return ret;
	rtp = *exp;
	rtsp_expect_port(exp, to->rtcp, from ? from->rtcp : 0, nat->rtcp);
	ret = cth_expect(r->ctx, exp, how);
	/* the kernel's answer is known only now: the next pair is tried whole */
	if (ret < 0 && (how & CTH_EXPECT_SYNC))
		cth_expect_ctl(r->ctx, CTH_EXPECT_OP_REMOVE, &rtp);
	return ret;
}

/* A pair asked for: counted, or logged as what could not be expected
 * (to exp's destination) and the packet's verdict following the error. */
static void rtsp_pair_done(struct rtsp_run *r, int ret, const char *what,
			   const struct cth_expect *exp, const struct rtsp_pair *to)
{
	if (ret < 0) {
		cth_log_addr(r->ctx, CTH_LOG_INFO, what, r->family, &exp->dst, exp->dport);
		rtsp_failed(r, ret);
		return;
	}
	cth_count_add(r->ctx, RTSP_C_EXPECTATIONS, to->rtcp == to->rtp ? 1u : 2u);
}

/* A UDP unicast spec of a SETUP: the server's media to the client. */
static void rtsp_setup_spec(struct rtsp_run *r, const struct rtsp_spec *s)
{
	const struct cth_packet *pkt = r->pkt;
	struct rtsp_pair want;
	struct cth_expect exp;
	union cth_addr addr;
	int ret;

	if (s->lower == RTSP_LOWER_TCP) {
		/* frames follow, both ways: no reading between lines from now */
		r->priv->flags |= (uint8_t)(RTSP_PRIV_FRAMED(0) | RTSP_PRIV_FRAMED(1));
		cth_count(r->ctx, RTSP_C_INTERLEAVED);
		return;
	}
	/* multicast: the group is joined, not expected (docs) */
	if (s->lower != RTSP_LOWER_UDP || s->multicast)
		return;
	if (s->bad || !rtsp_ports_pair(&s->client, s->rtcp_mux, &want.rtp, &want.rtcp)) {
		cth_count(r->ctx, RTSP_C_MALFORMED);
		return;
	}
	if (s->dest.set)
		addr = s->dest.addr;
	else
		cth_addr_copy(r->family, &addr, &pkt->tuple[pkt->dir].src);
	if (!cth_expect_to(&exp, pkt, RTSP_CLASS_MEDIA, IPPROTO_UDP, &addr, want.rtp)) {
		/* RFC 2326 sec. 14: destination= can aim a stream at anybody */
		if (!r->cfg->third_party) {
			cth_count(r->ctx, RTSP_C_THIRD_PARTY);
			cth_log_addr(r->ctx, CTH_LOG_INFO, "SETUP: not expecting media to third host",
				     r->family, &addr, want.rtp);
			return;
		}
	} else if (pkt->nat) {
		ret = rtsp_nat_setup(r, s, &want, &exp);
		if (ret < 0)
			rtsp_failed(r, ret);
		return;
	}
	ret = rtsp_expect_pair(r, &exp, &want, NULL, NULL, 0);
	rtsp_pair_done(r, ret, "SETUP: cannot expect media to", &exp, &want);
}

static void rtsp_setup(struct rtsp_run *r, const struct rtsp_msg *m)
{
	struct rtsp_spec specs[RTSP_SPECS_MAX];
	unsigned int n = rtsp_specs(r, m, specs);

	cth_count(r->ctx, RTSP_C_SETUPS);
	if (n == 0)
		cth_count(r->ctx, RTSP_C_MALFORMED);
	for (unsigned int i = 0; i < n && r->verdict == CTH_VERDICT_ACCEPT; i++)
		rtsp_setup_spec(r, &specs[i]);
}

/*
 * The session ends: what it never used goes.  Used expectations are
 * connections already, and a client runs one session per connection, so
 * flushing the connection's expectations is flushing the session's.
 */
static void rtsp_teardown(struct rtsp_run *r)
{
	int ret = cth_expect_ctl(r->ctx, CTH_EXPECT_OP_FLUSH, NULL);

	cth_count(r->ctx, RTSP_C_TEARDOWNS);
	if (ret < 0)
		cth_log(r->ctx, CTH_LOG_DEBUG, "TEARDOWN: cannot flush expectations (%d)", ret);
	memset(r->priv->remap, 0, sizeof(r->priv->remap));
	r->priv->next_remap = 0;
}

/* The client as either side knows it: its own address, or the one NAT
 * gave it towards the server. */
static bool rtsp_is_client(const struct rtsp_run *r, const union cth_addr *a)
{
	const struct cth_tuple *t = r->pkt->tuple;

	return cth_addr_equal(r->family, a, &t[CTH_DIR_ORIGINAL].src) ||
	       cth_addr_equal(r->family, a, &t[CTH_DIR_REPLY].dst);
}

/*
 * A reply still naming a third host in destination= (the SETUP's was
 * refused, or allowed with third_party): the reverse belongs to that host
 * as much as the stream does, so it is refused the same way.
 */
static bool rtsp_reply_dest_ok(struct rtsp_run *r, const struct rtsp_spec *s,
			       uint16_t port)
{
	if (!s->dest.set || rtsp_is_client(r, &s->dest.addr) || r->cfg->third_party)
		return true;
	cth_count(r->ctx, RTSP_C_THIRD_PARTY);
	cth_log_addr(r->ctx, CTH_LOG_INFO, "SETUP reply: not expecting the media of third host",
		     r->family, &s->dest.addr, port);
	return false;
}

/* A UDP spec of a SETUP reply: client_port back under NAT, then the
 * client's media to server_port (reverse). */
static void rtsp_reply_spec(struct rtsp_run *r, const struct rtsp_spec *s)
{
	const struct cth_packet *pkt = r->pkt;
	struct rtsp_pair client = { 0, 0 }, server;
	struct cth_expect exp;
	union cth_addr addr;
	int ret;

	if (s->lower != RTSP_LOWER_UDP || s->multicast)
		return;
	if (s->bad) {
		cth_count(r->ctx, RTSP_C_MALFORMED);
		return;
	}
	if (!rtsp_ports_pair(&s->client, s->rtcp_mux, &client.rtp, &client.rtcp))
		client.rtp = client.rtcp = 0;
	if (pkt->nat)
		rtsp_nat_reply(r, s, &client);
	if (!r->cfg->reverse || !rtsp_ports_pair(&s->server, s->rtcp_mux, &server.rtp, &server.rtcp))
		return;
	if (!rtsp_reply_dest_ok(r, s, client.rtp))
		return;
	if (s->src.set)
		addr = s->src.addr;
	else
		cth_addr_copy(r->family, &addr, &pkt->tuple[pkt->dir].src);
	if (!cth_expect_to(&exp, pkt, RTSP_CLASS_MEDIA, IPPROTO_UDP, &addr, server.rtp) &&
	    !r->cfg->third_party) {
		cth_count(r->ctx, RTSP_C_THIRD_PARTY);
		cth_log_addr(r->ctx, CTH_LOG_INFO, "SETUP reply: not expecting media to third host",
			     r->family, &addr, server.rtp);
		return;
	}
	/* from the client's RTP and RTCP ports (its real ones: 0 when
	 * unnamed, any); a stream aimed at a third host has that host's
	 * receiver reports */
	if (s->dest.set && !rtsp_is_client(r, &s->dest.addr) && !(exp.flags & CTH_EXPECT_NAT))
		cth_addr_copy(r->family, &exp.src, &s->dest.addr);
	ret = rtsp_expect_pair(r, &exp, &server, &client, NULL, 0);
	rtsp_pair_done(r, ret, "SETUP reply: cannot expect media to", &exp, &server);
}

/* A 2xx with a Transport header answers a SETUP. */
static void rtsp_reply(struct rtsp_run *r, const struct rtsp_msg *m)
{
	struct rtsp_spec specs[RTSP_SPECS_MAX];
	unsigned int n = rtsp_specs(r, m, specs);

	if (n == 0)
		return;
	cth_count(r->ctx, RTSP_C_REPLIES);
	for (unsigned int i = 0; i < n && r->verdict == CTH_VERDICT_ACCEPT; i++)
		rtsp_reply_spec(r, &specs[i]);
}

/* ------------------------------------------------------------ descriptor */

/* State of the right version with bits this layout never sets is corrupt:
 * the host zeroes it. */
static bool rtsp_priv_valid(const void *state)
{
	const struct rtsp_priv *priv = state;

	return priv->reserved == 0 && priv->next_remap < RTSP_REMAP_SLOTS &&
	       !(priv->flags & ~RTSP_PRIV_FLAGS);
}

static const struct cth_key rtsp_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct rtsp_config, ports),
		.def = "554",
		.doc = "server ports the helper reads (cthelperd --print-rules attaches it there)",
	},
	{
		.name = "max_message",
		.type = CTH_KEY_UINT,
		.offset = offsetof(struct rtsp_config, max_message),
		.min = 256,
		.max = 16384,
		.def = "4096",
		.doc = "most bytes of one message's start line and headers read (and kept "
		       "across segments); a longer message opens nothing",
	},
	{
		.name = "third_party",
		.type = CTH_KEY_BOOL,
		.offset = offsetof(struct rtsp_config, third_party),
		.def = "no",
		.doc = "yes: a destination naming another host than the client is expected too",
	},
	{
		.name = "reverse",
		.type = CTH_KEY_BOOL,
		.offset = offsetof(struct rtsp_config, reverse),
		.def = "yes",
		.doc = "also expect the client's RTP/RTCP to the server_port of the SETUP reply",
	},
};

static const struct cth_counter rtsp_counters[RTSP_C_COUNT] = {
	[RTSP_C_SETUPS] = { "setups", "SETUP requests parsed" },
	[RTSP_C_REPLIES] = { "replies", "2xx SETUP replies parsed" },
	[RTSP_C_EXPECTATIONS] = { "expectations", "expectations asked for (RTP and RTCP each)" },
	[RTSP_C_EXPECT_ERRORS] = { "expect_errors", "transports whose expectations could not be "
						    "created (message dropped or passed)" },
	[RTSP_C_TEARDOWNS] = { "teardowns", "TEARDOWN requests: unused expectations flushed" },
	[RTSP_C_INTERLEAVED] = { "interleaved", "transports carried on the RTSP connection: "
						"nothing to expect" },
	[RTSP_C_NAT_REWRITES] = { "nat_rewrites", "messages rewritten under NAT" },
	[RTSP_C_UNTRANSLATED] = { "untranslated", "transports whose NAT rewrite fell in bytes "
						  "already forwarded: passed untranslated, nothing opened" },
	[RTSP_C_THIRD_PARTY] = { "third_party", "transports naming another host, refused "
						"(third_party = no)" },
	[RTSP_C_OVERSIZED] = { "oversized", "messages over max_message: not read" },
	[RTSP_C_MALFORMED] = { "malformed", "garbage, bad Transport or ports: nothing opened" },
};

/*
 * No match rules (issue 34): a direction that carries interleaved '$'
 * frames holds binary data, which may hold any text at a line start (a
 * hostile server's "RTSP/1.0 200 ... server_port=" inside a frame).  The
 * plugin tells frames from messages only by following the stream
 * (rtsp_skip_start()); a filtering kernel module that skipped the frame's
 * first segment would show it the second one alone, read as a message:
 * cthelper-replay --filter on tests/replay/cases/rtsp/interleaved creates
 * two expectations from a frame's text.  Its state has no room for the
 * stream position that would let it notice the skip, so every packet is
 * queued (docs/plugins/rtsp.md).
 */
CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "rtsp",
	.version = "1.0.0",
	.description = "RTSP: RTP/RTCP of SETUP transports, interleaved data skipped, NAT",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct rtsp_priv),
	.config_size = sizeof(struct rtsp_config),
	.n_classes = 1,
	/* a few tracks per session, each RTP + RTCP both ways; the time
	 * from SETUP to PLAY's first packet */
	.classes = { [RTSP_CLASS_MEDIA] = { .name = "media", .max = 32, .timeout = 300 } },
	.packet = rtsp_packet,
	.keys = rtsp_keys,
	.n_keys = sizeof(rtsp_keys) / sizeof(rtsp_keys[0]),
	.counters = rtsp_counters,
	.n_counters = RTSP_C_COUNT,
	.priv_version = RTSP_PRIV_VERSION,
	.priv_version_at = offsetof(struct rtsp_priv, version),
	.priv_valid = rtsp_priv_valid,
};
