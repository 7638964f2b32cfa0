/* SPDX-License-Identifier: MIT */
/*
 * @NAME@: a cthelperd helper plugin for a TCP protocol whose server
 * announces, on the control connection, a port the client then connects
 * to (FTP's passive mode, shaped like the kit's toydata example).  Made
 * by cthelper-new-plugin; the TODO comments mark what is yours to write.
 *
 * TODO: say what the protocol is and what the helper opens.  As written,
 * the server sends a line "OPEN <port>" (CR LF or LF) and the client
 * connects to that port on the server's address.
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
	struct cth_ports ports;   /* the control port (--print-rules) */
	uint32_t min_port;        /* the lowest port an announcement may name */
};

/* Per connection, kept in the kernel's conntrack entry: at most 32
 * bytes.  The host keeps the version byte (priv_version below). */
struct @ID@_priv {
	uint8_t version;
	uint8_t announced;
};

/* The counters, indexes into @ID@_counters below. */
enum @ID@_counter { @UID@_ANNOUNCED, @UID@_EXPECTED, @UID@_REFUSED, @UID@_IGNORED };

#define @UID@_WORD "OPEN "

static int @ID@_parse(const struct cth_packet *pkt, uint16_t *port);

/* The server's announcement: expect the client's connection to it. */
static int @ID@_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv_state,
		       const void *config)
{
	const struct @ID@_config *cfg = config;
	struct @ID@_priv *priv = priv_state;
	struct cth_expect exp;
	uint16_t port;
	int ret;

	/* TODO: which side announces; here the server (the reply direction) */
	if (pkt->dir != CTH_DIR_REPLY || @ID@_parse(pkt, &port) < 0)
		return CTH_VERDICT_ACCEPT;
	cth_count(ctx, @UID@_ANNOUNCED);
	if (port < cfg->min_port) {
		cth_count(ctx, @UID@_IGNORED);
		return CTH_VERDICT_ACCEPT;
	}
	if (priv->announced < 255)
		priv->announced++;

	/* the client (the receiver) connects to the server's own address
	 * (the sender's, as the client knows it) and the announced port;
	 * under NAT the connection follows this one to the real server.
	 * The port stays what the line says, so nothing is rewritten.
	 * TODO: an address in the payload too (a third host, or the
	 * server's private address under DNAT: then rewrite it with
	 * cth_mangle() to exp.dst), or a port that may be taken on the
	 * NAT address (cth_expect_free_port(), then rewrite the port) */
	cth_expect_to(&exp, pkt, 0, IPPROTO_TCP, &pkt->tuple[pkt->dir].src, port);
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_count(ctx, @UID@_REFUSED);
		cth_log(ctx, CTH_LOG_INFO, "cannot expect port %u (%d)", (unsigned int)port, ret);
		return cth_expect_verdict(ret);
	}
	cth_count(ctx, @UID@_EXPECTED);
	return CTH_VERDICT_ACCEPT;
}

/* The port of an "OPEN <port>" line at the start of the payload: 0, or
 * -EINVAL.  Everything from the network is hostile: read only within
 * payload_len, which is not a C string.  A line cut by the end of the
 * segment is not read here: cth_keep() shows it again with the next one
 * (plugin.h).
 * TODO: your protocol's announcement. */
static int @ID@_parse(const struct cth_packet *pkt, uint16_t *port)
{
	size_t line = cth_line_len(pkt->payload, pkt->payload_len), n;
	const size_t word = sizeof(@UID@_WORD) - 1;
	uint32_t v;

	if (line == pkt->payload_len || line <= word ||
	    memcmp(pkt->payload, @UID@_WORD, word) != 0)
		return -EINVAL;
	if (cth_parse_uint(pkt->payload + word, line - word, 65535, &v, &n) < 0 || v == 0 ||
	    (pkt->payload[word + n] != '\r' && pkt->payload[word + n] != '\n'))
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

/* TODO: your keys; the daemon parses and checks them, `cthelperd -n`
 * lists them. */
static const struct cth_key @ID@_keys[] = {
	{ .name = "ports", .type = CTH_KEY_PORTS, .flags = CTH_KEY_RULE_PORTS,
	  .offset = offsetof(struct @ID@_config, ports), .def = "@PORT@",
	  .doc = "TCP ports of the control connection" },
	{ .name = "min_port", .type = CTH_KEY_UINT,
	  .offset = offsetof(struct @ID@_config, min_port), .min = 1, .max = 65535,
	  .doc = "the lowest port an announcement may open" },
};

static const struct cth_counter @ID@_counters[] = {
	[@UID@_ANNOUNCED] = { "announced", "announcements seen" },
	[@UID@_EXPECTED] = { "expected", "connections expected" },
	[@UID@_REFUSED] = { "refused", "connections the host or the kernel refused to expect" },
	[@UID@_IGNORED] = { "ignored", "announcements below min_port" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "@NAME@",                   /* the file is @NAME@.so */
	.version = "0.1.0",
	.description = "TODO: one line",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct @ID@_priv),
	.config_size = sizeof(struct @ID@_config),
	.n_classes = 1,
	/* TODO: how many connections may wait at once, and how long */
	.classes = { { .name = "data", .max = 2, .timeout = 30 } },
	.packet = @ID@_packet,
	.keys = @ID@_keys,
	.n_keys = sizeof(@ID@_keys) / sizeof(@ID@_keys[0]),
	.counters = @ID@_counters,
	.n_counters = sizeof(@ID@_counters) / sizeof(@ID@_counters[0]),
	.priv_version = 1,
	.priv_version_at = offsetof(struct @ID@_priv, version),
	/*
	 * TODO, optional: on kmod/ only the packets these rules select reach
	 * the plugin (sdk/README.md, "Which packets reach the plugin"), e.g.
	 * .match = @ID@_match, .n_match = 1, with
	 * { .prefix = "DATA ", .at = CTH_MATCH_AT_LINE, .dirs = CTH_MATCH_REPLY };
	 * then check it with cthelper-replay --filter.
	 */
};
