/* SPDX-License-Identifier: MIT */
/*
 * SSDP helper plugin (UPnP discovery): an M-SEARCH sent to the SSDP group
 * opens the way for the unicast answers, which come from the devices of
 * the query's link to the querier's address and port; each answer is read
 * too (the expected connections get this helper), and its LOCATION opens
 * TCP to the answering device.  On those HTTP connections a GENA
 * SUBSCRIBE's CALLBACK opens the device's event connections back to the
 * subscriber, and each NOTIFY keeps the next one expectable.  Behaviour
 * and the differences from conntrackd's ssdp helper are in
 * docs/plugins/ssdp.md.
 */
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#include "ssdp.h"
#include "ssdp_parse.h"

static int ssdp_query(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      const struct ssdp_config *cfg);
static int ssdp_answer(struct cth_ctx *ctx, const struct cth_packet *pkt,
		       const struct ssdp_config *cfg);
static int ssdp_http(struct cth_ctx *ctx, const struct cth_packet *pkt);
static int ssdp_subscribe(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const struct ssdp_msg *msg, bool partial);
static int ssdp_notify(struct cth_ctx *ctx, const struct cth_packet *pkt);
static int ssdp_callback_rewrite(struct cth_ctx *ctx, const struct cth_packet *pkt,
				 const struct cth_expect *exp, size_t at, const struct ssdp_url *url);
static bool ssdp_query_wanted(struct cth_ctx *ctx, const struct ssdp_config *cfg,
			      struct cth_link *link);
static bool ssdp_is_group(const struct cth_tuple *t);
static size_t ssdp_whole_lines(const uint8_t *buf, size_t len);
static int ssdp_done(struct cth_ctx *ctx, int ret, unsigned int counter, const char *what);
static int ssdp_pass(struct cth_ctx *ctx, unsigned int counter);

static int ssdp_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	(void)priv;
	if (pkt->tuple[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP)
		return ssdp_http(ctx, pkt);
	if (pkt->ct_status & CTH_CT_EXPECTED)
		return ssdp_answer(ctx, pkt, config);
	return ssdp_query(ctx, pkt, config);
}

/*
 * An M-SEARCH to the group: a PERMANENT expectation (many devices answer
 * one query) from the link's network, any port, to the querier's address
 * and port as the devices see them; under SNAT it follows the master back
 * (cth_expect_back()).  The answers get this helper, so their LOCATION is
 * read.  A locally sent multicast is queued twice (the kernel's
 * ip_mc_output() loops a clone back through POST_ROUTING first): both
 * copies ask for the same expectation on the verdict, and the second
 * replaces the first, so nothing here may depend on seeing it once.
 */
static int ssdp_query(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      const struct ssdp_config *cfg)
{
	struct cth_packet from_querier = *pkt;
	struct cth_link link;
	struct ssdp_msg msg;
	struct cth_expect exp;
	int ret;

	if (pkt->dir != CTH_DIR_ORIGINAL || !ssdp_is_group(&pkt->tuple[CTH_DIR_ORIGINAL]))
		return ssdp_pass(ctx, SSDP_C_OTHER);
	ret = ssdp_parse(pkt->payload, pkt->payload_len, &msg);
	if (ret == -EINVAL || msg.head_len == 0) {
		cth_log(ctx, CTH_LOG_DEBUG, "datagram to the group, %zu bytes: %s",
			pkt->payload_len, msg.why ? msg.why : "no whole start line");
		return ssdp_pass(ctx, SSDP_C_MALFORMED);
	}
	if (msg.kind != SSDP_MSEARCH || !ssdp_query_wanted(ctx, cfg, &link))
		return ssdp_pass(ctx, SSDP_C_OTHER);
	from_querier.dir = CTH_DIR_ORIGINAL;
	cth_expect_back(&exp, &from_querier, SSDP_CLASS, IPPROTO_UDP);
	exp.flags |= CTH_EXPECT_PERMANENT | CTH_EXPECT_HELPER;
	if (cfg->answers == SSDP_ANSWERS_ANY) {
		exp.flags |= CTH_EXPECT_ANY_SRC;
	} else if (cth_expect_src_net(&exp, &link) < 0) {
		cth_log(ctx, CTH_LOG_INFO, "M-SEARCH: no network known for its link, nothing opened");
		return ssdp_pass(ctx, SSDP_C_NO_LINK);
	}
	return ssdp_done(ctx, cth_expect(ctx, &exp, 0), SSDP_C_MSEARCH, "the answers");
}

