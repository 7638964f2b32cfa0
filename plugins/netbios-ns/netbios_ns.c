/* SPDX-License-Identifier: MIT */
/*
 * NetBIOS name service helper plugin: the unicast answers to a name query
 * broadcast on the local subnet (RFC 1002 section 5.1.1.1).  The querier
 * broadcasts from its port to port 137, and the name's owner answers
 * with a unicast datagram from port 137 to the querier's port: a
 * connection the firewall has never seen (the query's reply tuple names
 * the broadcast address).  The plugin expects those answers from the
 * broadcast's subnet, as the kernel's nf_conntrack_netbios_ns does for
 * the broadcasts this host sends.  Behaviour and the differences from the
 * kernel's helper are in docs/plugins/netbios-ns.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "netbios_ns.h"
#include "netbios_ns_parse.h"

static bool nbns_is_query(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const struct nbns_config *cfg, const struct cth_link *link);
static int nbns_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const struct nbns_config *cfg, const struct cth_link *link);

static int nbns_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		       void *priv, const void *config)
{
	struct cth_link link;

	(void)priv;
	/* an answer (an expected connection) or the query flow's own
	 * reply direction: nothing to open */
	if ((pkt->ct_status & CTH_CT_EXPECTED) || pkt->dir != CTH_DIR_ORIGINAL) {
		cth_count(ctx, NBNS_C_IGNORED);
		return CTH_VERDICT_ACCEPT;
	}
	/* without the link view (an older host) a broadcast cannot be
	 * told from a unicast query, nor its subnet found */
	if (cth_link(ctx, &link) == -EOPNOTSUPP) {
		cth_count(ctx, NBNS_C_NO_LINK);
		return CTH_VERDICT_ACCEPT;
	}
	if (!nbns_is_query(ctx, pkt, config, &link))
		return CTH_VERDICT_ACCEPT;
	return nbns_expect_answers(ctx, pkt, config, &link);
}

/*
 * The kernel's rule (nf_conntrack_broadcast_help()): a packet this host
 * sends (incoming = yes adds the ones that arrive) to a subnet's
 * broadcast address; here also to 255.255.255.255 (broadcast_all, which
 * the kernel leaves unhelped), and only a name query, which the kernel
 * does not look at.
 */
static bool nbns_is_query(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const struct nbns_config *cfg, const struct cth_link *link)
{
	struct nbns_hdr hdr;
	int ret;

	if (!(link->in_ifindex == 0 ? cfg->outgoing : cfg->incoming) ||
	    !(link->dst_kind == CTH_DST_BROADCAST ||
	      (link->dst_kind == CTH_DST_BROADCAST_ALL && cfg->broadcast_all))) {
		cth_count(ctx, NBNS_C_IGNORED);
		return false;
	}
	ret = nbns_parse(pkt->payload, pkt->payload_len, &hdr);
	if (ret <= 0) {
		cth_count(ctx, ret < 0 ? NBNS_C_MALFORMED : NBNS_C_IGNORED);
		cth_log(ctx, CTH_LOG_DEBUG, "%zu bytes broadcast: %s", pkt->payload_len,
			ret < 0 ? "shorter than a name service header" : "not a name query");
		return false;
	}
	return true;
}

/*
 * The kernel's expectation: from any host of the broadcast's subnet,
 * port 137 exact, to the querier's address and port, PERMANENT
 * (cth_expect_answers()); then the query flow lives `timeout` seconds.
 * The query is accepted whatever happens, as the kernel accepts it; a
 * broadcast this host sends is queued twice (Linux loops a copy back),
 * both asking for the same expectation.
 */
static int nbns_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const struct nbns_config *cfg, const struct cth_link *link)
{
	struct cth_expect exp;
	int ret;

	ret = cth_expect_answers(&exp, pkt, cfg->answers == NBNS_ANSWERS_LINK ? link : NULL,
				 NBNS_CLASS, pkt->tuple[CTH_DIR_ORIGINAL].dport);
	if (ret < 0) {
		cth_count(ctx, NBNS_C_NO_LINK);
		cth_log(ctx, CTH_LOG_INFO, "name query: no network known for its broadcast");
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, NBNS_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "name query: cannot expect the answers (%d)", ret);
		return CTH_VERDICT_ACCEPT;
	}
	cth_set_timeout(ctx, cfg->timeout);
	cth_count(ctx, NBNS_C_QUERIES);
	return CTH_VERDICT_ACCEPT;
}

static const char *const nbns_answers_choices[] = { "link", "any", NULL };

static const struct cth_key nbns_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct nbns_config, ports),
		.def = "137",
		.doc = "ports cthelperd --print-rules attaches the helper to (name queries)",
	},
	{
		.name = "outgoing",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_OUTPUT,
		.offset = offsetof(struct nbns_config, outgoing),
		.def = "yes",
		.doc = "help the name queries this host broadcasts (--print-rules: raw OUTPUT)",
	},
	{
		.name = "incoming",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_PREROUTING,
		.offset = offsetof(struct nbns_config, incoming),
		.def = "no",
		.doc = "help the broadcasts that arrive too (raw PREROUTING; the kernel's helper "
		       "does not)",
	},
	{
		.name = "answers",
		.type = CTH_KEY_CHOICE,
		.offset = offsetof(struct nbns_config, answers),
		.choices = nbns_answers_choices,
		.def = "link",
		.doc = "where answers may come from: link (the broadcast's subnet, as the kernel) "
		       "or any (anywhere)",
	},
	{
		.name = "broadcast_all",
		.type = CTH_KEY_BOOL,
		.offset = offsetof(struct nbns_config, broadcast_all),
		.def = "yes",
		.doc = "help queries to 255.255.255.255 too, answered from the out link's network "
		       "(the kernel does not)",
	},
	{
		.name = "timeout",
		.type = CTH_KEY_UINT,
		.offset = offsetof(struct nbns_config, timeout),
		.min = 1,
		.max = 3600,
		.def = "3",
		.doc = "seconds the query's flow lives after a query (the kernel module's "
		       "timeout parameter)",
	},
};

static const struct cth_counter nbns_counters[NBNS_C_COUNT] = {
	[NBNS_C_QUERIES] = { "queries", "name query broadcasts whose answers were expected" },
	[NBNS_C_EXPECT_ERRORS] = { "expect_errors",
				   "name queries whose answers could not be expected" },
	[NBNS_C_NO_LINK] = { "no_link", "broadcasts whose subnet is not known: nothing opened" },
	[NBNS_C_MALFORMED] = { "malformed",
			       "broadcasts shorter than a name service header: nothing opened" },
	[NBNS_C_IGNORED] = { "ignored",
			     "unicast, other name service packets, a direction or "
			     "255.255.255.255 switched off: nothing opened" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "netbios-ns",
	.version = "1.0.0",
	.description = "NetBIOS-NS: the unicast answers to a name query broadcast, from its subnet",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4,
	.priv_size = 0,
	.config_size = sizeof(struct nbns_config),
	.n_classes = 1,
	/* the kernel's policy: one pending per query flow, its timeout 3 s */
	.classes = { [NBNS_CLASS] = { .name = "netbios-ns", .max = 1, .timeout = 3 } },
	.packet = nbns_packet,
	.keys = nbns_keys,
	.n_keys = sizeof(nbns_keys) / sizeof(nbns_keys[0]),
	.counters = nbns_counters,
	.n_counters = NBNS_C_COUNT,
};
