/* SPDX-License-Identifier: MIT */
/*
 * SIP helper plugin: media expectations from SDP offers and answers,
 * registrations that let incoming calls reach a registered phone, and the
 * NAT rewrite of both, over UDP and TCP, IPv4 and IPv6.  The reference is
 * the kernel's nf_conntrack_sip + nf_nat_sip; behaviour and deliberate
 * differences are in docs/plugins/sip.md.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sip.h"

/* The keys and their defaults: the kernel's (nf_conntrack_sip's
 * sip_direct_media, sip_direct_signalling, sip_timeout and ports, the
 * last one SIP_DEFAULT_PORT). */
static const struct cth_key sip_keys[] = {
	{
		.name = "sip_direct_media", .type = CTH_KEY_BOOL,
		.offset = offsetof(struct sip_config, direct_media), .def = "yes",
		.doc = "expect media only from the other signalling peer, for an SDP "
		       "address that is the sender's own",
	},
	{
		.name = "sip_direct_signalling", .type = CTH_KEY_BOOL,
		.offset = offsetof(struct sip_config, direct_signalling), .def = "yes",
		.doc = "a registered phone may be called only from its registrar's address",
	},
	{
		/* the kernel's SIP_TIMEOUT by default; it counts conntrack
		 * timeouts in 32-bit jiffies */
		.name = "sip_timeout", .type = CTH_KEY_UINT,
		.offset = offsetof(struct sip_config, timeout),
		.min = 1, .max = 604800, .def = "3600",
		.doc = "conntrack timeout of UDP signalling flows at each message, seconds",
	},
	{
		.name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct sip_config, ports), .max = SIP_PORTS_MAX,
		.def = "5060",
		.doc = "signalling ports parsed (calls a registration expected always are); "
		       "cthelperd --print-rules attaches the helper to them",
	},
};

/* What the host counts per helper already (expectations refused,
 * rewritten packets) is not counted again. */
static const struct cth_counter sip_counters[] = {
	[SIP_CNT_REQUESTS] = { .name = "requests", .help = "SIP requests parsed" },
	[SIP_CNT_RESPONSES] = { .name = "responses", .help = "SIP responses parsed" },
	[SIP_CNT_MEDIA_EXPECTATIONS] = {
		.name = "media_expectations",
		.help = "RTP and RTCP expectations from SDP",
	},
	[SIP_CNT_REGISTRATIONS] = {
		.name = "registrations",
		.help = "expectations for calls to a registering phone",
	},
	[SIP_CNT_NAT_REWRITES] = {
		.name = "nat_rewrites",
		.help = "messages whose headers or SDP were rewritten under NAT",
	},
	[SIP_CNT_PARSE_ERRORS] = {
		.name = "parse_errors",
		.help = "payloads that do not frame as SIP, and messages dropped without a valid CSeq",
	},
};

static bool sip_port_listed(const struct sip_config *cfg, uint16_t port)
{
	for (unsigned int i = 0; i < cfg->ports.n; i++)
		if (cfg->ports.port[i] == port)
			return true;
	return false;
}

/* ----------------------------------------------------------- REGISTER */

/* Expires: header, overridden by a Contact's expires= parameter. */
static bool sip_expires(const struct sip_msg *m, const struct sip_uri *u,
			uint32_t *expires)
{
	struct sip_span v;
	size_t pos = 0, used;

	if (u->has_expires) {
		*expires = u->expires;
		return true;
	}
	if (sip_hdr_find(m, &sip_hdr_expires, &pos, &v) == 1 &&
	    cth_parse_uint(m->buf + v.off, v.len, UINT32_MAX, expires, &used) == 0)
		return true;
	return false;
}