/*
 * A unicast answer (the expected connection's datagrams from the device):
 * its LOCATION URL opens TCP from the querier to the address:port it
 * names, PERMANENT (the control point fetches the description, then
 * controls and subscribes on the same server), with this helper for the
 * SUBSCRIBE.  Only to the answerer's own address unless location_own is
 * off: conntrackd opens any address:port an answer names, so any
 * answering host could open the way to any internal service.
 */
static int ssdp_answer(struct cth_ctx *ctx, const struct cth_packet *pkt,
		       const struct ssdp_config *cfg)
{
	const struct cth_tuple *dev = &pkt->tuple[CTH_DIR_ORIGINAL];
	struct ssdp_msg msg;
	struct ssdp_url url;
	struct cth_expect exp;
	size_t voff, vlen;
	int ret;

	if (pkt->dir != CTH_DIR_ORIGINAL)
		return ssdp_pass(ctx, SSDP_C_OTHER);
	ret = ssdp_parse(pkt->payload, pkt->payload_len, &msg);
	if (ret == -EINVAL || msg.head_len == 0)
		return ssdp_pass(ctx, SSDP_C_MALFORMED);
	if (msg.kind != SSDP_RESPONSE || msg.status / 100 != 2)
		return ssdp_pass(ctx, SSDP_C_OTHER);
	ret = ssdp_header(pkt->payload, msg.head_len, "LOCATION", &voff, &vlen);
	if (ret == 0)
		return ssdp_pass(ctx, SSDP_C_OTHER);
	if (ret < 0 || ssdp_url_parse(pkt->payload + voff, vlen, dev->family, &url) < 0) {
		cth_log(ctx, CTH_LOG_DEBUG, "answer: LOCATION %.*s unusable",
			(int)(vlen < 80 ? vlen : 80), (const char *)pkt->payload + voff);
		return ssdp_pass(ctx, SSDP_C_MALFORMED);
	}
	if (!cth_addr_equal(dev->family, &url.addr, &dev->src) && cfg->location_own) {
		cth_log_addr(ctx, CTH_LOG_INFO, "answer: LOCATION names another host,", dev->family,
			     &url.addr, url.port);
		return ssdp_pass(ctx, SSDP_C_LOCATION_REFUSED);
	}
	/* From the querier's own address to the URL's as named, never
	 * following the master: under SNAT of the query the answer's
	 * source is mapped to the group's address (nf_nat_follow_master
	 * maps it to the master's destination), while the device's address
	 * in the URL is real and the firewall's own NAT rules take the new
	 * connection. */
	memset(&exp, 0, sizeof(exp));
	exp.class = SSDP_CLASS_HTTP;
	exp.flags = CTH_EXPECT_PERMANENT | CTH_EXPECT_HELPER;
	exp.family = dev->family;
	exp.proto = IPPROTO_TCP;
	cth_addr_copy(dev->family, &exp.src, &pkt->tuple[CTH_DIR_REPLY].src);
	cth_addr_copy(dev->family, &exp.dst, &url.addr);
	exp.dport = url.port;
	return ssdp_done(ctx, cth_expect(ctx, &exp, 0), SSDP_C_LOCATION, "the LOCATION");
}

/*
 * The HTTP connections this helper opened (LOCATION, CALLBACK, NOTIFY):
 * their requests in the original direction.  Other TCP connections (a
 * rule that attaches the helper to TCP 1900) and the answers pass unread.
 */
