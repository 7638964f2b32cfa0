/* SPDX-License-Identifier: MIT */
/*
 * SANE helper plugin: a scan starts with SANE_NET_START on the control
 * connection to saned (port 6566); a successful reply names the port of
 * the data connection the client then opens to the server.  This follows
 * the request/reply exchange whatever the segmentation (a request or
 * reply split across segments is kept and read whole, cth_keep()),
 * expects the data connection from the client to the server, IPv4 and
 * IPv6, refuses port 0, and behind DNAT makes the data connection follow
 * the control connection to the real server.  Behaviour and the
 * differences from the kernel's nf_conntrack_sane and conntrackd's
 * helper are in docs/plugins/sane.md.
 */
#include <netinet/in.h>
#include <stddef.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "sane.h"

/* Free ports tried on the dialled address under NAT. */
#define SANE_NAT_TRIES 16u

struct sane_run {
	struct cth_ctx *ctx;
	const struct cth_packet *pkt;
	struct sane_priv *priv;
	size_t kept;
};

static void sane_request(struct sane_run *r);
static int sane_reply(struct sane_run *r);
static int sane_start_reply(struct sane_run *r);
static int sane_expect_data(struct sane_run *r, uint16_t port);
static void sane_keep(struct sane_run *r);
static uint32_t sane_word(const uint8_t *p);

static int sane_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	struct sane_run r = {
		.ctx = ctx,
		.pkt = pkt,
		.priv = priv,
		.kept = cth_kept(ctx, pkt),
	};

	(void)config;
	/* the data connection carries image data, never RPCs */
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return CTH_VERDICT_ACCEPT;
	if (pkt->ctinfo != CTH_CT_ESTABLISHED && pkt->ctinfo != CTH_CT_ESTABLISHED_REPLY)
		return CTH_VERDICT_ACCEPT;
	if (pkt->dir == CTH_DIR_ORIGINAL) {
		sane_request(&r);
		return CTH_VERDICT_ACCEPT;
	}
	return sane_reply(&r);
}

/*
 * Client data.  At a request's start its first word is the RPC code:
 * START (code and handle, 8 bytes) waits for its reply; any other
 * request is passed over to its end, which the reply marks.  A start
 * shorter than what is needed is kept and read again with the next
 * segment (the kernel reads only segments of exactly 8 bytes, so a
 * START split in two words, or followed by more, escapes it).
 */
static void sane_request(struct sane_run *r)
{
	const struct cth_packet *pkt = r->pkt;

	if (r->priv->state == SANE_S_REQUEST || r->priv->state == SANE_S_START)
		return;
	if (pkt->payload_len < SANE_WORD) {
		sane_keep(r);
		return;
	}
	if (sane_word(pkt->payload) != SANE_NET_START) {
		r->priv->state = SANE_S_REQUEST;
		return;
	}
	if (pkt->payload_len < SANE_START_LEN) {
		sane_keep(r);
		return;
	}
	cth_count(r->ctx, SANE_C_STARTS);
	r->priv->state = SANE_S_START;
}

/* Server data: the START reply's status and port when one is awaited;
 * otherwise (or after them) the rest of a reply. */
static int sane_reply(struct sane_run *r)
{
	if (r->priv->state != SANE_S_START) {
		r->priv->state = SANE_S_REPLY;
		return CTH_VERDICT_ACCEPT;
	}
	if (r->pkt->payload_len < SANE_START_LEN) {
		sane_keep(r);
		return CTH_VERDICT_ACCEPT;
	}
	r->priv->state = SANE_S_REPLY;
	return sane_start_reply(r);
}

/* SANE_Status, then the port as a SANE_Word (the kernel reads it as a
 * zero half-word and the port). */
static int sane_start_reply(struct sane_run *r)
{
	const uint8_t *p = r->pkt->payload;
	uint32_t status = sane_word(p), port = sane_word(p + SANE_WORD);

	if (status != 0) {
		cth_count(r->ctx, SANE_C_START_FAILED);
		return CTH_VERDICT_ACCEPT;
	}
	if (port > 65535u) {
		cth_count(r->ctx, SANE_C_MALFORMED);
		cth_log(r->ctx, CTH_LOG_DEBUG, "START reply: port word %#x", port);
		return CTH_VERDICT_ACCEPT;
	}
	/* nf_conntrack_sane expects port 0 too: no connection can use it,
	 * and saned sends it with a failed start or an authorisation */
	if (port == 0) {
		cth_count(r->ctx, SANE_C_PORT_ZERO);
		return CTH_VERDICT_ACCEPT;
	}
	return sane_expect_data(r, (uint16_t)port);
}

