/* SPDX-License-Identifier: MIT */
/*
 * The code around a plugin call that does not depend on where packets come
 * from: the packet view, private state in and out, payload mangling with
 * checksum fixing, and argument checks on every host function.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "keep.h"
#include "base/log.h"
#include "runtime/guard.h"
#include "packet.h"

/* Walk IPv6 extension headers to the transport header.  Conntrack has
 * already reassembled fragments, so no fragment header is expected. */
static int pkt_ipv6_l4(const uint8_t *data, size_t len, size_t *off,
		       uint8_t *proto)
{
	const struct ip6_hdr *ip6 = (const void *)data;
	uint8_t nh;
	size_t o = sizeof(*ip6);

	if (len < sizeof(*ip6) || (data[0] >> 4) != 6)
		return -EINVAL;
	nh = ip6->ip6_nxt;
	for (int hops = 0; hops < 8; hops++) {
		if (nh == IPPROTO_TCP || nh == IPPROTO_UDP) {
			*off = o;
			*proto = nh;
			return 0;
		}
		if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING &&
		    nh != IPPROTO_DSTOPTS)
			return -EINVAL;
		if (o + 2 > len)
			return -EINVAL;
		nh = data[o];
		o += ((size_t)data[o + 1] + 1) * 8;
	}
	return -EINVAL;
}

int pkt_view_parse(struct cth_packet *p, const uint8_t *data, size_t len,
		   int family)
{
	size_t l4 = 0, hl;
	uint8_t proto = 0;

	if (family == AF_INET) {
		const struct iphdr *ip = (const void *)data;

		if (len < sizeof(*ip) || ip->version != 4 || ip->ihl < 5 ||
		    (size_t)ip->ihl * 4 > len)
			return -EINVAL;
		l4 = (size_t)ip->ihl * 4;
		proto = ip->protocol;
		if (ntohs(ip->tot_len) < len)   /* trailing padding */
			len = ntohs(ip->tot_len);
	} else {
		size_t full;

		if (pkt_ipv6_l4(data, len, &l4, &proto))
			return -EINVAL;
		/* trailing bytes past the payload length are not payload (a
		 * jumbogram's 0 is not trimmed; conntrack refuses those) */
		full = sizeof(struct ip6_hdr) + ntohs(((const struct ip6_hdr *)data)->ip6_plen);
		if (full != sizeof(struct ip6_hdr) && full < len)
			len = full;
	}
	if (proto == IPPROTO_TCP) {
		const struct tcphdr *th = (const void *)(data + l4);

		if (l4 + sizeof(*th) > len || (size_t)th->doff * 4 < sizeof(*th) ||
		    l4 + (size_t)th->doff * 4 > len)
			return -EINVAL;
		hl = (size_t)th->doff * 4;
		p->seq = ntohl(th->seq);
	} else if (proto == IPPROTO_UDP) {
		if (l4 + sizeof(struct udphdr) > len)
			return -EINVAL;
		hl = sizeof(struct udphdr);
		p->seq = 0;
	} else {
		return -EINVAL;
	}
	p->data = data;
	p->len = len;
	p->l4_offset = l4;
	p->payload_offset = l4 + hl;
	p->payload = data + l4 + hl;
	p->payload_len = len - l4 - hl;
	return 0;
}

static struct pkt_call *pkt_call_of(struct cth_ctx *ctx)
{
	return (struct pkt_call *)ctx;
}

/* An expectation a plugin hands over, to create or to refresh. */
static bool pkt_expect_valid(const struct pkt_call *c, const struct cth_expect *e)
{
	if (!e || e->class >= c->inst->n_classes ||
	    e->family != c->pkt.tuple[0].family ||
	    (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP) || e->dport == 0)
		return false;
	if ((e->flags & CTH_EXPECT_NAT) &&
	    e->nat_dir != CTH_DIR_ORIGINAL && e->nat_dir != CTH_DIR_REPLY)
		return false;
	/* unknown flags are a plugin built for a newer SDK: say so, do not
	 * half-do it; the function name is copied on every path */
	return !(e->flags & ~PKT_EXPECT_FLAGS) &&
	       !(e->fn && strnlen(e->fn, PKT_EXPECT_FN_MAX) >= PKT_EXPECT_FN_MAX);
}

/* The host's rule for every expectation (guard.h), whatever the plugin:
 * -EPERM, counted by the caller through n_refused. */
