/* SPDX-License-Identifier: MIT */
/*
 * SLP helper plugin: the unicast answers to a multicast or broadcast
 * request of the Service Location Protocol (RFC 2608).  A user agent asks
 * 239.255.255.253 / ff02::116 / ff05::116, or its subnet's broadcast
 * address, from an ephemeral port, and each service or directory agent
 * answers with a unicast datagram from port 427 to that port: a
 * connection the firewall has never seen (the request's reply tuple names
 * the group).  The plugin expects those answers from the link's network.
 * Behaviour and the differences from conntrackd's slp helper are in
 * docs/plugins/slp.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "slp.h"
#include "slp_parse.h"

static bool slp_is_request(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const struct slp_config *cfg, const struct cth_link *link, bool known);
static bool slp_to_group(const struct cth_tuple *t);
static int slp_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
			      const struct slp_config *cfg, const struct cth_link *link);

static int slp_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv, const void *config)
{
	const struct slp_config *cfg = config;
	struct cth_link link;
	/* no link view (an older host): the rules decide the direction,
	 * and only the groups are known as such */
	bool known = cth_link(ctx, &link) != -EOPNOTSUPP;

	(void)priv;
	if (!slp_is_request(ctx, pkt, cfg, &link, known))
		return CTH_VERDICT_ACCEPT;
	return slp_expect_answers(ctx, pkt, cfg, &link);
}

/*
 * A request: the original direction of a flow to an SLP group or a
 * broadcast address (RFC 2608 section 6.1, "Use of Ports, UDP, and
 * Multicast"), from the direction the keys help, holding an SLPv2
 * request.  Anything else passes and opens nothing: an answer (an
 * expected connection), a unicast request (answered on its own reply
 * tuple), a registration, an SLPv1 message.
 */
static bool slp_is_request(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const struct slp_config *cfg, const struct cth_link *link, bool known)
{
	const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];
	bool bcast = known && (link->dst_kind == CTH_DST_BROADCAST ||
			       link->dst_kind == CTH_DST_BROADCAST_ALL);
	struct slp_hdr hdr;
	int ret;

	if ((pkt->ct_status & CTH_CT_EXPECTED) || pkt->dir != CTH_DIR_ORIGINAL ||
	    !(bcast || slp_to_group(t)) ||
	    (known && !(link->in_ifindex == 0 ? cfg->outgoing : cfg->incoming))) {
		cth_count(ctx, SLP_C_IGNORED);
		return false;
	}
	ret = slp_parse(pkt->payload, pkt->payload_len, &hdr);
	if (ret == 1)
		return true;
	if (ret < 0)
		cth_count(ctx, SLP_C_MALFORMED);
	else
		cth_count(ctx, hdr.version == 1 ? SLP_C_V1 : SLP_C_IGNORED);
	cth_log(ctx, CTH_LOG_DEBUG, "%zu bytes, version %u function %u: %s", pkt->payload_len,
		hdr.version, hdr.function, ret < 0 ? "not an SLP header" : "not an SLPv2 request");
	return false;
}

/*
 * 239.255.255.253 (RFC 2608 section 6.1); ff02::116 and ff05::116, the
 * link- and site-local SVRLOC-DA group every IPv6 agent joins (RFC 3111
 * section 4; the per-service-type groups ff0X::1:1000/118 are not
 * helped).
 */
static bool slp_to_group(const struct cth_tuple *t)
{
	static const union cth_addr group4 = { .raw = { 239, 255, 255, 253 } };
	static const union cth_addr link6 = { .raw = { 0xff, 0x02, [14] = 0x01, [15] = 0x16 } };
	static const union cth_addr site6 = { .raw = { 0xff, 0x05, [14] = 0x01, [15] = 0x16 } };

	if (t->family == AF_INET6)
		return cth_addr_equal(AF_INET6, &t->dst, &link6) ||
		       cth_addr_equal(AF_INET6, &t->dst, &site6);
	return cth_addr_equal(AF_INET, &t->dst, &group4);
}

/*
 * Every agent that has an answer sends it from the port the request went
 * to (427) to the requester's address and port, so the expectation is
 * PERMANENT (cth_expect_answers()).  The request is accepted whatever
 * happens: a request this host sends is queued twice (Linux loops a copy
 * back), both asking for the same expectation, and an agent that cannot
 * answer makes the user agent retransmit anyway (RFC 2608 section 6.3).
 */
static int slp_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
			      const struct slp_config *cfg, const struct cth_link *link)
{
	struct cth_expect exp;
	int ret;

	ret = cth_expect_answers(&exp, pkt, cfg->answers == SLP_ANSWERS_LINK ? link : NULL,
				 SLP_CLASS, pkt->tuple[CTH_DIR_ORIGINAL].dport);
	if (ret < 0) {
		cth_count(ctx, SLP_C_NO_LINK);
		cth_log(ctx, CTH_LOG_INFO, "request: no network known on its link, answers not expected");
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, SLP_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "request: cannot expect the answers (%d)", ret);
		return CTH_VERDICT_ACCEPT;
	}
	cth_count(ctx, SLP_C_REQUESTS);
	return CTH_VERDICT_ACCEPT;
}

static const char *const slp_answers_choices[] = { "link", "any", NULL };

static const struct cth_key slp_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct slp_config, ports),
		.def = "427",
		.doc = "ports cthelperd --print-rules attaches the helper to (requests to the group)",
	},
	{
		.name = "outgoing",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_OUTPUT,
		.offset = offsetof(struct slp_config, outgoing),
		.def = "yes",
		.doc = "help the requests this host sends (--print-rules: raw OUTPUT)",
	},
	{
		.name = "incoming",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_PREROUTING,
		.offset = offsetof(struct slp_config, incoming),
		.def = "yes",
		.doc = "help the requests that arrive (forwarded, or for this host; raw PREROUTING)",
	},
	{
		.name = "answers",
		.type = CTH_KEY_CHOICE,
		.offset = offsetof(struct slp_config, answers),
		.choices = slp_answers_choices,
		.def = "link",
		.doc = "where answers may come from: link (the link's network) or any (anywhere, "
		       "as conntrackd)",
	},
};

static const struct cth_counter slp_counters[SLP_C_COUNT] = {
	[SLP_C_REQUESTS] = { "requests", "SLPv2 requests whose answers were expected" },
	[SLP_C_V1] = { "v1", "SLPv1 messages: nothing opened" },
	[SLP_C_EXPECT_ERRORS] = { "expect_errors", "requests whose answers could not be expected" },
	[SLP_C_NO_LINK] = { "no_link",
			    "requests with answers = link and no network known: nothing opened" },
	[SLP_C_MALFORMED] = { "malformed", "datagrams that are not SLP: nothing opened" },
	[SLP_C_IGNORED] = { "ignored",
			    "other SLPv2 messages, unicast requests, a direction switched off: "
			    "nothing opened" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "slp",
	.version = "1.0.0",
	.description = "SLP: the unicast answers to a multicast or broadcast SLPv2 request",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct slp_config),
	.n_classes = 1,
	/* conntrackd's policy: up to 8 agents (CONFIG_MC_MAX + 1 of RFC
	 * 2608 section 13), 16 s (the multicast request's whole wait) */
	.classes = { [SLP_CLASS] = { .name = "slp", .max = 8, .timeout = 16 } },
	.packet = slp_packet,
	.keys = slp_keys,
	.n_keys = sizeof(slp_keys) / sizeof(slp_keys[0]),
	.counters = slp_counters,
	.n_counters = SLP_C_COUNT,
};