static void sip_reg_exp_init(struct sip_ctx *s, struct cth_expect *exp,
			     const union cth_addr *registrar, uint8_t proto,
			     const union cth_addr *dst, uint16_t port)
{
	memset(exp, 0, sizeof(*exp));
	exp->class = SIP_CLASS_SIGNALLING;
	/* helped: the incoming INVITE's SDP must be seen too */
	exp->flags = CTH_EXPECT_PERMANENT | CTH_EXPECT_HELPER;
	exp->family = (uint8_t)s->family;
	exp->proto = proto;
	exp->dport = port;
	cth_addr_copy(s->family, &exp->dst, dst);
	if (!s->cfg->direct_signalling)
		exp->flags |= CTH_EXPECT_ANY_SRC;
	else
		cth_addr_copy(s->family, &exp->src, registrar);
}

/* Under NAT the registrar is told the contact it can reach: the reverse
 * tuple's destination, on the signalling port NAT gave this flow when
 * the phone registers the port it sends from, else a free one. */
static int sip_register_nat(struct sip_ctx *s, struct cth_expect *exp,
			    const struct sip_uri *u)
{
	char text[SIP_FORMAT_MAX];
	int ret, n;

	exp->flags |= CTH_EXPECT_NAT;
	exp->nat_dir = s->dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	cth_addr_copy(s->family, &exp->nat_addr, &u->hp.addr);
	exp->nat_port = u->hp.port;
	exp->fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
	cth_addr_copy(s->family, &exp->dst, &s->rev->dst);
	ret = cth_expect_free_port(s->ctx, exp,
				   u->hp.port == s->own->sport ? s->rev->dport : u->hp.port,
				   SIP_NAT_PORT_TRIES);
	if (ret < 0)
		return ret;
	n = sip_format_hostport(s->family, &s->rev->dst, exp->dport, true, true,
				text, sizeof(text));
	if (n < 0)
		return n;
	ret = sip_nat_edit(s, u->hp.span, text, (size_t)n);
	s->done = u->hp.span;
	/* the registrar will not learn this contact: like nf_nat_sip_expect,
	 * take the expectation back */
	if (ret < 0 && cth_expect_ctl(s->ctx, CTH_EXPECT_OP_REMOVE, exp) < 0)
		cth_log(s->ctx, CTH_LOG_INFO, "cannot take back the registration's expectation");
	return ret;
}

/*
 * A phone registering itself: its Contact may receive calls from the
 * registrar, so a permanent signalling expectation waits, inactive until
 * the registrar's 2xx grants the binding (sip_register_response()).
 */
static int sip_register_request(struct sip_ctx *s, uint32_t cseq)
{
	struct cth_expect exp;
	struct sip_span v;
	struct sip_uri u;
	size_t pos = 0, next;
	uint32_t expires = SIP_EXPIRES_DEFAULT;
	int ret;

	/* an expected connection keeps no state: it cannot register again */
	if (s->pkt->ct_status & CTH_CT_EXPECTED)
		return CTH_VERDICT_ACCEPT;
	if (sip_hdr_find(s->m, &sip_hdr_contact, &pos, &v) != 1)
		return CTH_VERDICT_ACCEPT;
	ret = sip_uri_parse(s->m->buf, v, s->family, &u, &next);
	if (ret <= 0 || !cth_addr_equal(s->family, &u.hp.addr, &s->own->src)) {
		cth_log(s->ctx, CTH_LOG_DEBUG, "REGISTER: no contact of the sender's (%d)", ret);
		return CTH_VERDICT_ACCEPT;     /* a third-party registration */
	}
	sip_expires(s->m, &u, &expires);
	s->priv->register_cseq = cseq;
	s->priv->flags = (uint8_t)((s->priv->flags | SIP_PRIV_REGISTER) & ~SIP_PRIV_REG_NAT);
	if (expires == 0)
		return CTH_VERDICT_ACCEPT;     /* removed when the 2xx says so */
	sip_reg_exp_init(s, &exp, &s->rev->src, u.transport ? u.transport : s->own->proto,
			 &u.hp.addr, u.hp.port);
	s->priv->reg_proto = exp.proto;
	s->priv->reg_port = u.hp.port;
	exp.flags |= CTH_EXPECT_INACTIVE;
	if (s->nat && !cth_addr_equal(s->family, &s->own->src, &s->rev->dst)) {
		s->priv->flags |= SIP_PRIV_REG_NAT;
		ret = sip_register_nat(s, &exp, &u);
	} else {
		ret = cth_expect(s->ctx, &exp, 0);
	}
	if (ret < 0) {
		cth_log_addr(s->ctx, CTH_LOG_INFO, "REGISTER: cannot expect calls to", s->family,
			     &u.hp.addr, u.hp.port);
		return CTH_VERDICT_DROP;
	}
	cth_count(s->ctx, SIP_CNT_REGISTRATIONS);
	return CTH_VERDICT_ACCEPT;
}