static int pkt_expect_guard(struct pkt_call *c, const struct cth_expect *e)
{
	const struct cth_packet *p = &c->pkt;

	if (guard_expect_check(&c->inst->guard, &p->tuple[CTH_DIR_ORIGINAL],
			       &p->tuple[CTH_DIR_REPLY], e) == 0)
		return 0;
	c->n_refused++;
	return -EPERM;
}

/* Hand one host call's answer to the trace, if any; returns rc. */
static int pkt_trace(struct pkt_call *c, struct pkt_event ev)
{
	if (c->trace)
		c->trace(c, &ev);
	return ev.rc;
}

static int pkt_host_expect(struct cth_ctx *ctx, const struct cth_expect *e,
			   unsigned int how)
{
	struct pkt_call *c = pkt_call_of(ctx);
	int rc = -EINVAL;

	if (pkt_expect_valid(c, e) && !(how & ~(unsigned)CTH_EXPECT_SYNC))
		rc = pkt_expect_guard(c, e);
	if (rc == 0)
		rc = c->expect_fn(c, e, how);
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_EXPECT, .rc = rc,
						.exp = e, .how = how });
}

static int pkt_expect_ctl_check(struct pkt_call *c, unsigned int op,
				const struct cth_expect *e)
{
	if (op == CTH_EXPECT_OP_FLUSH) {
		if (e && e->class >= c->inst->n_classes)
			return -EINVAL;
	} else if (op == CTH_EXPECT_OP_REFRESH) {
		if (!pkt_expect_valid(c, e) || e->timeout > PKT_EXPECT_TIMEOUT_MAX)
			return -EINVAL;
		if (pkt_expect_guard(c, e) < 0)
			return -EPERM;
	} else if (op == CTH_EXPECT_OP_REMOVE) {
		if (!e || e->family != c->pkt.tuple[0].family ||
		    (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP) ||
		    (e->flags & ~PKT_EXPECT_FLAGS))
			return -EINVAL;
	} else {
		return -EINVAL;
	}
	return c->expect_ctl_fn ? 0 : -EOPNOTSUPP;
}

static int pkt_host_expect_ctl(struct cth_ctx *ctx, unsigned int op,
			       const struct cth_expect *e)
{
	struct pkt_call *c = pkt_call_of(ctx);
	int rc = pkt_expect_ctl_check(c, op, e);

	if (rc == 0)
		rc = c->expect_ctl_fn(c, op, e);
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_EXPECT_CTL, .rc = rc,
						.exp = e, .how = op });
}

static int pkt_host_mangle(struct cth_ctx *ctx, size_t off, size_t len,
			   const void *repl, size_t repl_len)
{
	struct pkt_call *c = pkt_call_of(ctx);
	int rc = pkt_edit_add(c, off, len, repl, repl_len);

	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_MANGLE, .rc = rc,
						.off = off, .len = len, .repl = repl,
						.repl_len = repl_len });
}

static int pkt_host_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	struct pkt_call *c = pkt_call_of(ctx);

	c->has_timeout = true;
	c->timeout = seconds;
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_TIMEOUT, .value = seconds });
}

static int pkt_host_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	struct pkt_call *c = pkt_call_of(ctx);
	bool masked;

	/* the verdict sends CTA_MARK_MASK too: Linux 6.1
	 * ctnetlink_change_mark() keeps the bits outside it */
	c->mark = guard_mark(&c->inst->guard, mark, &masked);
	c->mark_mask = c->inst->guard.mark_mask;
	c->has_mark = c->mark_mask != 0;
	c->mark_masked |= masked;
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_MARK, .value = mark });
}

static int pkt_host_detach(struct cth_ctx *ctx)
{
	struct pkt_call *c = pkt_call_of(ctx);

	/* Linux 6.1 ctnetlink_change_helper(): a connection with a master
	 * may not change helper (-EBUSY), and that error voids the whole
	 * NFQA_CT of the verdict (mark, expectation, seq adjustment). */
	if (c->pkt.ct_status & CTH_CT_EXPECTED)
		return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_DETACH,
							.rc = -EOPNOTSUPP });
	c->detach = true;
	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_DETACH });
}

