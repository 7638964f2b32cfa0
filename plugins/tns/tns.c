/* SPDX-License-Identifier: MIT */
/*
 * Oracle TNS helper plugin: a listener answering a CONNECT with a REDIRECT
 * names the address and port the client must connect to next; this lets
 * that connection through the firewall and, under NAT, rewrites the
 * descriptor and the TNS lengths so the client is sent where it can
 * connect.  Only the server's packets are read.  Behaviour and the
 * differences from conntrackd's tns helper are in docs/plugins/tns.md.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "tns.h"

static const struct cth_key tns_keys[] = {
	{
		.name = "tns_detach", .type = CTH_KEY_BOOL,
		.offset = offsetof(struct tns_config, detach), .def = "yes",
		.doc = "stop queueing a connection once redirected or accepted",
	},
	{
		.name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct tns_config, ports), .def = "1521",
		.doc = "listener ports cthelperd --print-rules attaches the helper to "
		       "(rule_ports overrides; the plugin does not filter by port)",
	},
};

/* What the host counts per helper already (expectations refused,
 * rewritten packets, detaches) is not counted again. */
static const struct cth_counter tns_counters[] = {
	[TNS_CNT_REDIRECTS] = { .name = "redirects", .help = "REDIRECT packets read" },
	[TNS_CNT_EXPECTATIONS] = {
		.name = "expectations",
		.help = "connections to a redirect target expected",
	},
	[TNS_CNT_HOST_NAMES] = {
		.name = "host_names",
		.help = "redirects to a host name, not an address: nothing expected",
	},
	[TNS_CNT_PARSE_ERRORS] = {
		.name = "parse_errors",
		.help = "server segments whose TNS framing was lost",
	},
};

/* Sequence comparison modulo 2^32, as TCP does it. */
static bool tns_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* State of the right version (the host checks that) with bits or bytes
 * this layout never sets is corrupt: the host zeroes it. */
static bool tns_priv_valid(const void *state)
{
	const struct tns_priv *priv = state;

	return priv->reserved == 0 &&
	       !(priv->flags & ~(TNS_PRIV_DATA_NEXT | TNS_PRIV_SYNC | TNS_PRIV_DATA_SEQ));
}

/* Framing that puts the stream inside a packet longer than any header
 * can announce was not written by this plugin: it is dropped, and the
 * next segment is read as starting a packet. */
static void tns_priv_sane(struct tns_priv *priv)
{
	if ((priv->flags & TNS_PRIV_SYNC) && priv->next_seq - priv->pkt_start > TNS_FRAME_MAX)
		priv->flags &= (uint8_t)~TNS_PRIV_SYNC;
}

/* Only the server redirects; like conntrackd, only once the connection
 * is established both ways.  An expected connection keeps no state. */
static bool tns_packet_wanted(const struct cth_packet *pkt)
{
	const struct cth_tuple *orig = &pkt->tuple[CTH_DIR_ORIGINAL];

	if (pkt->dir != CTH_DIR_REPLY || pkt->ctinfo != CTH_CT_ESTABLISHED_REPLY)
		return false;
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return false;
	if (orig->proto != IPPROTO_TCP)
		return false;
	if (orig->family != AF_INET && orig->family != AF_INET6)
		return false;
	return pkt->payload != NULL && pkt->payload_len != 0;
}

/* Addresses no connection goes to: nothing to expect. */
static bool tns_addr_usable(int family, const union cth_addr *a)
{
	static const union cth_addr any;

	if (cth_addr_equal(family, a, &any))
		return false;
	if (family == AF_INET)
		return (a->raw[0] & 0xf0) != 0xe0 && a->ip != 0xffffffffu;
	return a->raw[0] != 0xff;
}

/* ------------------------------------------------------------ redirect */

/* The descriptor at t->desc_off.  A cth_verdict; *expected tells whether
 * the redirect was handled (an expectation created). */