/*
 * The client connects to the server's data port: from the client's
 * address, any port, to the server's as the client knows it.  Behind
 * DNAT (saned port-forwarded) that is the address the client dialled,
 * and the connection follows the master to the real server (the
 * kernel's helper has no NAT, so its expectation is never translated);
 * when the port is taken on the dialled address a free one is used and
 * written into the reply, unless the port was forwarded already (kept).
 */
static int sane_expect_data(struct sane_run *r, uint16_t port)
{
	const struct cth_packet *pkt = r->pkt;
	/* the port's low half-word, at bytes 6..7 of the reply */
	bool editable = r->kept <= SANE_START_LEN - 2u;
	struct cth_expect exp;
	int ret;

	cth_expect_to(&exp, pkt, SANE_CLASS, IPPROTO_TCP, &pkt->tuple[pkt->dir].src, port);
	if (exp.flags & CTH_EXPECT_NAT)
		ret = cth_expect_free_port(r->ctx, &exp, port, editable ? SANE_NAT_TRIES : 1u);
	else
		ret = cth_expect(r->ctx, &exp, 0);
	if (ret < 0) {
		cth_count(r->ctx, SANE_C_EXPECT_ERRORS);
		cth_log(r->ctx, CTH_LOG_INFO, "START reply port %u: cannot expect the data "
			"connection (%d)", port, ret);
		/* the retransmission is read alone, as a reply's start:
		 * wait for it again */
		if (ret != -EPERM)
			r->priv->state = SANE_S_START;
		return cth_expect_verdict(ret);
	}
	cth_count(r->ctx, SANE_C_EXPECTATIONS);
	if (exp.dport != port) {
		uint8_t be[2] = { (uint8_t)(exp.dport >> 8), (uint8_t)exp.dport };

		ret = cth_mangle(r->ctx, SANE_START_LEN - 2u, 2, be, 2);
		if (ret < 0)
			cth_log(r->ctx, CTH_LOG_INFO, "cannot rewrite port %u to %u (%d)", port,
				exp.dport, ret);
		else
			cth_count(r->ctx, SANE_C_NAT_REWRITES);
	}
	return CTH_VERDICT_ACCEPT;
}

/* Show this segment's bytes again in front of the next one. */
static void sane_keep(struct sane_run *r)
{
	int ret = cth_keep(r->ctx, 0);

	if (ret < 0)
		cth_log(r->ctx, CTH_LOG_DEBUG, "cannot keep %zu bytes (%d)", r->pkt->payload_len,
			ret);
}

static uint32_t sane_word(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool sane_priv_valid(const void *state)
{
	const struct sane_priv *p = state;

	return p->state < SANE_S_COUNT;
}

static const struct cth_key sane_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct sane_config, ports),
		.def = "6566",
		.doc = "saned's ports cthelperd --print-rules attaches the helper to",
	},
};

static const struct cth_counter sane_counters[SANE_C_COUNT] = {
	[SANE_C_STARTS] = { "starts", "SANE_NET_START requests seen" },
	[SANE_C_EXPECTATIONS] = { "expectations", "data connections expected for the client" },
	[SANE_C_EXPECT_ERRORS] = { "expect_errors",
				   "data connections that could not be expected (reply dropped or passed)" },
	[SANE_C_START_FAILED] = { "start_failed", "START replies with a status other than 0" },
	[SANE_C_PORT_ZERO] = { "port_zero", "successful START replies naming port 0: nothing opened" },
	[SANE_C_MALFORMED] = { "malformed", "START replies whose port word is above 65535" },
	[SANE_C_NAT_REWRITES] = { "nat_rewrites",
				  "ports moved to a free one under NAT and rewritten in the reply" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "sane",
	.version = "1.0.0",
	.description = "SANE: the data port of a SANE_NET_START reply, any segmentation, DNAT",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct sane_priv),
	.config_size = sizeof(struct sane_config),
	.n_classes = 1,
	/* the kernel's policy: one data connection per control connection, 5 min */
	.classes = { [SANE_CLASS] = { .name = "sane", .max = 1, .timeout = 300 } },
	.packet = sane_packet,
	.keys = sane_keys,
	.n_keys = sizeof(sane_keys) / sizeof(sane_keys[0]),
	.counters = sane_counters,
	.n_counters = SANE_C_COUNT,
	.priv_version = SANE_PRIV_VERSION,
	.priv_version_at = offsetof(struct sane_priv, version),
	.priv_valid = sane_priv_valid,
};