static void sip_register_flush(struct sip_ctx *s)
{
	struct cth_expect sel = { .class = SIP_CLASS_SIGNALLING };
	int ret = cth_expect_ctl(s->ctx, CTH_EXPECT_OP_FLUSH, &sel);

	if (ret < 0)
		cth_log(s->ctx, CTH_LOG_INFO, "cannot remove the registration's expectation (%d)", ret);
}

/* Activate the registration's expectation for the granted time. */
static bool sip_register_refresh(struct sip_ctx *s, const struct sip_uri *u,
				 uint32_t expires)
{
	const struct sip_priv *priv = s->priv;
	struct cth_expect exp;
	int ret;

	/* the contact as the registrar echoes it: this response's destination */
	sip_reg_exp_init(s, &exp, &s->own->src, priv->reg_proto, &u->hp.addr, u->hp.port);
	/* the state is the kernel's copy and may be stale or corrupt: NAT is
	 * asked for only where this connection has it */
	if ((priv->flags & SIP_PRIV_REG_NAT) && s->nat) {
		exp.flags |= CTH_EXPECT_NAT;
		exp.nat_dir = s->dir;
		cth_addr_copy(s->family, &exp.nat_addr, &s->rev->src);
		exp.nat_port = priv->reg_port;
		exp.fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
	}
	exp.timeout = expires;
	ret = cth_expect_ctl(s->ctx, CTH_EXPECT_OP_REFRESH, &exp);
	if (ret < 0) {
		cth_log_addr(s->ctx, CTH_LOG_INFO, "registration: no expectation for", s->family,
			     &u->hp.addr, u->hp.port);
		return false;
	}
	return true;
}

/*
 * The registrar's answer to the REGISTER last seen: a 2xx echoing the
 * phone's contact with a non-zero expiry makes the expectation usable for
 * that long; anything else final (expiry 0, a failure, another contact)
 * removes it.
 */
static int sip_register_response(struct sip_ctx *s, uint32_t cseq)
{
	const struct sip_msg *m = s->m;
	struct sip_uri_iter it = { 0 };
	struct sip_uri u;
	int parsed;

	if (!(s->priv->flags & SIP_PRIV_REGISTER) || s->priv->register_cseq != cseq ||
	    m->code < 200)
		return CTH_VERDICT_ACCEPT;
	while (m->code <= 299 &&
	       sip_uri_next(m, &sip_hdr_contact, s->family, &it, &u, &parsed)) {
		uint32_t expires = SIP_EXPIRES_DEFAULT;

		if (parsed != 1 || !cth_addr_equal(s->family, &u.hp.addr, &s->own->dst) ||
		    (u.transport ? u.transport : s->own->proto) != s->priv->reg_proto)
			continue;
		sip_expires(m, &u, &expires);
		if (expires == 0)
			break;
		if (sip_register_refresh(s, &u, expires))
			return CTH_VERDICT_ACCEPT;
	}
	sip_register_flush(s);
	return CTH_VERDICT_ACCEPT;
}

/* ----------------------------------------------------------- dispatch */

