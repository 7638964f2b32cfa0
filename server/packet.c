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
#include <libnetfilter_queue/libnetfilter_queue_ipv4.h>
#include <libnetfilter_queue/libnetfilter_queue_ipv6.h>
#include <libnetfilter_queue/libnetfilter_queue_tcp.h>
#include <libnetfilter_queue/libnetfilter_queue_udp.h>
#include <libnetfilter_queue/pktbuff.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "log.h"
#include "packet.h"

/* Room for payload growth under NAT (an IPv6 address replacing a short
 * one, several rewrites in one SIP message). */
#define PKT_MANGLE_EXTRA 2048u

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
	} else if (pkt_ipv6_l4(data, len, &l4, &proto)) {
		return -EINVAL;
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

static int pkt_host_expect(struct cth_ctx *ctx, const struct cth_expect *e,
			   unsigned int how)
{
	struct pkt_call *c = pkt_call_of(ctx);

	if (!e || e->class >= c->inst->n_classes ||
	    e->family != c->pkt.tuple[0].family ||
	    (e->proto != IPPROTO_TCP && e->proto != IPPROTO_UDP) ||
	    e->dport == 0 || (how & ~(unsigned)CTH_EXPECT_SYNC))
		return -EINVAL;
	if ((e->flags & CTH_EXPECT_NAT) &&
	    e->nat_dir != CTH_DIR_ORIGINAL && e->nat_dir != CTH_DIR_REPLY)
		return -EINVAL;
	return c->expect_fn(c, e, how);
}

static int pkt_mangle_prepare(struct pkt_call *c)
{
	const struct cth_packet *p = &c->pkt;
	int family = p->tuple[0].family;

	c->pktb = pktb_alloc(family, (void *)p->data, p->len, PKT_MANGLE_EXTRA);
	if (!c->pktb)
		return -ENOMEM;
	if (family == AF_INET) {
		if (nfq_ip_set_transport_header(c->pktb, nfq_ip_get_hdr(c->pktb)) == 0)
			return 0;
	} else if (nfq_ip6_set_transport_header(c->pktb, nfq_ip6_get_hdr(c->pktb),
						p->tuple[0].proto) == 1) {
		return 0;
	}
	pktb_free(c->pktb);
	c->pktb = NULL;
	return -EINVAL;
}

/* libnetfilter_queue mangles and fixes lengths and IP/L4 checksums. */
static int pkt_mangle_apply(struct pkt_call *c, size_t off, size_t len,
			    const void *repl, size_t repl_len)
{
	bool v6 = c->pkt.tuple[0].family == AF_INET6;
	bool tcp = c->pkt.tuple[0].proto == IPPROTO_TCP;
	int ok;

	if (tcp)
		ok = (v6 ? nfq_tcp_mangle_ipv6 : nfq_tcp_mangle_ipv4)(
			c->pktb, (unsigned)off, (unsigned)len, repl, (unsigned)repl_len);
	else
		ok = (v6 ? nfq_udp_mangle_ipv6 : nfq_udp_mangle_ipv4)(
			c->pktb, (unsigned)off, (unsigned)len, repl, (unsigned)repl_len);
	return ok ? 0 : -ENOMEM;
}

/*
 * Offsets are in the payload the plugin was shown; ranges must come in
 * increasing order so that earlier length changes can be applied as a
 * running delta.
 */
static int pkt_host_mangle(struct cth_ctx *ctx, size_t off, size_t len,
			   const void *repl, size_t repl_len)
{
	struct pkt_call *c = pkt_call_of(ctx);
	const struct cth_packet *p = &c->pkt;
	int rc;

	if (off > p->payload_len || len > p->payload_len - off ||
	    off < c->mangle_end || (!repl && repl_len) || repl_len > 0xffff)
		return -EINVAL;
	if (repl_len != len && p->tuple[0].proto == IPPROTO_TCP && !p->nat)
		return -EPERM;
	if (p->len + (size_t)(c->delta + (long)repl_len - (long)len) > 0xffff)
		return -EINVAL;
	if (!c->pktb && (rc = pkt_mangle_prepare(c)) < 0)
		return rc;
	rc = pkt_mangle_apply(c, (size_t)((long)off + c->delta), len, repl, repl_len);
	if (rc)
		return rc;
	c->delta += (long)repl_len - (long)len;
	c->mangle_end = off + len;
	return 0;
}

static int pkt_host_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	struct pkt_call *c = pkt_call_of(ctx);

	c->has_timeout = true;
	c->timeout = seconds;
	return 0;
}

static int pkt_host_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	struct pkt_call *c = pkt_call_of(ctx);

	c->has_mark = true;
	c->mark = mark;
	return 0;
}

static int pkt_host_detach(struct cth_ctx *ctx)
{
	pkt_call_of(ctx)->detach = true;
	return 0;
}

/*
 * Plugins log per packet, so a peer could flood the log: each worker
 * thread may write PKT_LOG_BURST plugin lines per second, then counts
 * what it drops and says so once the next second starts.
 */
#define PKT_LOG_BURST 20u

static void pkt_host_vlog(struct cth_ctx *ctx, int level, const char *fmt,
			  va_list ap)
{
	static __thread time_t second;
	static __thread unsigned int used, dropped;
	const char *tag = pkt_call_of(ctx)->inst->name;
	time_t now;

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

const uint8_t *pkt_call_mangled(const struct pkt_call *c, size_t *len)
{
	if (!c->pktb || !pktb_mangled(c->pktb))
		return NULL;
	*len = pktb_len(c->pktb);
	return pktb_data(c->pktb);
}

void pkt_call_release(struct pkt_call *c)
{
	if (c->pktb)
		pktb_free(c->pktb);
	c->pktb = NULL;
}
