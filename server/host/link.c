/* SPDX-License-Identifier: MIT */
/*
 * cth_link() worked out (link.h): the link side of a packet is the
 * interface it leaves by, or the one it came in by when it is delivered
 * here; its network is picked from that interface's addresses by the
 * rules at struct cth_link in plugin.h, in their order.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "link.h"

static const struct link_addr *link_by_brd(const struct link_pkt *p, uint32_t side,
					   const struct link_addr *tab, size_t n,
					   bool primary_only);
static const struct link_addr *link_by_src(const struct link_pkt *p, uint32_t side,
					   const struct link_addr *tab, size_t n);
static const struct link_addr *link_first(const struct link_pkt *p, uint32_t side,
					  const struct link_addr *tab, size_t n);
static void link_net_set(struct cth_link *l, int family, const union cth_addr *a,
			 unsigned int prefix);

void link_fill(struct cth_link *l, const struct link_pkt *p, const struct link_addr *tab,
	       size_t n)
{
	static const union cth_addr ll = { .raw = { 0xfe, 0x80 } };
	uint32_t side = p->out_ifindex ? p->out_ifindex : p->in_ifindex;
	const struct link_addr *a;

	memset(l, 0, sizeof(*l));
	l->in_ifindex = p->in_ifindex;
	l->out_ifindex = p->out_ifindex;
	l->dst_kind = link_dst_kind(p->family, &p->dst);
	if (!side || (p->family != AF_INET && p->family != AF_INET6))
		return;
	/* a broadcast of a secondary network is still a broadcast; only a
	 * primary one names the network (Linux 6.1
	 * nf_conntrack_broadcast_help() skips IFA_F_SECONDARY) */
	if (l->dst_kind == CTH_DST_UNICAST && link_by_brd(p, side, tab, n, false))
		l->dst_kind = CTH_DST_BROADCAST;
	a = l->dst_kind == CTH_DST_BROADCAST ? link_by_brd(p, side, tab, n, true) : NULL;
	if (a) {
		link_net_set(l, a->family, &a->addr, a->prefix);
		return;
	}
	/* every IPv6 interface has fe80::/64; its addresses may not list
	 * it (an interface may run with addr_gen_mode none) */
	if (p->family == AF_INET6 && link_addr_in(AF_INET6, &p->src, &ll, 10)) {
		link_net_set(l, AF_INET6, &p->src, 64);
		return;
	}
	a = link_by_src(p, side, tab, n);
	if (!a)
		a = link_first(p, side, tab, n);
	if (a)
		link_net_set(l, a->family, &a->addr, a->prefix);
}

uint8_t link_dst_kind(int family, const union cth_addr *dst)
{
	if (family == AF_INET6)
		return dst->raw[0] == 0xff ? CTH_DST_MULTICAST : CTH_DST_UNICAST;
	if ((dst->raw[0] & 0xf0) == 0xe0)
		return CTH_DST_MULTICAST;
	if (dst->ip == 0xffffffffu)
		return CTH_DST_BROADCAST_ALL;
	return CTH_DST_UNICAST;
}

bool link_brd(const struct link_addr *a, union cth_addr *brd)
{
	uint32_t host;

	memset(brd, 0, sizeof(*brd));
	if (a->family != AF_INET)
		return false;
	if (a->has_brd) {
		brd->ip = a->brd.ip;
		return brd->ip != 0;
	}
	/* "ip address add A/P dev D" without "brd +" sets no broadcast
	 * address; the network still has one (and the kernel's helper
	 * misses it) */
	if (a->prefix > 30 || a->prefix == 0)
		return false;
	host = htonl(0xffffffffu >> a->prefix);
	brd->ip = a->addr.ip | host;
	return true;
}

void link_addr_mask(int family, union cth_addr *a, unsigned int prefix)
{
	unsigned int bits = link_addr_bits(family);

	if (prefix >= bits) {
		if (family == AF_INET)
			memset(a->raw + 4, 0, sizeof(a->raw) - 4);
		return;
	}
	if (prefix % 8)
		a->raw[prefix / 8] &= (uint8_t)(0xffu << (8 - prefix % 8));
	memset(a->raw + (prefix + 7) / 8, 0, sizeof(a->raw) - (prefix + 7) / 8);
}

bool link_addr_in(int family, const union cth_addr *a, const union cth_addr *b,
		  unsigned int prefix)
{
	union cth_addr x = *a, y = *b;

	if (prefix > link_addr_bits(family))
		prefix = link_addr_bits(family);
	link_addr_mask(family, &x, prefix);
	link_addr_mask(family, &y, prefix);
	return memcmp(x.raw, y.raw, sizeof(x.raw)) == 0;
}

/* Rule 1: an IPv4 address of the side whose broadcast address is the
 * packet's destination. */
static const struct link_addr *link_by_brd(const struct link_pkt *p, uint32_t side,
					   const struct link_addr *tab, size_t n,
					   bool primary_only)
{
	union cth_addr brd;

	if (p->family != AF_INET)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (tab[i].ifindex != side || tab[i].family != AF_INET ||
		    (primary_only && tab[i].secondary))
			continue;
		if (link_brd(&tab[i], &brd) && brd.ip == p->dst.ip)
			return &tab[i];
	}
	return NULL;
}

/* Rule 2: the side's address whose network holds the source. */
static const struct link_addr *link_by_src(const struct link_pkt *p, uint32_t side,
					   const struct link_addr *tab, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (tab[i].ifindex == side && tab[i].family == p->family && tab[i].prefix &&
		    link_addr_in(p->family, &tab[i].addr, &p->src, tab[i].prefix))
			return &tab[i];
	return NULL;
}

/* Rule 3: IPv4 the side's first primary address, IPv6 its first global
 * one. */
static const struct link_addr *link_first(const struct link_pkt *p, uint32_t side,
					  const struct link_addr *tab, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (tab[i].ifindex != side || tab[i].family != p->family || !tab[i].prefix)
			continue;
		if (p->family == AF_INET ? !tab[i].secondary : tab[i].scope == 0)
			return &tab[i];
	}
	return NULL;
}

static void link_net_set(struct cth_link *l, int family, const union cth_addr *a,
			 unsigned int prefix)
{
	l->net = *a;
	l->net_prefix = (uint8_t)prefix;
	link_addr_mask(family, &l->net, prefix);
}

unsigned int link_addr_bits(int family)
{
	return family == AF_INET ? 32u : 128u;
}
