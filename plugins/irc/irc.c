/* SPDX-License-Identifier: MIT */
/*
 * IRC helper plugin: a client's CTCP DCC offer (PRIVMSG or NOTICE
 * "\1DCC SEND file ADDR PORT SIZE\1", CHAT, TSEND, SCHAT, SSEND, MOVE)
 * opens the way for the peer's connection to the client's announced
 * port, from anywhere, only when the announced address is the client's
 * own; under SNAT the offer is rewritten to the NAT address and a free
 * port there.  Every offer of a segment counts, and an offer split across
 * segments is read whole (cth_keep()).  Behaviour and the differences
 * from the kernel's nf_conntrack_irc + nf_nat_irc are in docs/plugins/irc.md.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "irc.h"
#include "irc_parse.h"

/* An incomplete line longer than this is not kept for the next segment:
 * IRC lines are 512 bytes, message tags add up to 8191 (IRCv3). */
#define IRC_KEEP_MAX 8704u

/* Ports tried on the NAT address: one kernel request each, and the host
 * allows a packet 64 of them (plugin.h) shared by its offers. */
#define IRC_NAT_TRIES 8u

struct irc_run {
	struct cth_ctx *ctx;
	const struct cth_packet *pkt;
	size_t kept;
};

static int irc_line(struct irc_run *r, size_t off, size_t len);
static void irc_tail(struct irc_run *r, size_t off);
static int irc_offer(struct irc_run *r, const struct irc_dcc *d);

static int irc_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      void *priv, const void *config)
{
	struct irc_run r = { .ctx = ctx, .pkt = pkt, .kept = cth_kept(ctx, pkt) };
	size_t off = 0;

	(void)priv;
	(void)config;
	/* offers come from the client, as the kernel reads them; the DCC
	 * connection itself is not read */
	if (pkt->dir != CTH_DIR_ORIGINAL || (pkt->ct_status & CTH_CT_EXPECTED))
		return CTH_VERDICT_ACCEPT;
	while (off < pkt->payload_len) {
		size_t n = cth_line_len(pkt->payload + off, pkt->payload_len - off);

		if (off + n == pkt->payload_len) {
			irc_tail(&r, off);
			break;
		}
		if (irc_line(&r, off, n) == CTH_VERDICT_DROP)
			return CTH_VERDICT_DROP;
		off += n + 1;
	}
	return CTH_VERDICT_ACCEPT;
}

/* A segment that ends inside a line that may become an offer: show its
 * start again with the next segment. */
static void irc_tail(struct irc_run *r, size_t off)
{
	struct irc_dcc d;
	size_t n = r->pkt->payload_len - off;

	if (n > IRC_KEEP_MAX ||
	    irc_parse_line(r->pkt->payload, off, n, false, &d) != IRC_PARSE_MORE)
		return;
	if (cth_keep(r->ctx, off) < 0)
		cth_log(r->ctx, CTH_LOG_DEBUG, "cannot keep %zu bytes of a split line", n);
}

static int irc_line(struct irc_run *r, size_t off, size_t len)
{
	const struct cth_packet *pkt = r->pkt;
	int family = pkt->tuple[CTH_DIR_ORIGINAL].family;
	struct irc_dcc d;
	int ret = irc_parse_line(pkt->payload, off, len, true, &d);

	if (ret == -EINVAL) {
		cth_count(r->ctx, IRC_C_MALFORMED);
		cth_log(r->ctx, CTH_LOG_DEBUG, "DCC offer: %s", d.why);
		return CTH_VERDICT_ACCEPT;
	}
	if (ret != IRC_PARSE_DCC)
		return CTH_VERDICT_ACCEPT;
	cth_count(r->ctx, IRC_C_DCC);
	/* an IPv6 address offered over IPv4 IRC (or the reverse) cannot be
	 * checked against the connection, nor expected in its family */
	if (d.family != family) {
		cth_count(r->ctx, IRC_C_OTHER_FAMILY);
		return CTH_VERDICT_ACCEPT;
	}
	/* port 0: the receiver is asked to listen (reverse DCC); its own
	 * connection out needs no help here */
	if (d.port == 0) {
		cth_count(r->ctx, IRC_C_PASSIVE);
		return CTH_VERDICT_ACCEPT;
	}
	return irc_offer(r, &d);
}

/* Is the announced address the client's own, as it knows it or as the
 * server sees it after SNAT (the kernel's 2022 "forged IP" rule)? */
static bool irc_own(const struct cth_packet *pkt, const union cth_addr *a)
{
	int family = pkt->tuple[CTH_DIR_ORIGINAL].family;

	return cth_addr_equal(family, a, &pkt->tuple[CTH_DIR_ORIGINAL].src) ||
	       cth_addr_equal(family, a, &pkt->tuple[CTH_DIR_REPLY].dst);
}

static int irc_expect_plain(struct irc_run *r, struct cth_expect *exp);
static int irc_expect_nat(struct irc_run *r, struct cth_expect *exp, const struct irc_dcc *d);

/*
 * The peer connects from anywhere (a third host, not the IRC server) to
 * the client as the outside knows it, the announced port; no helper for
 * the DCC connection.  Under NAT it follows the master to the client.
 */
static int irc_offer(struct irc_run *r, const struct irc_dcc *d)
{
	struct cth_expect exp;

	if (!irc_own(r->pkt, &d->addr)) {
		cth_count(r->ctx, IRC_C_FORGED);
		cth_log_addr(r->ctx, CTH_LOG_INFO, "forged DCC offer: not the sender's address",
			     d->family, &d->addr, d->port);
		return CTH_VERDICT_ACCEPT;
	}
	cth_expect_to(&exp, r->pkt, IRC_CLASS, IPPROTO_TCP, &d->addr, d->port);
	exp.flags |= CTH_EXPECT_ANY_SRC;
	if (cth_addr_equal(d->family, &exp.dst, &d->addr))
		return irc_expect_plain(r, &exp);
	return irc_expect_nat(r, &exp, d);
}