static int sip_request(struct sip_ctx *s)
{
	enum sip_method cm;
	uint32_t cseq;
	int verdict;

	/* like the kernel, only the methods handled need a CSeq: another
	 * request without one is the peer's problem, not a firewall's */
	if (s->m->method == SIP_M_OTHER || s->m->method == SIP_M_CANCEL)
		return CTH_VERDICT_ACCEPT;
	if (sip_cseq_parse(s->m, &cseq, &cm) < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "%s without a valid CSeq, dropped",
			sip_method_name(s->m->method));
		cth_count(s->ctx, SIP_CNT_PARSE_ERRORS);
		return CTH_VERDICT_DROP;
	}
	switch (s->m->method) {
	case SIP_M_INVITE:
		/* a re-INVITE replaces its dialog's media.  An initial one (no
		 * To tag) has none yet: a flush would only take the media of
		 * the other dialogs on the flow, as the kernel's helper does
		 * (a trunk's calls then lose their media to the next call's
		 * INVITE).  A retransmission asks for its first copy's
		 * expectations again and gets them, NAT port included
		 * (docs/architecture.md, "Retransmissions under NAT"). */
		if (sip_to_tagged(s->m))
			sip_media_flush(s);
		verdict = sip_media_handle(s);
		if (verdict == CTH_VERDICT_ACCEPT) {
			s->priv->invite_cseq = cseq;
			s->priv->flags |= SIP_PRIV_INVITE;
		}
		return verdict;
	case SIP_M_UPDATE:
	case SIP_M_ACK:
	case SIP_M_PRACK:
		return sip_media_handle(s);
	case SIP_M_BYE:
		sip_media_flush(s);
		return CTH_VERDICT_ACCEPT;
	case SIP_M_REGISTER:
		return sip_register_request(s, cseq);
	default:
		return CTH_VERDICT_ACCEPT;
	}
}

static int sip_response(struct sip_ctx *s)
{
	enum sip_method cm;
	uint32_t cseq;

	if (sip_cseq_parse(s->m, &cseq, &cm) < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "%u response without a valid CSeq, dropped",
			s->m->code);
		cth_count(s->ctx, SIP_CNT_PARSE_ERRORS);
		return CTH_VERDICT_DROP;
	}
	switch (cm) {
	case SIP_M_INVITE:
	case SIP_M_UPDATE:
	case SIP_M_PRACK:
		if (s->m->code <= 299)
			return sip_media_handle(s);
		/* the call (or its change) failed: its media will not come;
		 * a CANCELled INVITE ends here too, with its 487 */
		if ((s->priv->flags & SIP_PRIV_INVITE) && s->priv->invite_cseq == cseq)
			sip_media_flush(s);
		return CTH_VERDICT_ACCEPT;
	case SIP_M_REGISTER:
		return sip_register_response(s, cseq);
	default:
		return CTH_VERDICT_ACCEPT;
	}
}

/* One message: handle it, then translate its headers.  A cth_verdict. */
static int sip_message(struct sip_ctx *s)
{
	int verdict;

	s->body_delta = 0;
	s->done.len = 0;
	s->edited = false;
	s->flushed = false;
	cth_count(s->ctx, s->m->request ? SIP_CNT_REQUESTS : SIP_CNT_RESPONSES);
	verdict = s->m->request ? sip_request(s) : sip_response(s);
	if (verdict != CTH_VERDICT_ACCEPT || !s->nat)
		return verdict;
	verdict = sip_nat_headers(s);
	if (verdict == CTH_VERDICT_ACCEPT && sip_nat_clen(s) < 0) {
		cth_log(s->ctx, CTH_LOG_INFO, "cannot rewrite Content-Length");
		return CTH_VERDICT_DROP;
	}
	if (verdict == CTH_VERDICT_ACCEPT && s->edited)
		cth_count(s->ctx, SIP_CNT_NAT_REWRITES);
	return verdict;
}

/*
 * A TCP segment that ends inside a message: the host shows its start again
 * in front of the next segment (the kernel skips such a message).
 */
