/* SPDX-License-Identifier: MIT */
/*
 * TFTP helper plugin: a read or write request (RFC 1350) opens the way for
 * the server's answer, which comes from a port of the server's choosing
 * (its transfer ID) to the port the request came from; under NAT the
 * answer follows the master back to the client.  The transfer itself is
 * not helped: it stays in the kernel's fast path.  Behaviour and the
 * differences from the kernel's nf_conntrack_tftp + nf_nat_tftp are in
 * docs/plugins/tftp.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "tftp.h"
#include "tftp_parse.h"

static int tftp_request(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const struct tftp_config *cfg);
static int tftp_expect_answer(struct cth_ctx *ctx, const struct cth_packet *pkt,
			      uint16_t opcode);

static int tftp_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		       void *priv, const void *config)
{
	(void)priv;
	/* A transfer carries file data, never requests: one a rule attaches
	 * the helper to anyway is passed unread. */
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return CTH_VERDICT_ACCEPT;
	return tftp_request(ctx, pkt, config);
}

/*
 * Whichever direction it came in, as nf_conntrack_tftp does: the kernel
 * reads the opcode of every packet of the flow and opens the same answer
 * (the reply tuple) for a request in the reply direction too.  Anything
 * else is accepted and opens nothing; so is a malformed request, which
 * the kernel would take as a request (unless loose).
 */
static int tftp_request(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const struct tftp_config *cfg)
{
	struct tftp_req req;
	int ret = tftp_parse(pkt->payload, pkt->payload_len, &req);

	if (ret == 0) {
		cth_count(ctx, TFTP_C_OTHER);
		return CTH_VERDICT_ACCEPT;
	}
	if (ret < 0) {
		cth_count(ctx, TFTP_C_MALFORMED);
		cth_log(ctx, CTH_LOG_DEBUG, "%s, %zu bytes: %s%s", tftp_opcode_name(req.opcode),
			pkt->payload_len, req.why, cfg->loose ? " (loose)" : "");
		if (!cfg->loose || (req.opcode != TFTP_OP_RRQ && req.opcode != TFTP_OP_WRQ))
			return CTH_VERDICT_ACCEPT;
	} else {
		cth_count(ctx, req.opcode == TFTP_OP_RRQ ? TFTP_C_RRQ : TFTP_C_WRQ);
	}
	return tftp_expect_answer(ctx, pkt, req.opcode);
}

/*
 * The server's answer: from its address, any port, to the client's
 * address and port as the server knows them (the master's reply tuple).
 * cth_expect_back() fills it for the original direction's sender, the
 * client, also when the request came the other way.  Under NAT it follows
 * the master back to the client's real address and port, as
 * nf_nat_tftp's does; nothing in the payload names them.  No helper for
 * the transfer.  Like the kernel, a failure drops the request (the
 * client retransmits it) unless the host's rule refused it.
 */
static int tftp_expect_answer(struct cth_ctx *ctx, const struct cth_packet *pkt,
			      uint16_t opcode)
{
	struct cth_packet from_client = *pkt;
	struct cth_expect exp;
	int ret;

	from_client.dir = CTH_DIR_ORIGINAL;
	cth_expect_back(&exp, &from_client, TFTP_CLASS, IPPROTO_UDP);
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, TFTP_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "%s: cannot expect the server's answer (%d)",
			tftp_opcode_name(opcode), ret);
		return cth_expect_verdict(ret);
	}
	cth_count(ctx, TFTP_C_EXPECTATIONS);
	return CTH_VERDICT_ACCEPT;
}

static const struct cth_key tftp_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct tftp_config, ports),
		.def = "69",
		.doc = "server ports cthelperd --print-rules attaches the helper to",
	},
	{
		.name = "loose",
		.type = CTH_KEY_BOOL,
		.offset = offsetof(struct tftp_config, loose),
		.def = "no",
		.doc = "yes: any RRQ/WRQ opcode opens the answer, as the kernel's helper "
		       "(no filename, mode or option check)",
	},
};

static const struct cth_counter tftp_counters[TFTP_C_COUNT] = {
	[TFTP_C_RRQ] = { "rrq", "read requests (RRQ) that opened the server's answer" },
	[TFTP_C_WRQ] = { "wrq", "write requests (WRQ) that opened the server's answer" },
	[TFTP_C_EXPECTATIONS] = { "expectations", "expectations asked for the server's answer" },
	[TFTP_C_EXPECT_ERRORS] = { "expect_errors",
				   "answers that could not be expected (request dropped or passed)" },
	[TFTP_C_MALFORMED] = { "malformed",
			       "packets that are not TFTP or malformed requests: nothing opened" },
	[TFTP_C_OTHER] = { "other", "DATA, ACK, ERROR or OACK packets on a request's flow" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "tftp",
	.version = "1.0.0",
	.description = "TFTP: the server's answer to RRQ/WRQ, NAT by following the master",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct tftp_config),
	.n_classes = 1,
	/* the kernel's policy: one answer pending per request flow, 5 min */
	.classes = { [TFTP_CLASS] = { .name = "tftp", .max = 1, .timeout = 300 } },
	.packet = tftp_packet,
	.keys = tftp_keys,
	.n_keys = sizeof(tftp_keys) / sizeof(tftp_keys[0]),
	.counters = tftp_counters,
	.n_counters = TFTP_C_COUNT,
};