bool pkt_view_partial(const struct cth_packet *p)
{
	const uint8_t *d = p->data;

	if ((d[0] >> 4) == 4)
		return ((size_t)d[2] << 8 | d[3]) > p->len;
	return (d[4] | d[5]) == 0 ||
	       sizeof(struct ip6_hdr) + ((size_t)d[4] << 8 | d[5]) > p->len;
}

/*
 * Keeping needs the segment's end, which only a whole TCP packet gives
 * (the next segment's sequence number follows from it); UDP datagrams
 * are messages of their own.
 */
static int pkt_keep_do(struct pkt_call *c, size_t off)
{
	if (!c->keep || c->pkt.tuple[CTH_DIR_ORIGINAL].proto != IPPROTO_TCP)
		return -EOPNOTSUPP;
	if (c->truncated || pkt_view_partial(&c->pkt))
		return -EMSGSIZE;
	if (off > c->pkt.payload_len)
		return -EINVAL;
	return keep_ask(c, off);
}

static int pkt_host_keep(struct cth_ctx *ctx, size_t off)
{
	struct pkt_call *c = pkt_call_of(ctx);

	return pkt_trace(c, (struct pkt_event){ .type = PKT_EV_KEEP,
						.rc = pkt_keep_do(c, off), .off = off });
}

/*
 * Plugins log per packet, so a peer could flood the log: each worker
 * thread may write PKT_LOG_BURST plugin lines per second, then counts
 * what it drops and says so once the next second starts.
 */
#define PKT_LOG_BURST 20u

static void pkt_host_vlog(struct cth_ctx *ctx, int level, const char *fmt,
			  va_list ap) __attribute__((format(printf, 3, 0)));
static void pkt_host_vlog(struct cth_ctx *ctx, int level, const char *fmt,
			  va_list ap)
{
	static __thread time_t second;
	static __thread unsigned int used, dropped;
	struct pkt_call *c = pkt_call_of(ctx);
	const char *tag = c->inst->name;
	time_t now;

	if (c->trace) {
		char line[1024];

		vsnprintf(line, sizeof(line), fmt, ap);
		pkt_trace(c, (struct pkt_event){ .type = PKT_EV_LOG,
						 .value = (uint32_t)level, .text = line });
		return;
	}
	if (!log_enabled(level))
		return;
	now = time(NULL);
	if (now != second) {
		if (dropped)
			log_warn("%u plugin log lines suppressed (rate limit)", dropped);
		second = now;
		used = dropped = 0;
	}
	if (used >= PKT_LOG_BURST) {
		dropped++;
		return;
	}
	used++;
	log_vmsg(level, tag, fmt, ap);
}

static const struct cth_host pkt_host = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_host),
	.expect = pkt_host_expect,
	.mangle = pkt_host_mangle,
	.set_timeout = pkt_host_set_timeout,
	.set_mark = pkt_host_set_mark,
	.detach = pkt_host_detach,
	.vlog = pkt_host_vlog,
	.expect_ctl = pkt_host_expect_ctl,
	.keep = pkt_host_keep,
};

int pkt_call_run(struct pkt_call *c, const uint8_t *priv, size_t priv_len)
{
	const struct cth_plugin_desc *d = c->inst->pl->desc;
	int verdict;

	c->pub.host = &pkt_host;
	memset(c->priv, 0, sizeof(c->priv));
	if (priv)
		memcpy(c->priv, priv, priv_len < d->priv_size ? priv_len : d->priv_size);
	uint8_t before[CTH_PRIV_MAX];
	memcpy(before, c->priv, sizeof(before));

	verdict = d->packet(&c->pub, &c->pkt, c->priv, c->inst->config);
	c->priv_changed = memcmp(before, c->priv, d->priv_size) != 0;
	return verdict == CTH_VERDICT_DROP ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT;
}

bool pkt_call_priv_differs(const struct pkt_call *c, const uint8_t *priv,
			   size_t priv_len)
{
	size_t n = c->inst->pl->desc->priv_size;
	uint8_t base[CTH_PRIV_MAX] = { 0 };

	if (priv)
		memcpy(base, priv, priv_len < n ? priv_len : n);
	return memcmp(base, c->priv, n) != 0;
}

const uint8_t *pkt_call_mangled(struct pkt_call *c, size_t *len)
{
	return pkt_edit_result(c, len);
}

void pkt_call_release(struct pkt_call *c)
{
	pkt_edit_release(c);
	keep_release(c);
}
