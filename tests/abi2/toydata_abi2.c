/* SPDX-License-Identifier: MIT */
/*
 * toydata: the example helper of the cthelperd SDK (README.md walks
 * through it).  The toy protocol: on a TCP control connection the server
 * sends a line "DATA <port>" (CR LF or LF), and the client then opens a
 * second TCP connection to the server on that port.  A firewall that lets
 * only the control port in needs this helper to let that connection pass.
 *
 * What it shows: reading the payload, an expectation from the client to
 * the server's announced port, private state kept in the kernel's
 * conntrack entry, a configuration key, and the NAT case (the port is
 * rewritten when the server's port cannot be kept, and the expected
 * connection follows the master to the real server).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

/* Per connection, in the conntrack entry: how many DATA lines were seen
 * (shown in the log; a real protocol would keep its parser state here). */
struct toy_priv {
	uint8_t seen;
};

/* Per [helper NAME] section: the lowest port a DATA line may name. */
struct toy_config {
	uint32_t min_port;
};

#define TOY_WORD "DATA "
#define TOY_NAT_TRIES 16

/* "min_port = N" in the helper's section; other keys are not ours. */
static int toy_configure(void *config, const char *key, const char *value)
{
	struct toy_config *cfg = config;
	uint32_t v;
	size_t n;

	if (strcmp(key, "min_port") != 0)
		return -ENOENT;
	if (cth_parse_uint(value, strlen(value), 65535, &v, &n) < 0 || v == 0 ||
	    n != strlen(value))
		return -EINVAL;
	cfg->min_port = v;
	return 0;
}

/* The port of a "DATA <port>" line at the start of the payload: 0 and
 * the digits' offset and length, or -EINVAL.  A line cut by the end of
 * the segment is not read: a real plugin keeps it for the next segment
 * (cth_keep(), see plugins/tns). */
static int toy_parse(const struct cth_packet *pkt, uint16_t *port, size_t *off,
		     size_t *len)
{
	size_t line = cth_line_len(pkt->payload, pkt->payload_len);
	size_t n;
	uint32_t v;

	if (line == pkt->payload_len || line < sizeof(TOY_WORD) ||
	    memcmp(pkt->payload, TOY_WORD, sizeof(TOY_WORD) - 1) != 0)
		return -EINVAL;
	*off = sizeof(TOY_WORD) - 1;
	if (cth_parse_uint(pkt->payload + *off, line - *off, 65535, &v, &n) < 0 ||
	    v == 0 || (pkt->payload[*off + n] != '\r' && pkt->payload[*off + n] != '\n'))
		return -EINVAL;
	*port = (uint16_t)v;
	*len = n;
	return 0;
}

/* Under NAT: a free port on the address the client dialled, the master's
 * NAT applied to the expected connection, and the line rewritten. */
static int toy_nat(struct cth_ctx *ctx, const struct cth_packet *pkt,
		   struct cth_expect *exp, uint16_t port, size_t off, size_t len)
{
	char text[8];
	int n, ret;

	exp->flags |= CTH_EXPECT_NAT;
	exp->nat_dir = CTH_DIR_ORIGINAL;
	cth_addr_copy(exp->family, &exp->nat_addr, &pkt->tuple[CTH_DIR_REPLY].src);
	exp->nat_port = port;
	exp->fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
	ret = cth_expect_free_port(ctx, exp, port, TOY_NAT_TRIES);
	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "no free port from %u (%d)", (unsigned int)port, ret);
		return cth_expect_verdict(ret);
	}
	if (exp->dport == port)
		return CTH_VERDICT_ACCEPT;
	n = snprintf(text, sizeof(text), "%u", (unsigned int)exp->dport);
	/* payload offsets; the host fixes lengths, checksums, sequence numbers */
	ret = cth_mangle(ctx, off, len, text, (size_t)n);
	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "cannot rewrite the port (%d)", ret);
		return CTH_VERDICT_DROP;
	}
	return CTH_VERDICT_ACCEPT;
}

static int toy_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv_state, const void *config)
{
	const struct toy_config *cfg = config;
	const struct cth_tuple *orig = &pkt->tuple[CTH_DIR_ORIGINAL];
	struct toy_priv priv;
	struct cth_expect exp;
	size_t off, len;
	uint16_t port;
	int ret;

	/* only the server announces ports */
	if (pkt->dir != CTH_DIR_REPLY || toy_parse(pkt, &port, &off, &len) < 0)
		return CTH_VERDICT_ACCEPT;
	if (port < cfg->min_port) {
		cth_log(ctx, CTH_LOG_INFO, "DATA %u below min_port %u, ignored",
			(unsigned int)port, (unsigned int)cfg->min_port);
		return CTH_VERDICT_ACCEPT;
	}
	memcpy(&priv, priv_state, sizeof(priv));
	if (priv.seen < 255)
		priv.seen++;
	memcpy(priv_state, &priv, sizeof(priv));

	/* from the client, any source port, to where it dialled the server */
	memset(&exp, 0, sizeof(exp));
	exp.class = 0;
	exp.family = orig->family;
	exp.proto = IPPROTO_TCP;
	exp.dport = port;
	cth_addr_copy(orig->family, &exp.src, &orig->src);
	cth_addr_copy(orig->family, &exp.dst, &orig->dst);
	cth_log_addr(ctx, CTH_LOG_DEBUG, "DATA", orig->family, &exp.dst, port);
	if (pkt->nat & (CTH_NAT_SRC | CTH_NAT_DST))
		return toy_nat(ctx, pkt, &exp, port, off, len);
	ret = cth_expect(ctx, &exp, 0);
	if (ret < 0) {
		cth_log(ctx, CTH_LOG_INFO, "cannot expect port %u (%d)", (unsigned int)port, ret);
		/* a busy port or a kernel error: DROP, the retransmission tries
		 * again; the host's rule (-EPERM) is final: ACCEPT */
		return cth_expect_verdict(ret);
	}
	return CTH_VERDICT_ACCEPT;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "toydata",
	.version = "1.0.0",
	.description = "SDK example: \"DATA <port>\" opens a data connection",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_SIZE(struct toy_priv),
	.config_size = sizeof(struct toy_config),
	.n_classes = 1,
	.classes = { { .name = "data", .max = 2, .timeout = 30 } },
	.configure = toy_configure,
	.packet = toy_packet,
};
