/* SPDX-License-Identifier: MIT */
/*
 * @NAME@: a cthelperd helper plugin for a UDP protocol whose server
 * answers a request from another port, back to the client (TFTP-shaped).
 * Made by cthelper-new-plugin; the TODO comments mark what is yours to
 * write.  The kit's README and udpback (KITDIR/examples/udpback) explain
 * each part.
 *
 * TODO: say what the protocol is and what the helper opens.  As written,
 * a datagram to the helped port that starts with "REQ " is a request,
 * and the server's answer, from any of its ports, is let in.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

/* Per [helper NAME] section, filled by the host from the declared keys
 * (@ID@_keys below). */
struct @ID@_config {
	struct cth_ports ports;   /* where requests go (--print-rules) */
	bool strict;              /* drop what is not a request */
};

/* Per connection, kept in the kernel's conntrack entry: at most 32
 * bytes.  The host keeps the version byte (priv_version below). */
struct @ID@_priv {
	uint8_t version;
	uint8_t requests;
};

/* The counters, indexes into @ID@_counters below. */
enum @ID@_counter { @UID@_REQUESTS, @UID@_EXPECTED, @UID@_REFUSED, @UID@_BAD };

static int @ID@_parse(const struct cth_packet *pkt);

/* A client's request: expect the server's answer back to it. */
static int @ID@_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv_state,
		       const void *config)
{
	const struct @ID@_config *cfg = config;
	struct @ID@_priv *priv = priv_state;
	struct cth_expect exp;
	int ret;

	/* TODO: which side sends what you parse; here the client asks */
	if (pkt->dir != CTH_DIR_ORIGINAL)
		return CTH_VERDICT_ACCEPT;
	if (@ID@_parse(pkt) < 0) {
		cth_count(ctx, @UID@_BAD);
		return cfg->strict ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
	}
	cth_count(ctx, @UID@_REQUESTS);
	if (priv->requests < 255)
		priv->requests++;

	/* from the server, any port, back to the client's address and port
	 * as the server sees them; under NAT the answer follows this flow
	 * back to the client's real address (util.h, the table in plugin.h) */
	cth_expect_back(&exp, pkt, 0, IPPROTO_UDP);
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, @UID@_REFUSED);
		cth_log(ctx, CTH_LOG_INFO, "cannot expect the answer (%d)", ret);
		/* -EPERM (the host's rule) is final: ACCEPT; else DROP and
		 * the client's retransmission tries again */
		return cth_expect_verdict(ret);
	}
	cth_count(ctx, @UID@_EXPECTED);
	return CTH_VERDICT_ACCEPT;
}

/* 0 when the payload is a request, else -EINVAL.  Everything from the
 * network is hostile: read only within payload_len, which is not a C
 * string.
 * TODO: your protocol's request. */
static int @ID@_parse(const struct cth_packet *pkt)
{
	if (pkt->payload_len < 5 || memcmp(pkt->payload, "REQ ", 4) != 0)
		return -EINVAL;
	return 0;
}

/* TODO: your keys; the daemon parses and checks them, `cthelperd -n`
 * lists them. */
static const struct cth_key @ID@_keys[] = {
	{ .name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
	  .offset = offsetof(struct @ID@_config, ports), .def = "@PORT@",
	  .doc = "UDP ports the server takes requests on" },
	{ .name = "strict", .type = CTH_KEY_BOOL,
	  .offset = offsetof(struct @ID@_config, strict), .def = "no",
	  .doc = "drop datagrams to the port that are not a request" },
};

static const struct cth_counter @ID@_counters[] = {
	[@UID@_REQUESTS] = { "requests", "requests seen" },
	[@UID@_EXPECTED] = { "expected", "answers expected" },
	[@UID@_REFUSED] = { "refused", "answers the host or the kernel refused to expect" },
	[@UID@_BAD] = { "bad_requests", "datagrams to the port that are not a request" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "@NAME@",                   /* the file is @NAME@.so */
	.version = "0.1.0",
	.description = "TODO: one line",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct @ID@_priv),
	.config_size = sizeof(struct @ID@_config),
	.n_classes = 1,
	/* TODO: how many answers may wait at once, and how long */
	.classes = { { .name = "answer", .max = 4, .timeout = 10 } },
	.packet = @ID@_packet,
	.keys = @ID@_keys,
	.n_keys = sizeof(@ID@_keys) / sizeof(@ID@_keys[0]),
	.counters = @ID@_counters,
	.n_counters = sizeof(@ID@_counters) / sizeof(@ID@_counters[0]),
	.priv_version = 1,
	.priv_version_at = offsetof(struct @ID@_priv, version),
};