static int ssdp_http(struct cth_ctx *ctx, const struct cth_packet *pkt)
{
	struct ssdp_msg msg;
	int ret;

	if (!(pkt->ct_status & CTH_CT_EXPECTED) || pkt->dir != CTH_DIR_ORIGINAL)
		return ssdp_pass(ctx, SSDP_C_OTHER);
	ret = ssdp_parse(pkt->payload, pkt->payload_len, &msg);
	if (ret == -EAGAIN && msg.head_len == 0) {
		/* a start line split across segments: worth keeping when it
		 * may still become one of ours */
		if (cth_prefix_match(pkt->payload, pkt->payload_len, "SUBSCRIBE ") ||
		    cth_prefix_match(pkt->payload, pkt->payload_len, "NOTIFY "))
			cth_keep(ctx, 0);
		return CTH_VERDICT_ACCEPT;
	}
	if (ret == -EINVAL) /* a body, or not HTTP */
		return ssdp_pass(ctx, SSDP_C_OTHER);
	/* a LOCATION's connection (its master the UDP answer) carries the
	 * control point's SUBSCRIBE; an event connection (its master a
	 * SUBSCRIBE's or a NOTIFY's) the device's NOTIFY: not the other
	 * way round (conntrackd reads both on every connection it helps) */
	if (msg.kind == SSDP_SUBSCRIBE && pkt->master.proto != IPPROTO_TCP)
		return ssdp_subscribe(ctx, pkt, &msg, ret == -EAGAIN);
	if (msg.kind == SSDP_NOTIFY && pkt->master.proto != IPPROTO_UDP)
		return ssdp_notify(ctx, pkt);
	return ssdp_pass(ctx, SSDP_C_OTHER);
}

/*
 * GENA SUBSCRIBE with CALLBACK: the device will connect to the first
 * callback URL for each event (a new connection each time, usually):
 * one is expected, helped, and each NOTIFY expects the next.  Only the
 * subscriber's own address is
 * opened (conntrackd's rule too); under SNAT the URL is rewritten to the
 * NAT address, the port kept (the event connection follows the master to
 * it).  A renewal (SID, no CALLBACK) opens nothing.  The headers may come
 * in several segments: kept until the CALLBACK line is whole.
 */
static int ssdp_subscribe(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const struct ssdp_msg *msg, bool partial)
{
	const int family = pkt->tuple[CTH_DIR_ORIGINAL].family;
	size_t head = partial ? ssdp_whole_lines(pkt->payload, msg->head_len) : msg->head_len;
	size_t voff, vlen, uoff, ulen;
	struct cth_expect exp;
	struct ssdp_url url;
	int ret;

	ret = ssdp_header(pkt->payload, head, "CALLBACK", &voff, &vlen);
	if (ret == 0 && partial) {
		cth_keep(ctx, 0);
		return CTH_VERDICT_ACCEPT;
	}
	if (ret == 0)
		return ssdp_pass(ctx, SSDP_C_OTHER);
	if (ret < 0 || ssdp_callback_first(pkt->payload + voff, vlen, &uoff, &ulen) < 0 ||
	    ssdp_url_parse(pkt->payload + voff + uoff, ulen, family, &url) < 0)
		return ssdp_pass(ctx, SSDP_C_MALFORMED);
	if (!cth_expect_to(&exp, pkt, SSDP_CLASS_HTTP, IPPROTO_TCP, &url.addr, url.port)) {
		cth_log_addr(ctx, CTH_LOG_INFO, "SUBSCRIBE: CALLBACK names another host,", family,
			     &url.addr, url.port);
		return ssdp_pass(ctx, SSDP_C_CALLBACK_REFUSED);
	}
	/* not PERMANENT: the first event connection takes it, and its
	 * NOTIFY expects the next (ssdp_notify()); a permanent one would
	 * clash with that renewal and end at the class timeout */
	exp.flags |= CTH_EXPECT_HELPER;
	ret = ssdp_callback_rewrite(ctx, pkt, &exp, voff + uoff, &url);
	if (ret < 0)
		return ssdp_done(ctx, ret, SSDP_C_CALLBACK, "the CALLBACK");
	return ssdp_done(ctx, cth_expect(ctx, &exp, 0), SSDP_C_CALLBACK, "the CALLBACK");
}