static int tns_redirect(struct tns_ctx *t, bool *expected)
{
	const uint8_t *desc = t->pkt->payload + t->desc_off;
	const char *what = tns_type_name(t->hdr.type);
	struct cth_expect exp;
	struct tns_addr a;
	bool own;
	int ret;

	ret = tns_desc_parse(desc, t->desc_len, &a);
	if (ret <= 0) {
		cth_log(t->ctx, CTH_LOG_DEBUG, "%s: no TCP address in the descriptor (%d)", what, ret);
		return CTH_VERDICT_ACCEPT;
	}
	if (a.family == 0) {
		/* resolving it here would be slow and could disagree with the
		 * client's resolver: the name is reported, nothing expected */
		cth_log(t->ctx, CTH_LOG_INFO, "%s to host name %.*s port %u: nothing expected",
			what, (int)(a.host.len < 64 ? a.host.len : 64),
			(const char *)desc + a.host.off, (unsigned int)a.port_val);
		cth_count(t->ctx, TNS_CNT_HOST_NAMES);
		return CTH_VERDICT_ACCEPT;
	}
	if (a.family != t->family || !tns_addr_usable(a.family, &a.addr)) {
		cth_log_addr(t->ctx, CTH_LOG_INFO, "REDIRECT: not expecting", a.family, &a.addr,
			     a.port_val);
		return CTH_VERDICT_ACCEPT;
	}
	/* from the client (any port) to the target: the address it
	 * dialled when that is the redirecting server itself */
	own = cth_expect_to(&exp, t->pkt, TNS_CLASS_REDIRECT, IPPROTO_TCP, &a.addr, a.port_val);
	if (t->nat)
		return tns_nat_redirect(t, &a, &exp, own, expected);
	/* like conntrackd: the client would fail to follow the redirect */
	ret = cth_expect(t->ctx, &exp, 0);
	if (ret < 0) {
		cth_log_addr(t->ctx, CTH_LOG_INFO, "REDIRECT: cannot expect", a.family, &a.addr,
			     a.port_val);
		return cth_expect_verdict(ret);
	}
	*expected = true;
	return CTH_VERDICT_ACCEPT;
}

/* A REDIRECT: its descriptor follows, or comes in the next DATA packet. */
static int tns_redirect_packet(struct tns_ctx *t, const uint8_t *p, bool *expected)
{
	uint32_t dlen;

	cth_count(t->ctx, TNS_CNT_REDIRECTS);
	t->priv->flags &= (uint8_t)~TNS_PRIV_DATA_NEXT;
	if (t->hdr.len < TNS_REDIRECT_BODY) {
		cth_log(t->ctx, CTH_LOG_DEBUG, "REDIRECT of %u bytes ignored", t->hdr.len);
		return CTH_VERDICT_ACCEPT;
	}
	dlen = tns_get16(p + TNS_HDR_LEN);
	if (dlen == 0) {
		t->priv->flags |= TNS_PRIV_DATA_NEXT;
		return CTH_VERDICT_ACCEPT;
	}
	if (dlen > t->hdr.len - TNS_REDIRECT_BODY) {
		cth_log(t->ctx, CTH_LOG_INFO, "REDIRECT: data length %u beyond its %u bytes, ignored",
			dlen, t->hdr.len);
		return CTH_VERDICT_ACCEPT;
	}
	t->redirect = true;
	t->desc_off = t->off + TNS_REDIRECT_BODY;
	t->desc_len = dlen;
	return tns_redirect(t, expected);
}

/* A DATA packet: the descriptor only right after an empty REDIRECT, or
 * when it is that packet again (a retransmission must be rewritten the
 * same way). */
static int tns_data_packet(struct tns_ctx *t, uint32_t seq, bool *expected)
{
	struct tns_priv *priv = t->priv;

	if (priv->flags & TNS_PRIV_DATA_NEXT) {
		priv->flags = (uint8_t)((priv->flags & ~TNS_PRIV_DATA_NEXT) | TNS_PRIV_DATA_SEQ);
		priv->data_seq = seq;
	} else if (!(priv->flags & TNS_PRIV_DATA_SEQ) || priv->data_seq != seq) {
		return CTH_VERDICT_ACCEPT;
	}
	if (t->hdr.len < TNS_DATA_BODY)
		return CTH_VERDICT_ACCEPT;
	t->redirect = false;
	t->desc_off = t->off + TNS_DATA_BODY;
	t->desc_len = t->hdr.len - TNS_DATA_BODY;
	return tns_redirect(t, expected);
}

