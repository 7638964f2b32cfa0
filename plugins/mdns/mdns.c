/* SPDX-License-Identifier: MIT */
/*
 * mDNS helper plugin: the unicast answers to a one-shot multicast DNS
 * query (RFC 6762 section 5.1).  A resolver that is not a full mDNS
 * responder asks the group 224.0.0.251 / ff02::fb from an ephemeral port,
 * and each responder answers with a unicast datagram from port 5353 to
 * that port: a connection the firewall has never seen (the query's reply
 * tuple names the group).  The plugin expects those answers from the
 * link's network.  Behaviour and the differences from conntrackd's mdns
 * helper are in docs/plugins/mdns.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "mdns.h"
#include "mdns_parse.h"

static bool mdns_is_query(struct cth_ctx *ctx, const struct cth_packet *pkt);
static bool mdns_to_group(const struct cth_tuple *t);
static int mdns_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const struct mdns_config *cfg);

static int mdns_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		       void *priv, const void *config)
{
	(void)priv;
	/* an answer (an expected connection) or anything on the query's
	 * own flow but the query: nothing to open, never a drop */
	if (!mdns_is_query(ctx, pkt))
		return CTH_VERDICT_ACCEPT;
	return mdns_expect_answers(ctx, pkt, config);
}

/*
 * A one-shot query: the original direction of a flow to the group's port
 * (5353, the ports key) from another port.  From that port it is a full
 * responder's query,
 * whose answers are multicast too (RFC 6762 section 6), which an INPUT
 * rule for the group admits; a unicast query to a host's 5353 is
 * answered on its own reply tuple.
 */
static bool mdns_is_query(struct cth_ctx *ctx, const struct cth_packet *pkt)
{
	const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];
	struct mdns_hdr hdr;
	int ret;

	if ((pkt->ct_status & CTH_CT_EXPECTED) || pkt->dir != CTH_DIR_ORIGINAL ||
	    !mdns_to_group(t) || t->sport == t->dport) {
		cth_count(ctx, MDNS_C_IGNORED);
		return false;
	}
	ret = mdns_parse(pkt->payload, pkt->payload_len, &hdr);
	if (ret <= 0) {
		cth_count(ctx, ret < 0 ? MDNS_C_MALFORMED : MDNS_C_IGNORED);
		cth_log(ctx, CTH_LOG_DEBUG, "%zu bytes to the group: %s", pkt->payload_len,
			ret < 0 ? "shorter than a DNS header" : "not a standard query");
		return false;
	}
	return true;
}

/* 224.0.0.251 and ff02::fb, RFC 6762 section 3 */
static bool mdns_to_group(const struct cth_tuple *t)
{
	static const union cth_addr group4 = { .raw = { 224, 0, 0, 251 } };
	static const union cth_addr group6 = { .raw = { 0xff, 0x02, [15] = 0xfb } };

	return cth_addr_equal(t->family, &t->dst, t->family == AF_INET6 ? &group6 : &group4);
}

/*
 * Every responder of the link answers from the group's port (5353) to the
 * querier's address and port, so the expectation is PERMANENT (cth_expect_answers()).  The
 * query is accepted whatever happens: the kernel's broadcast helper does
 * not drop a query it cannot expect the answers of either, and a query
 * this host sends is queued twice (Linux loops a copy back), both
 * asking for the same expectation.
 */
static int mdns_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const struct mdns_config *cfg)
{
	struct cth_link link;
	struct cth_expect exp;
	int ret;

	/* no link view (an older host): the rules decide the direction */
	if (cth_link(ctx, &link) != -EOPNOTSUPP &&
	    !(link.in_ifindex == 0 ? cfg->outgoing : cfg->incoming)) {
		cth_count(ctx, MDNS_C_IGNORED);
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect_answers(&exp, pkt, cfg->answers == MDNS_ANSWERS_LINK ? &link : NULL,
				 MDNS_CLASS, pkt->tuple[CTH_DIR_ORIGINAL].dport);
	if (ret < 0) {
		cth_count(ctx, MDNS_C_NO_LINK);
		cth_log(ctx, CTH_LOG_INFO, "query: no network known on its link, answers not expected");
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, MDNS_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "query: cannot expect the answers (%d)", ret);
		return CTH_VERDICT_ACCEPT;
	}
	cth_count(ctx, MDNS_C_QUERIES);
	return CTH_VERDICT_ACCEPT;
}

static const char *const mdns_answers_choices[] = { "link", "any", NULL };

static const struct cth_key mdns_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct mdns_config, ports),
		.def = "5353",
		.doc = "ports cthelperd --print-rules attaches the helper to (queries to the group)",
	},
	{
		.name = "outgoing",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_OUTPUT,
		.offset = offsetof(struct mdns_config, outgoing),
		.def = "yes",
		.doc = "help the queries this host sends (--print-rules: raw OUTPUT)",
	},
	{
		.name = "incoming",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_PREROUTING,
		.offset = offsetof(struct mdns_config, incoming),
		.def = "yes",
		.doc = "help the queries that arrive (forwarded, or for this host; raw PREROUTING)",
	},
	{
		.name = "answers",
		.type = CTH_KEY_CHOICE,
		.offset = offsetof(struct mdns_config, answers),
		.choices = mdns_answers_choices,
		.def = "link",
		.doc = "where answers may come from: link (the link's network) or any (anywhere, "
		       "as conntrackd)",
	},
};

static const struct cth_counter mdns_counters[MDNS_C_COUNT] = {
	[MDNS_C_QUERIES] = { "queries", "one-shot queries whose answers were expected" },
	[MDNS_C_EXPECT_ERRORS] = { "expect_errors", "queries whose answers could not be expected" },
	[MDNS_C_NO_LINK] = { "no_link",
			     "queries with answers = link and no network known: nothing opened" },
	[MDNS_C_MALFORMED] = { "malformed", "datagrams to the group shorter than a DNS header" },
	[MDNS_C_IGNORED] = { "ignored",
			     "responses, other opcodes, port 5353 queries, other destinations, "
			     "a direction switched off: nothing opened" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "mdns",
	.version = "1.0.0",
	.description = "mDNS: the unicast answers to a one-shot query to 224.0.0.251 / ff02::fb",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct mdns_config),
	.n_classes = 1,
	/* conntrackd's policy: answers from up to 8 responders, 30 s */
	.classes = { [MDNS_CLASS] = { .name = "mdns", .max = 8, .timeout = 30 } },
	.packet = mdns_packet,
	.keys = mdns_keys,
	.n_keys = sizeof(mdns_keys) / sizeof(mdns_keys[0]),
	.counters = mdns_counters,
	.n_counters = MDNS_C_COUNT,
};