static int irc_expect_failed(struct irc_run *r, const struct cth_expect *exp, int err)
{
	cth_count(r->ctx, IRC_C_EXPECT_ERRORS);
	cth_log_addr(r->ctx, CTH_LOG_INFO, "cannot expect the DCC connection to",
		     exp->family, &exp->dst, exp->dport);
	/* -ENOSPC: this packet's share of kernel requests is used up;
	 * dropping would only make its retransmission hit the same bound */
	return err == -ENOSPC ? CTH_VERDICT_ACCEPT : cth_expect_verdict(err);
}

static int irc_expect_plain(struct irc_run *r, struct cth_expect *exp)
{
	int ret = cth_expect(r->ctx, exp, 0);

	if (ret < 0)
		return irc_expect_failed(r, exp, ret);
	cth_count(r->ctx, IRC_C_OPENED);
	return CTH_VERDICT_ACCEPT;
}

static int irc_rewrite(struct irc_run *r, const struct cth_expect *exp, const struct irc_dcc *d);

/* SNAT: the peer must be told the NAT address and a port free there. */
static int irc_expect_nat(struct irc_run *r, struct cth_expect *exp, const struct irc_dcc *d)
{
	int ret;

	/* the offer's text went out with an earlier segment: too late to
	 * rewrite, and the peer could not reach the address it names */
	if (d->addr_text.off < r->kept) {
		cth_count(r->ctx, IRC_C_UNTRANSLATED);
		cth_log(r->ctx, CTH_LOG_INFO, "DCC offer split across segments under NAT: "
			"its address was forwarded already, nothing opened");
		return CTH_VERDICT_ACCEPT;
	}
	ret = cth_expect_free_port(r->ctx, exp, d->port, IRC_NAT_TRIES);
	if (ret < 0)
		return irc_expect_failed(r, exp, ret);
	cth_count(r->ctx, IRC_C_OPENED);
	if (irc_rewrite(r, exp, d) == 0) {
		cth_count(r->ctx, IRC_C_REWRITTEN);
		return CTH_VERDICT_ACCEPT;
	}
	/* as nf_nat_irc: an offer that cannot be rewritten must not leave
	 * with the private address, nor its expectation stay */
	cth_expect_ctl(r->ctx, CTH_EXPECT_OP_REMOVE, exp);
	return CTH_VERDICT_DROP;
}

/* Replace "ADDR PORT" with the NAT address, written as the offer wrote
 * its own, and the port. */
static int irc_rewrite(struct irc_run *r, const struct cth_expect *exp, const struct irc_dcc *d)
{
	char text[CTH_ADDR_STRLEN + 8];
	size_t end = d->port_text.off + d->port_text.len;
	int n, p;

	if (d->form == IRC_ADDR_DECIMAL)
		n = cth_format_uint(ntohl(exp->dst.ip), text, sizeof(text));
	else
		n = cth_addr_format(d->family, &exp->dst, text, sizeof(text));
	if (n < 0)
		return n;
	text[n++] = ' ';
	p = cth_format_uint(exp->dport, text + n, sizeof(text) - (size_t)n);
	if (p < 0)
		return p;
	n = cth_mangle(r->ctx, d->addr_text.off, end - d->addr_text.off, text, (size_t)(n + p));
	if (n < 0)
		cth_log(r->ctx, CTH_LOG_INFO, "cannot rewrite a DCC offer (%d)", n);
	return n;
}

static const struct cth_key irc_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct irc_config, ports),
		.def = "6667",
		.doc = "IRC server ports cthelperd --print-rules attaches the helper to",
	},
};

static const struct cth_counter irc_counters[IRC_C_COUNT] = {
	[IRC_C_DCC] = { "dcc", "DCC offers read (SEND, CHAT, TSEND, SCHAT, SSEND, TSSEND, MOVE)" },
	[IRC_C_OPENED] = { "opened", "expectations made for the peer's DCC connection" },
	[IRC_C_FORGED] = { "forged",
			   "offers naming an address not the sender's own: nothing opened" },
	[IRC_C_PASSIVE] = { "passive", "offers with port 0 (reverse DCC): nothing to open" },
	[IRC_C_OTHER_FAMILY] = { "other_family",
				 "offers naming an address of the other IP family: nothing opened" },
	[IRC_C_MALFORMED] = { "malformed", "DCC offers that do not parse: nothing opened" },
	[IRC_C_REWRITTEN] = { "rewritten", "offers rewritten to the NAT address and port" },
	[IRC_C_UNTRANSLATED] = { "untranslated",
				 "offers under NAT whose address left in an earlier segment" },
	[IRC_C_EXPECT_ERRORS] = { "expect_errors",
				  "DCC connections that could not be expected" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "irc",
	.version = "1.0.0",
	.description = "IRC: DCC offers open the peer's connection to the client; NAT rewrites them",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct irc_config),
	.n_classes = 1,
	/* the kernel's policy: max_dcc_channels 8, dcc_timeout 300 s */
	.classes = { [IRC_CLASS] = { .name = "irc", .max = 8, .timeout = 300 } },
	.packet = irc_packet,
	.keys = irc_keys,
	.n_keys = sizeof(irc_keys) / sizeof(irc_keys[0]),
	.counters = irc_counters,
	.n_counters = IRC_C_COUNT,
};
