/* SPDX-License-Identifier: MIT */
/*
 * The packet view (packet.h): where the transport header and the payload
 * of a raw IPv4/IPv6 + TCP/UDP packet are, and its lengths and checksums
 * made right again after a rewrite.
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
#include <sys/socket.h>
#include <libnetfilter_queue/libnetfilter_queue_ipv4.h>
#include <libnetfilter_queue/libnetfilter_queue_ipv6.h>
#include <libnetfilter_queue/libnetfilter_queue_tcp.h>
#include <libnetfilter_queue/libnetfilter_queue_udp.h>

#include "packet.h"

static int pkt_ipv6_l4(const uint8_t *data, size_t len, size_t *off,
		       uint8_t *proto);
static void pkt_put16(uint8_t *p, size_t v);

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

bool pkt_view_partial(const struct cth_packet *p)
{
	const uint8_t *d = p->data;

	if ((d[0] >> 4) == 4)
		return ((size_t)d[2] << 8 | d[3]) > p->len;
	return (d[4] | d[5]) == 0 ||
	       sizeof(struct ip6_hdr) + ((size_t)d[4] << 8 | d[5]) > p->len;
}

/*
 * Lengths, then checksums (the library's sums read the length fields).
 * libnetfilter_queue 1.0.5 is used for its checksum functions only (its
 * packet buffers are not: edit.c says why).  Its UDP checksum functions
 * write a checksum that computes to 0 as 0, which means "none" on IPv4
 * and is dropped on IPv6; it is sent as 0xffff here.
 */
void pkt_sums_fix(uint8_t *pkt, size_t len, size_t l4, bool tcp)
{
	bool v6 = (pkt[0] >> 4) == 6;
	struct iphdr *ip = (struct iphdr *)pkt;
	struct ip6_hdr *ip6 = (struct ip6_hdr *)pkt;

	if (v6)
		pkt_put16(pkt + 4, len - sizeof(struct ip6_hdr));
	else
		pkt_put16(pkt + 2, len);
	if (tcp) {
		struct tcphdr *th = (struct tcphdr *)(pkt + l4);

		if (v6)
			nfq_tcp_compute_checksum_ipv6(th, ip6);
		else
			nfq_tcp_compute_checksum_ipv4(th, ip);
	} else {
		struct udphdr *uh = (struct udphdr *)(pkt + l4);

		pkt_put16(pkt + l4 + 4, len - l4);
		if (v6)
			nfq_udp_compute_checksum_ipv6(uh, ip6);
		else
			nfq_udp_compute_checksum_ipv4(uh, ip);
		/* RFC 768 / RFC 8200: a sum of 0 is sent as all ones */
		if (uh->check == 0)
			uh->check = 0xffff;
	}
	if (!v6)
		nfq_ip_set_checksum(ip);
}

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

static void pkt_put16(uint8_t *p, size_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}
