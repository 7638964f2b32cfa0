/* SPDX-License-Identifier: MIT */
/*
 * Amanda helper plugin: the backup server asks the client's amandad over
 * UDP (port 10080); the reply's "CONNECT DATA p MESG p INDEX p" line
 * names the TCP ports the server then connects to.  This opens all three
 * from the server's address to the client's, IPv4 and IPv6, and under
 * NAT moves a port that is taken on the translated address to a free one
 * and rewrites it in the reply.  Behaviour and the differences from the
 * kernel's nf_conntrack_amanda + nf_nat_amanda and conntrackd's helper
 * are in docs/plugins/amanda.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "amanda.h"
#include "amanda_parse.h"

/* Free ports tried per stream under NAT: three streams of up to 16 SYNC
 * requests stay within the 64 kernel requests the host allows a packet
 * (plugin.h, cth_expect_ctl()). */
#define AMANDA_NAT_TRIES 16u

static int amanda_reply(struct cth_ctx *ctx, const struct cth_packet *pkt);
static int amanda_expect_stream(struct cth_ctx *ctx, const struct cth_packet *pkt,
				enum amanda_stream_id id, const struct amanda_stream *s);
static void amanda_rewrite(struct cth_ctx *ctx, enum amanda_stream_id id,
			   const struct amanda_stream *s, uint16_t port);

static int amanda_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 void *priv, const void *config)
{
	const struct amanda_config *cfg = config;

	(void)priv;
	/* the TCP streams carry backup data, never a CONNECT line */
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return CTH_VERDICT_ACCEPT;
	/* the server's requests announce nothing */
	if (pkt->dir != CTH_DIR_REPLY) {
		cth_count(ctx, AMANDA_C_OTHER);
		return CTH_VERDICT_ACCEPT;
	}
	/* nf_conntrack_amanda: every reply refreshes the master, since the
	 * client may answer long after the request (a slow estimate) */
	cth_set_timeout(ctx, cfg->master_timeout);
	return amanda_reply(ctx, pkt);
}

static int amanda_reply(struct cth_ctx *ctx, const struct cth_packet *pkt)
{
	struct amanda_msg msg;
	int ret = amanda_parse(pkt->payload, pkt->payload_len, &msg);

	if (ret == 0) {
		cth_count(ctx, AMANDA_C_OTHER);
		return CTH_VERDICT_ACCEPT;
	}
	if (ret < 0) {
		cth_count(ctx, AMANDA_C_MALFORMED);
		cth_log(ctx, CTH_LOG_DEBUG, "reply of %zu bytes refused: %s", pkt->payload_len,
			msg.why);
		return CTH_VERDICT_ACCEPT;
	}
	cth_count(ctx, AMANDA_C_CONNECTS);
	for (unsigned int id = 0; id < AMANDA_STREAMS; id++) {
		if (!msg.stream[id].port)
			continue;
		ret = amanda_expect_stream(ctx, pkt, (enum amanda_stream_id)id, &msg.stream[id]);
		/* like the kernel: a failure drops the reply, whose
		 * retransmission asks again (the streams made already are
		 * asked for identically, which the kernel takes) */
		if (ret < 0)
			return cth_expect_verdict(ret);
	}
	return CTH_VERDICT_ACCEPT;
}

/*
 * The server connects to the client's amandad on the announced port:
 * from the server's address, any port, to the client's address as the
 * server knows it (cth_expect_to(), the client being the sender).  Under
 * NAT it follows the master to the client's real address and the
 * announced port; when that port is taken on the address the server
 * dials, a free one above it is used and written into the reply.
 */
static int amanda_expect_stream(struct cth_ctx *ctx, const struct cth_packet *pkt,
				enum amanda_stream_id id, const struct amanda_stream *s)
{
	struct cth_expect exp;
	int ret;

	cth_expect_to(&exp, pkt, AMANDA_CLASS, IPPROTO_TCP, &pkt->tuple[pkt->dir].src, s->port);
	if (exp.flags & CTH_EXPECT_NAT)
		ret = cth_expect_free_port(ctx, &exp, s->port, AMANDA_NAT_TRIES);
	else
		ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, AMANDA_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "%s port %u: cannot expect the server's connection (%d)",
			amanda_stream_name(id), s->port, ret);
		return ret;
	}
	cth_count(ctx, AMANDA_C_EXPECTATIONS);
	if (exp.dport != s->port)
		amanda_rewrite(ctx, id, s, exp.dport);
	return 0;
}

/* UDP: the digits may change length, the host fixes the lengths and the
 * checksum. */
static void amanda_rewrite(struct cth_ctx *ctx, enum amanda_stream_id id,
			   const struct amanda_stream *s, uint16_t port)
{
	char text[8];
	int n = cth_format_uint(port, text, sizeof(text));
	int ret = n < 0 ? n : cth_mangle(ctx, s->off, s->len, text, (size_t)n);

	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "%s: cannot rewrite port %u to %u (%d)",
			amanda_stream_name(id), s->port, port, ret);
		return;
	}
	cth_count(ctx, AMANDA_C_NAT_REWRITES);
}

static const struct cth_key amanda_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct amanda_config, ports),
		.def = "10080",
		.doc = "amandad's UDP ports cthelperd --print-rules attaches the helper to",
	},
	{
		.name = "master_timeout",
		.type = CTH_KEY_UINT,
		.offset = offsetof(struct amanda_config, master_timeout),
		.min = 1,
		.max = 86400,
		.def = "300",
		.doc = "seconds the UDP request's entry lives after each reply "
		       "(nf_conntrack_amanda's master_timeout)",
	},
};

static const struct cth_counter amanda_counters[AMANDA_C_COUNT] = {
	[AMANDA_C_CONNECTS] = { "connects", "replies with a valid CONNECT line" },
	[AMANDA_C_EXPECTATIONS] = { "expectations",
				    "DATA, MESG or INDEX streams expected for the server" },
	[AMANDA_C_EXPECT_ERRORS] = { "expect_errors",
				     "streams that could not be expected (reply dropped or passed)" },
	[AMANDA_C_NAT_REWRITES] = { "nat_rewrites",
				    "ports moved to a free one under NAT and rewritten in the reply" },
	[AMANDA_C_MALFORMED] = { "malformed",
				 "replies that are not Amanda or whose CONNECT line is refused" },
	[AMANDA_C_OTHER] = { "other", "requests, ACKs and replies without a CONNECT line" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "amanda",
	.version = "1.0.0",
	.description = "Amanda: the DATA, MESG and INDEX ports of a CONNECT reply, NAT included",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct amanda_config),
	.n_classes = 1,
	/* the kernel's policy: three streams per request, 3 min */
	.classes = { [AMANDA_CLASS] = { .name = "amanda", .max = 3, .timeout = 180 } },
	.packet = amanda_packet,
	.keys = amanda_keys,
	.n_keys = sizeof(amanda_keys) / sizeof(amanda_keys[0]),
	.counters = amanda_counters,
	.n_counters = AMANDA_C_COUNT,
};