/* One whole packet at t->off, its header in t->hdr; seq is its first
 * byte's sequence number.  A cth_verdict. */
static int tns_packet_one(struct tns_ctx *t, uint32_t seq, bool *expected)
{
	const uint8_t *p = t->pkt->payload + t->off;

	switch (t->hdr.type) {
	case TNS_TYPE_ACCEPT:
		/* the listener took the connection: no redirect can follow */
		t->accepted = true;
		t->priv->flags &= (uint8_t)~TNS_PRIV_DATA_NEXT;
		return CTH_VERDICT_ACCEPT;
	case TNS_TYPE_REDIRECT:
		return tns_redirect_packet(t, p, expected);
	case TNS_TYPE_DATA:
		return tns_data_packet(t, seq, expected);
	default:
		/* conntrackd's rule: only the very next packet */
		t->priv->flags &= (uint8_t)~TNS_PRIV_DATA_NEXT;
		return CTH_VERDICT_ACCEPT;
	}
}

/* ------------------------------------------------------------ framing */

/*
 * Where the segment's first packet header is: the payload (kept bytes
 * included) starts at sequence number s0.  SIZE_MAX: nowhere, the segment
 * lies inside a packet that started earlier.
 */
static size_t tns_seg_start(const struct tns_priv *priv, uint32_t s0, size_t len)
{
	uint32_t d = priv->next_seq - s0;

	if (!(priv->flags & TNS_PRIV_SYNC) || d == 0)
		return 0;
	/* bytes went by unseen: take the segment as starting a packet */
	if ((int32_t)d < 0)
		return 0;
	/* a retransmission from a packet start (or before): read it again */
	if (!tns_seq_after(s0, priv->pkt_start))
		return 0;
	return d < len ? d : SIZE_MAX;
}

/* Was the byte at seq framed already (it comes again)? */
static bool tns_framed(const struct tns_priv *priv, uint32_t seq)
{
	return (priv->flags & TNS_PRIV_SYNC) && tns_seq_after(priv->next_seq, seq);
}

/* The server's stream is framed up to next; a retransmission read again
 * never moves it back. */
static void tns_sync(struct tns_priv *priv, uint32_t start, uint32_t next)
{
	if (tns_framed(priv, next))
		return;
	priv->flags |= TNS_PRIV_SYNC;
	priv->next_seq = next;
	priv->pkt_start = start;
}

/* Does the rest of this packet matter?  A REDIRECT, or the DATA packet
 * that may carry its descriptor. */
static bool tns_packet_matters(const struct tns_ctx *t)
{
	return t->hdr.type == TNS_TYPE_REDIRECT ||
	       (t->hdr.type == TNS_TYPE_DATA && (t->priv->flags & TNS_PRIV_DATA_NEXT));
}

/*
 * A packet that goes on in the next segment: when it matters, the host
 * shows this part again in front of it (cth_keep()).  True when kept.
 */
static bool tns_keep(struct tns_ctx *t, size_t need)
{
	int ret;

	if (!tns_packet_matters(t) && need >= TNS_HDR_LEN)
		return false;
	if (need > TNS_KEEP_MAX) {
		cth_log(t->ctx, CTH_LOG_INFO, "%s of %zu bytes across segments: not kept, ignored",
			tns_type_name(t->hdr.type), need);
		return false;
	}
	ret = cth_keep(t->ctx, t->off);
	cth_log(t->ctx, ret < 0 ? CTH_LOG_INFO : CTH_LOG_DEBUG,
		"TNS packet continues in the next segment%s (%d)",
		ret < 0 ? ", not kept: ignored" : ": kept", ret);
	return ret == 0;
}

