/* SPDX-License-Identifier: MIT */
/*
 * udpback: the SDK's UDP example (README.md walks through it), shaped
 * like TFTP.  A client sends one request datagram to the server's UDP
 * port (5069 by default):
 *
 *     GET <name>\n        or        PUT <name>\n
 *
 * and the server answers from another port of its own, back to the
 * client's address and port.  To the firewall that answer is a new UDP
 * flow; this helper makes it RELATED.
 *
 * What it shows, on the SDK 3 descriptor: declared configuration keys
 * (the helped ports, with CTH_KEY_RULE_PORTS, and a yes/no key), counters
 * (cth_count()), the private state's version kept by the host, and the
 * expectation "the receiver answers back to the sender" filled by
 * cth_expect_back(), NAT included: nothing in the payload names an
 * address, so nothing is rewritten, and under SNAT or DNAT the answer
 * follows the request's connection back to the client.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

/* Per [helper NAME] section, filled by the host from the declared keys. */
struct ub_config {
	struct cth_ports ports;   /* where requests go (--print-rules) */
	bool puts;                /* PUT requests are helped too */
};

/* Per connection (the request's flow), in the conntrack entry. */
struct ub_priv {
	uint8_t version;          /* the host's (priv_version_at) */
	uint8_t requests;         /* requests seen on this flow, at most 255 */
};

enum ub_counter { UB_REQUESTS, UB_EXPECTED, UB_REFUSED, UB_BAD };

#define UB_NAME_MAX 255u

static int ub_parse(const struct cth_packet *pkt, const struct ub_config *cfg);

/* A client's request: the server's answer is expected back to it. */
static int ub_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv_state,
		     const void *config)
{
	const struct ub_config *cfg = config;
	struct ub_priv *priv = priv_state;
	struct cth_expect exp;
	int ret;

	/* only the client asks; the server's datagrams on this flow pass */
	if (pkt->dir != CTH_DIR_ORIGINAL)
		return CTH_VERDICT_ACCEPT;
	if (ub_parse(pkt, cfg) < 0) {
		cth_count(ctx, UB_BAD);
		/* not ours to judge: the server answers it (or not) */
		return CTH_VERDICT_ACCEPT;
	}
	cth_count(ctx, UB_REQUESTS);
	if (priv->requests < 255)
		priv->requests++;

	/* from the server, any port, to the client's address and port as
	 * the server sees them; under NAT back to the client's own */
	cth_expect_back(&exp, pkt, 0, IPPROTO_UDP);
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, UB_REFUSED);
		cth_log(ctx, CTH_LOG_INFO, "cannot expect the answer (%d)", ret);
		/* -EPERM (the host's rule) is final: ACCEPT; else DROP and the
		 * client's retransmission tries again */
		return cth_expect_verdict(ret);
	}
	cth_count(ctx, UB_EXPECTED);
	return CTH_VERDICT_ACCEPT;
}

/* "GET <name>\n" or, when the configuration allows it, "PUT <name>\n":
 * a name of 1..255 printable bytes without spaces.  0 or -EINVAL. */
static int ub_parse(const struct cth_packet *pkt, const struct ub_config *cfg)
{
	const uint8_t *p = pkt->payload;
	size_t len = pkt->payload_len, line = cth_line_len(p, len), i;

	if (line == len || line < 5 || line - 4 > UB_NAME_MAX)
		return -EINVAL;
	if (memcmp(p, "GET ", 4) != 0 && !(cfg->puts && memcmp(p, "PUT ", 4) == 0))
		return -EINVAL;
	for (i = 4; i < line; i++)
		if (p[i] <= ' ' || p[i] >= 0x7f)
			return -EINVAL;
	return 0;
}

static const struct cth_key ub_keys[] = {
	{ .name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
	  .offset = offsetof(struct ub_config, ports), .def = "5069",
	  .doc = "UDP ports the server takes requests on" },
	{ .name = "puts", .type = CTH_KEY_BOOL,
	  .offset = offsetof(struct ub_config, puts), .def = "no",
	  .doc = "help PUT requests too, not only GET" },
};

static const struct cth_counter ub_counters[] = {
	[UB_REQUESTS] = { "requests", "requests seen" },
	[UB_EXPECTED] = { "expected", "answers expected" },
	[UB_REFUSED] = { "refused", "answers the host or the kernel refused to expect" },
	[UB_BAD] = { "bad_requests", "datagrams to the port that are not a request" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "udpback",
	.version = "1.0.0",
	.description = "SDK example: a UDP request answered from another port (TFTP-shaped)",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct ub_priv),
	.config_size = sizeof(struct ub_config),
	.n_classes = 1,
	/* the answer comes at once: a few seconds, a few requests in flight */
	.classes = { { .name = "answer", .max = 4, .timeout = 10 } },
	.packet = ub_packet,
	.keys = ub_keys,
	.n_keys = sizeof(ub_keys) / sizeof(ub_keys[0]),
	.counters = ub_counters,
	.n_counters = sizeof(ub_counters) / sizeof(ub_counters[0]),
	.priv_version = 1,
	.priv_version_at = offsetof(struct ub_priv, version),
};