static void sip_keep(struct sip_ctx *s, size_t off)
{
	int ret;

	if (s->own->proto != IPPROTO_TCP)
		return;
	ret = cth_keep(s->ctx, off);
	cth_log(s->ctx, ret < 0 ? CTH_LOG_INFO : CTH_LOG_DEBUG,
		"message continues in the next segment%s (%d)",
		ret < 0 ? ", not kept: skipped" : ": kept", ret);
}

/* Every message of the payload (TCP may carry several). */
static int sip_messages(struct sip_ctx *s)
{
	const struct cth_packet *pkt = s->pkt;
	bool stream = s->own->proto == IPPROTO_TCP;
	size_t kept = cth_kept(s->ctx, pkt), off = 0;
	struct sip_msg m;
	int ret, verdict;

	while (off < pkt->payload_len) {
		off += sip_skip_crlf(pkt->payload + off, pkt->payload_len - off);
		if (off == pkt->payload_len)
			break;
		ret = sip_msg_parse(pkt->payload + off, pkt->payload_len - off, stream, &m);
		if (ret == -EAGAIN) {
			sip_keep(s, off);
			break;
		}
		if (ret < 0) {
			/* not SIP (or a body we cannot delimit): the rest of the
			 * segment cannot be framed either */
			cth_log(s->ctx, CTH_LOG_DEBUG, "not a SIP message at offset %zu", off);
			cth_count(s->ctx, SIP_CNT_PARSE_ERRORS);
			break;
		}
		s->m = &m;
		s->base = off;
		/* its start went out with an earlier segment: it cannot be
		 * rewritten, and half a translation is worse than none (the
		 * kernel does not see such a message at all) */
		if (s->nat && off < kept) {
			cth_log(s->ctx, CTH_LOG_INFO, "message split across segments under NAT: "
				"passed untranslated");
			off += m.len;
			continue;
		}
		verdict = sip_message(s);
		if (verdict != CTH_VERDICT_ACCEPT)
			return verdict;
		if (!stream)
			break;
		off += m.len;
	}
	return CTH_VERDICT_ACCEPT;
}

static bool sip_packet_wanted(const struct cth_packet *pkt,
			      const struct sip_config *cfg)
{
	const struct cth_tuple *orig = &pkt->tuple[CTH_DIR_ORIGINAL];

	if (pkt->dir != CTH_DIR_ORIGINAL && pkt->dir != CTH_DIR_REPLY)
		return false;
	if (orig->family != AF_INET && orig->family != AF_INET6)
		return false;
	if (orig->proto == IPPROTO_TCP) {
		if (pkt->ctinfo != CTH_CT_ESTABLISHED &&
		    pkt->ctinfo != CTH_CT_ESTABLISHED_REPLY)
			return false;
	} else if (orig->proto != IPPROTO_UDP) {
		return false;
	}
	/* a registration's expected call arrives on the contact's port */
	if (!(pkt->ct_status & CTH_CT_EXPECTED) && !sip_port_listed(cfg, orig->dport))
		return false;
	return pkt->payload != NULL && pkt->payload_len != 0;
}

/* State of the right version (the host checks that) with bits or bytes
 * this layout never sets is corrupt: the host zeroes it.  A
 * registration's protocol is none yet or one an expectation can name: a
 * refresh must never ask the host for an impossible one. */
static bool sip_priv_valid(const void *state)
{
	const struct sip_priv *priv = state;

	return !priv->reserved && !priv->reserved2 &&
	       !(priv->flags & ~(SIP_PRIV_INVITE | SIP_PRIV_REGISTER | SIP_PRIV_REG_NAT)) &&
	       (priv->reg_proto == 0 || priv->reg_proto == IPPROTO_TCP ||
		priv->reg_proto == IPPROTO_UDP);
}

