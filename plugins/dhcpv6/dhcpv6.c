/* SPDX-License-Identifier: MIT */
/*
 * DHCPv6 helper plugin: the servers' answers to a client's message to
 * All_DHCP_Relay_Agents_and_Servers (ff02::1:2, RFC 8415 section 7.1).
 * The client sends from its link-local address, port 546, to the group's
 * port 547; a server or relay answers with a unicast datagram from its
 * own link-local address to the client's port 546: a connection the
 * firewall has never seen (the message's reply tuple names the group).
 * The plugin expects those answers from fe80::/10 and keeps the client's
 * flow for as long as its exchange lasts.  Behaviour and the differences
 * from conntrackd's dhcpv6 helper are in docs/plugins/dhcpv6.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "dhcpv6.h"
#include "dhcpv6_parse.h"

static uint32_t dhcpv6_client_message(struct cth_ctx *ctx, const struct cth_packet *pkt,
				      const struct dhcpv6_config *cfg);
static int dhcpv6_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
				 const struct dhcpv6_config *cfg, uint32_t timeout);

static int dhcpv6_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 void *priv, const void *config)
{
	uint32_t timeout;

	(void)priv;
	timeout = dhcpv6_client_message(ctx, pkt, config);
	/* never a drop: conntrackd drops every type it does not know
	 * (14 and up, RFC 5007 and later), which breaks them */
	if (!timeout)
		return CTH_VERDICT_ACCEPT;
	return dhcpv6_expect_answers(ctx, pkt, config, timeout);
}

/*
 * A client message to ff02::1:2 from the direction the keys help: the
 * master timeout its type asks for, or 0 (anything else, which opens
 * nothing: an answer, a message to a server's unicast address, a relay's
 * RELAY-FORW, a type that gets no answer on port 546).
 */
static uint32_t dhcpv6_client_message(struct cth_ctx *ctx, const struct cth_packet *pkt,
				      const struct dhcpv6_config *cfg)
{
	static const union cth_addr group = {
		.raw = { 0xff, 0x02, [13] = 0x01, [15] = 0x02 }
	};
	const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];
	struct cth_link link;
	uint32_t timeout;
	uint8_t type;

	if ((pkt->ct_status & CTH_CT_EXPECTED) || pkt->dir != CTH_DIR_ORIGINAL ||
	    t->family != AF_INET6 || !cth_addr_equal(AF_INET6, &t->dst, &group) ||
	    /* no link view (an older host): the rules decide the direction */
	    (cth_link(ctx, &link) != -EOPNOTSUPP &&
	     !(link.in_ifindex == 0 ? cfg->outgoing : cfg->incoming))) {
		cth_count(ctx, DHCPV6_C_IGNORED);
		return 0;
	}
	if (dhcpv6_parse(pkt->payload, pkt->payload_len, &type) < 0) {
		cth_count(ctx, DHCPV6_C_MALFORMED);
		cth_log(ctx, CTH_LOG_DEBUG, "%zu bytes: shorter than a DHCPv6 header",
			pkt->payload_len);
		return 0;
	}
	timeout = dhcpv6_client_timeout(type);
	if (!timeout) {
		cth_count(ctx, DHCPV6_C_OTHER);
		cth_log(ctx, CTH_LOG_DEBUG, "%s (%u) to the group: nothing to open",
			dhcpv6_type_name(type), type);
	}
	return timeout;
}

/*
 * Every server (or the relay) answers to the client's address, port 546,
 * from any port of its own link-local address (RFC 8415 section 18.3:
 * servers and relays answer on-link), so the expectation is PERMANENT
 * (cth_expect_answers()) and from fe80::/10.  The master keeps the
 * exchange's time.  Accepted whatever happens: the client retransmits,
 * and a copy this host loops back to itself asks for the same.
 */
static int dhcpv6_expect_answers(struct cth_ctx *ctx, const struct cth_packet *pkt,
				 const struct dhcpv6_config *cfg, uint32_t timeout)
{
	static const struct cth_link link_local = {
		.net_prefix = 10,
		.net = { .raw = { 0xfe, 0x80 } },
	};
	struct cth_expect exp;
	int ret;

	ret = cth_expect_answers(&exp, pkt, cfg->answers == DHCPV6_ANSWERS_LINK ?
				 &link_local : NULL, DHCPV6_CLASS, 0);
	if (ret == 0) {
		exp.dport = DHCPV6_CLIENT_PORT;
		if (exp.flags & CTH_EXPECT_NAT)
			exp.nat_port = DHCPV6_CLIENT_PORT;
		ret = cth_expect(ctx, &exp, 0);
	}
	if (ret < 0) {
		cth_count(ctx, DHCPV6_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "client message: cannot expect the answers (%d)", ret);
		return CTH_VERDICT_ACCEPT;
	}
	cth_set_timeout(ctx, timeout);
	cth_count(ctx, DHCPV6_C_MESSAGES);
	return CTH_VERDICT_ACCEPT;
}

static const char *const dhcpv6_answers_choices[] = { "link", "any", NULL };

static const struct cth_key dhcpv6_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct dhcpv6_config, ports),
		.def = "547",
		.doc = "ports cthelperd --print-rules attaches the helper to (client messages to "
		       "ff02::1:2)",
	},
	{
		.name = "outgoing",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_OUTPUT,
		.offset = offsetof(struct dhcpv6_config, outgoing),
		.def = "yes",
		.doc = "help the messages this host sends as a client (--print-rules: raw OUTPUT)",
	},
	{
		.name = "incoming",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_PREROUTING,
		.offset = offsetof(struct dhcpv6_config, incoming),
		.def = "yes",
		.doc = "help the messages that arrive (raw PREROUTING)",
	},
	{
		.name = "answers",
		.type = CTH_KEY_CHOICE,
		.offset = offsetof(struct dhcpv6_config, answers),
		.choices = dhcpv6_answers_choices,
		.def = "link",
		.doc = "where answers may come from: link (a link-local address, fe80::/10) or "
		       "any (anywhere, as conntrackd)",
	},
};

static const struct cth_counter dhcpv6_counters[DHCPV6_C_COUNT] = {
	[DHCPV6_C_MESSAGES] = { "messages", "client messages whose answers were expected" },
	[DHCPV6_C_OTHER] = { "other", "other message types to the group: nothing opened" },
	[DHCPV6_C_EXPECT_ERRORS] = { "expect_errors",
				     "client messages whose answers could not be expected" },
	[DHCPV6_C_MALFORMED] = { "malformed", "datagrams shorter than a DHCPv6 header" },
	[DHCPV6_C_IGNORED] = { "ignored",
			       "not to ff02::1:2, answers, a direction switched off: nothing "
			       "opened" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "dhcpv6",
	.version = "1.0.0",
	.description = "DHCPv6: the servers' answers to a client's message to ff02::1:2",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct dhcpv6_config),
	.n_classes = 1,
	/* conntrackd's policy: one answer pending per client flow, 5 min */
	.classes = { [DHCPV6_CLASS] = { .name = "dhcpv6", .max = 1, .timeout = 300 } },
	.packet = dhcpv6_packet,
	.keys = dhcpv6_keys,
	.n_keys = sizeof(dhcpv6_keys) / sizeof(dhcpv6_keys[0]),
	.counters = dhcpv6_counters,
	.n_counters = DHCPV6_C_COUNT,
};