/*
 * A GENA NOTIFY on an event connection the helper opened: expect the
 * device's next event connection like this one (its address, any port,
 * to the subscriber's callback address:port), with this connection as
 * master, so eventing goes on after the CALLBACK's expectation expired.
 * It lives as long as this connection does (the kernel removes a master's
 * expectations with it), as conntrackd's does.
 */
static int ssdp_notify(struct cth_ctx *ctx, const struct cth_packet *pkt)
{
	struct cth_packet from_subscriber = *pkt;
	struct cth_expect exp;

	/* the device sends it: the next one travels this connection's way */
	from_subscriber.dir = CTH_DIR_REPLY;
	cth_expect_back(&exp, &from_subscriber, SSDP_CLASS_HTTP, IPPROTO_TCP);
	exp.dport = pkt->tuple[CTH_DIR_ORIGINAL].dport;
	exp.flags |= CTH_EXPECT_HELPER;
	return ssdp_done(ctx, cth_expect(ctx, &exp, 0), SSDP_C_NOTIFY, "the next NOTIFY");
}

/* "ADDR:PORT" of the callback URL at payload offset at, to what the device
 * must connect to (exp's destination) when NAT changed it.  A URL that
 * began in a segment already forwarded (kept bytes) cannot be rewritten
 * any more: refused like the host's rule (-EPERM), so the packet passes
 * and nothing is opened. */
static int ssdp_callback_rewrite(struct cth_ctx *ctx, const struct cth_packet *pkt,
				 const struct cth_expect *exp, size_t at, const struct ssdp_url *url)
{
	char text[CTH_ADDR_STRLEN + 10], port[8];
	int n = 0;

	if (cth_addr_equal(exp->family, &exp->dst, &url->addr))
		return 0;
	if (at + url->host_off < cth_kept(ctx, pkt))
		return -EPERM;
	if (exp->family == AF_INET6)
		text[n++] = '[';
	n += cth_addr_format(exp->family, &exp->dst, text + n, CTH_ADDR_STRLEN);
	if (exp->family == AF_INET6)
		text[n++] = ']';
	if (url->has_port && cth_format_uint(url->port, port, sizeof(port)) > 0) {
		text[n++] = ':';
		memcpy(text + n, port, strlen(port));
		n += (int)strlen(port);
	}
	return cth_mangle(ctx, at + url->host_off, url->host_len, text, (size_t)n);
}

/* Which M-SEARCHes to help: outgoing / incoming (this host's own: no
 * interface it came in by), and the link's network for answers = link. */
static bool ssdp_query_wanted(struct cth_ctx *ctx, const struct ssdp_config *cfg,
			      struct cth_link *link)
{
	if (cth_link(ctx, link) < 0 && link->in_ifindex == 0 && link->out_ifindex == 0)
		return true; /* no link view: the rules decide */
	return link->in_ifindex == 0 ? cfg->outgoing : cfg->incoming;
}

/* 239.255.255.250, ff02::c (link-local), ff05::c (site-local) */
static bool ssdp_is_group(const struct cth_tuple *t)
{
	static const uint8_t v4[4] = { 239, 255, 255, 250 };
	static const uint8_t v6[14] = { 0 };
	const uint8_t *a = t->dst.raw;

	if (t->family == AF_INET)
		return memcmp(a, v4, 4) == 0;
	return t->family == AF_INET6 && a[0] == 0xff && (a[1] == 0x02 || a[1] == 0x05) &&
	       memcmp(a + 2, v6, 13) == 0 && a[15] == 0x0c;
}

/* The bytes of buf[0..len) up to its last line feed. */
static size_t ssdp_whole_lines(const uint8_t *buf, size_t len)
{
	while (len > 0 && buf[len - 1] != '\n')
		len--;
	return len;
}

/* Count what cth_expect() (or the rewrite before it) answered; a failure
 * drops the packet (the sender repeats it) unless the host's rule refused
 * it (cth_expect_verdict()). */
static int ssdp_done(struct cth_ctx *ctx, int ret, unsigned int counter, const char *what)
{
	if (ret < 0) {
		cth_count(ctx, SSDP_C_EXPECT_ERRORS);
		cth_log(ctx, CTH_LOG_INFO, "cannot expect %s (%d)", what, ret);
		return cth_expect_verdict(ret);
	}
	cth_count(ctx, counter);
	return CTH_VERDICT_ACCEPT;
}