/* The state is copied so the host need not align it for uint32_t. */
static int sip_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv_state, const void *config)
{
	const struct sip_config *cfg = config;
	enum cth_dir rdir = pkt->dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	struct sip_priv priv;
	struct sip_ctx s = {
		.ctx = ctx,
		.pkt = pkt,
		.priv = &priv,
		.cfg = cfg,
		.family = pkt->tuple[CTH_DIR_ORIGINAL].family,
		.dir = pkt->dir,
		.own = &pkt->tuple[pkt->dir],
		.rev = &pkt->tuple[rdir],
		.nat = (pkt->nat & (CTH_NAT_SRC | CTH_NAT_DST)) != 0,
	};
	int verdict;

	if (!sip_packet_wanted(pkt, cfg))
		return CTH_VERDICT_ACCEPT;
	memcpy(&priv, priv_state, sizeof(priv));
	/* like the kernel: a UDP signalling flow lives as long as calls do */
	if (s.own->proto == IPPROTO_UDP && !(pkt->ct_status & CTH_CT_EXPECTED) &&
	    cth_set_timeout(ctx, cfg->timeout) < 0)
		cth_log(ctx, CTH_LOG_DEBUG, "cannot set the flow's timeout");
	verdict = sip_messages(&s);
	memcpy(priv_state, &priv, sizeof(priv));
	return verdict;
}

/*
 * What the plugin acts on without NAT (issue 34), each at a line start so
 * that the second message of a TCP segment counts too: the requests that
 * change media or a registration (INVITE, BYE, REGISTER), the final
 * responses (2xx grant a registration or answer with SDP; 3xx-6xx end a
 * call's or a registration's expectations), and any message with an SDP
 * body, found by its m= and c= lines (ACK, UPDATE, PRACK, a 183's early
 * media).  Provisional responses without SDP, CANCEL (its 487 flushes),
 * OPTIONS and the other methods, and keep-alives change nothing here: a
 * basic call is 4 of its 6 messages.  Under NAT it rewrites Via and
 * Contact of every message: CTH_MATCH_NAT_ALL queues every packet with
 * payload then.
 */
#define SIP_RULE(p) { .prefix = p, .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_BOTH }
static const struct cth_match sip_match[] = {
	SIP_RULE("INVITE "),
	SIP_RULE("BYE "),
	SIP_RULE("REGISTER "),
	SIP_RULE("SIP/2.0 2"),
	SIP_RULE("SIP/2.0 3"),
	SIP_RULE("SIP/2.0 4"),
	SIP_RULE("SIP/2.0 5"),
	SIP_RULE("SIP/2.0 6"),
	SIP_RULE("m="),
	SIP_RULE("c="),
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "sip",
	.version = "1.0.0",
	.description = "SIP: media from SDP, registrations, NAT (UDP, TCP)",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct sip_priv),
	.config_size = sizeof(struct sip_config),
	.n_classes = 4,
	/* the kernel's sip_exp_policy: per master, both directions' media */
	.classes = {
		[SIP_CLASS_SIGNALLING] = { .name = "signalling", .max = 1, .timeout = 180 },
		[SIP_CLASS_AUDIO] = { .name = "audio", .max = 4, .timeout = 180 },
		[SIP_CLASS_VIDEO] = { .name = "video", .max = 4, .timeout = 180 },
		[SIP_CLASS_IMAGE] = { .name = "image", .max = 2, .timeout = 180 },
	},
	.packet = sip_packet,
	.keys = sip_keys,
	.n_keys = sizeof(sip_keys) / sizeof(sip_keys[0]),
	.counters = sip_counters,
	.n_counters = sizeof(sip_counters) / sizeof(sip_counters[0]),
	.priv_version = SIP_PRIV_VERSION,
	.priv_version_at = offsetof(struct sip_priv, version),
	.priv_valid = sip_priv_valid,
	.match = sip_match,
	.n_match = sizeof(sip_match) / sizeof(sip_match[0]),
	.match_flags = CTH_MATCH_NAT_ALL,
};