/* Every packet of the server's segment.  A cth_verdict. */
static int tns_segment(struct tns_ctx *t, bool *expected)
{
	const struct cth_packet *pkt = t->pkt;
	uint32_t s0 = pkt->seq - (uint32_t)t->kept;
	size_t len = pkt->payload_len;
	int ret, verdict;

	t->off = tns_seg_start(t->priv, s0, len);
	if (t->off == SIZE_MAX)
		return CTH_VERDICT_ACCEPT;
	while (t->off < len) {
		uint32_t seq = s0 + (uint32_t)t->off;

		ret = tns_hdr_parse(pkt->payload + t->off, len - t->off, &t->hdr);
		if (ret == -EAGAIN) {
			/* a header cut short: its type is not known yet */
			t->hdr.type = 0;
			if (tns_keep(t, len - t->off))
				tns_sync(t->priv, seq, seq);
			else
				t->priv->flags &= (uint8_t)~TNS_PRIV_SYNC;
			break;
		}
		if (ret < 0) {
			cth_log(t->ctx, CTH_LOG_DEBUG, "not a TNS header at offset %zu", t->off);
			/* a retransmission re-cut at another place says nothing
			 * about the stream framed already */
			if (!tns_framed(t->priv, seq)) {
				t->priv->flags &= (uint8_t)~(TNS_PRIV_SYNC | TNS_PRIV_DATA_NEXT);
				cth_count(t->ctx, TNS_CNT_PARSE_ERRORS);
			}
			break;
		}
		if (t->hdr.len > len - t->off) {
			if (tns_keep(t, t->hdr.len)) {
				tns_sync(t->priv, seq, seq);
			} else {
				t->priv->flags &= (uint8_t)~TNS_PRIV_DATA_NEXT;
				tns_sync(t->priv, seq, seq + t->hdr.len);
			}
			break;
		}
		verdict = tns_packet_one(t, seq, expected);
		if (verdict != CTH_VERDICT_ACCEPT)
			return verdict;
		tns_sync(t->priv, seq, seq + t->hdr.len);
		t->off += t->hdr.len;
	}
	return CTH_VERDICT_ACCEPT;
}

/* The state is copied so the host need not align it for uint32_t; a
 * dropped packet leaves it as it was, for the retransmission. */
static int tns_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv_state, const void *config)
{
	const struct tns_config *cfg = config;
	struct tns_priv priv;
	struct tns_ctx t = {
		.ctx = ctx,
		.pkt = pkt,
		.priv = &priv,
		.family = pkt->tuple[CTH_DIR_ORIGINAL].family,
		.nat = (pkt->nat & (CTH_NAT_SRC | CTH_NAT_DST)) != 0,
	};
	bool expected = false;
	int verdict, ret;

	if (!tns_packet_wanted(pkt))
		return CTH_VERDICT_ACCEPT;
	t.kept = cth_kept(ctx, pkt);
	memcpy(&priv, priv_state, sizeof(priv));
	tns_priv_sane(&priv);
	verdict = tns_segment(&t, &expected);
	if (verdict != CTH_VERDICT_ACCEPT)
		return verdict;
	memcpy(priv_state, &priv, sizeof(priv));
	/* the redirect is followed on another connection, or the listener
	 * accepted this one: it has nothing more to say (the host keeps a
	 * pending expectation until it is used or expires) */
	if (expected)
		cth_count(ctx, TNS_CNT_EXPECTATIONS);
	if ((expected || t.accepted) && cfg->detach) {
		ret = cth_detach(ctx);
		if (ret < 0)
			cth_log(ctx, CTH_LOG_DEBUG, "cannot detach (%d)", ret);
	}
	return verdict;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "tns",
	.version = "1.0.0",
	.description = "Oracle TNS: REDIRECT to another address/port, NAT",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct tns_priv),
	.config_size = sizeof(struct tns_config),
	.n_classes = 1,
	/* the follow-up connection comes at once; a listener redirecting
	 * several clients over one connection does not exist, 4 leaves room
	 * for retransmitted or repeated redirects */
	.classes = {
		[TNS_CLASS_REDIRECT] = { .name = "redirect", .max = 4, .timeout = 60 },
	},
	.packet = tns_packet,
	.keys = tns_keys,
	.n_keys = sizeof(tns_keys) / sizeof(tns_keys[0]),
	.counters = tns_counters,
	.n_counters = sizeof(tns_counters) / sizeof(tns_counters[0]),
	.priv_version = TNS_PRIV_VERSION,
	.priv_version_at = offsetof(struct tns_priv, version),
	.priv_valid = tns_priv_valid,
};