static int ssdp_pass(struct cth_ctx *ctx, unsigned int counter)
{
	cth_count(ctx, counter);
	return CTH_VERDICT_ACCEPT;
}

static const char *const ssdp_answers_choices[] = { "link", "any", NULL };

static const struct cth_key ssdp_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct ssdp_config, ports),
		.def = "1900",
		.doc = "SSDP ports cthelperd --print-rules attaches the helper to (udp)",
	},
	{
		.name = "outgoing",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_OUTPUT,
		.offset = offsetof(struct ssdp_config, outgoing),
		.def = "yes",
		.doc = "help the M-SEARCHes this host sends (raw OUTPUT rules)",
	},
	{
		.name = "incoming",
		.type = CTH_KEY_BOOL,
		.flags = CTH_KEY_RULE_PREROUTING,
		.offset = offsetof(struct ssdp_config, incoming),
		.def = "yes",
		.doc = "help the M-SEARCHes that arrive, forwarded or for this host (raw PREROUTING rules)",
	},
	{
		.name = "answers",
		.type = CTH_KEY_CHOICE,
		.offset = offsetof(struct ssdp_config, answers),
		.choices = ssdp_answers_choices,
		.def = "link",
		.doc = "link: answers only from the network of the query's link; any: from "
		       "anywhere, as conntrackd",
	},
	{
		.name = "location_own",
		.type = CTH_KEY_BOOL,
		.offset = offsetof(struct ssdp_config, location_own),
		.def = "yes",
		.doc = "yes: a LOCATION opens TCP only to the answering device's own address; "
		       "no: to any address it names, as conntrackd",
	},
};

static const struct cth_counter ssdp_counters[SSDP_C_COUNT] = {
	[SSDP_C_MSEARCH] = { "msearch", "M-SEARCHes to the group that opened the answers" },
	[SSDP_C_NO_LINK] = { "no_link",
			     "M-SEARCHes whose link has no known network (answers = link): "
			     "nothing opened" },
	[SSDP_C_LOCATION] = { "location", "answers whose LOCATION opened TCP to the device" },
	[SSDP_C_LOCATION_REFUSED] = { "location_refused",
				      "answers whose LOCATION names another host: nothing opened" },
	[SSDP_C_CALLBACK] = { "callback", "SUBSCRIBEs whose CALLBACK opened the event connections" },
	[SSDP_C_CALLBACK_REFUSED] = { "callback_refused",
				      "SUBSCRIBEs whose CALLBACK names another host: nothing opened" },
	[SSDP_C_NOTIFY] = { "notify", "NOTIFY events that kept the next event connection open" },
	[SSDP_C_EXPECT_ERRORS] = { "expect_errors",
				   "expectations that could not be made (packet dropped or passed)" },
	[SSDP_C_MALFORMED] = { "malformed", "messages, headers or URLs that do not parse: "
				"nothing opened" },
	[SSDP_C_OTHER] = { "other", "other packets read and passed (NOTIFY alive, answers "
			   "without LOCATION, bodies)" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "ssdp",
	.version = "1.0.0",
	.description = "SSDP: unicast answers to an M-SEARCH, LOCATION, GENA CALLBACK/NOTIFY",
	.protocols = CTH_PROTO_UDP | CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = 0,
	.config_size = sizeof(struct ssdp_config),
	.n_classes = 2,
	/* conntrackd's policy: 8 pending, 5 minutes */
	.classes = {
		[SSDP_CLASS] = { .name = "ssdp", .max = 8, .timeout = 300 },
		[SSDP_CLASS_HTTP] = { .name = "http", .max = 8, .timeout = 300 },
	},
	.packet = ssdp_packet,
	.keys = ssdp_keys,
	.n_keys = sizeof(ssdp_keys) / sizeof(ssdp_keys[0]),
	.counters = ssdp_counters,
	.n_counters = SSDP_C_COUNT,
};
