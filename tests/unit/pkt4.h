/* SPDX-License-Identifier: MIT */
/*
 * One IPv4 packet of the connection 10.0.0.1:40000 -> 10.0.0.2:DPORT
 * (TCP or UDP) carrying TEXT, and its view as the worker's qmsg.c fills
 * it (original direction, established, conntrack id 7): for the tests of
 * the sandbox's channel (test_sandbox.c, test_chan_check.c).
 */
#ifndef CTH_TEST_PKT4_H
#define CTH_TEST_PKT4_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>

#include "host/packet.h"

static inline void pkt4_make(uint8_t *buf, size_t cap, uint8_t proto, uint16_t dport,
			     const char *text, struct cth_packet *view)
{
	struct iphdr *ip = (void *)buf;
	size_t l4 = proto == IPPROTO_TCP ? sizeof(struct tcphdr) : sizeof(struct udphdr);
	size_t len = sizeof(*ip) + l4 + strlen(text);
	struct cth_tuple *o, *rp;

	if (len > cap)
		abort();
	memset(buf, 0, cap);
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->tot_len = htons((uint16_t)len);
	inet_pton(AF_INET, "10.0.0.1", &ip->saddr);
	inet_pton(AF_INET, "10.0.0.2", &ip->daddr);
	if (proto == IPPROTO_TCP) {
		struct tcphdr *t = (void *)(buf + sizeof(*ip));

		t->source = htons(40000);
		t->dest = htons(dport);
		t->doff = 5;
		t->ack = 1;
		t->seq = htonl(1000);
	} else {
		struct udphdr *u = (void *)(buf + sizeof(*ip));

		u->source = htons(40000);
		u->dest = htons(dport);
		u->len = htons((uint16_t)(l4 + strlen(text)));
	}
	memcpy(buf + sizeof(*ip) + l4, text, strlen(text));
	memset(view, 0, sizeof(*view));
	if (pkt_view_parse(view, buf, len, AF_INET) < 0)
		abort();
	o = &view->tuple[CTH_DIR_ORIGINAL];
	rp = &view->tuple[CTH_DIR_REPLY];
	o->family = rp->family = AF_INET;
	o->proto = rp->proto = proto;
	o->src.ip = ip->saddr;
	o->dst.ip = ip->daddr;
	o->sport = htons(40000);
	o->dport = htons(dport);
	rp->src.ip = ip->daddr;
	rp->dst.ip = ip->saddr;
	rp->sport = o->dport;
	rp->dport = o->sport;
	view->dir = CTH_DIR_ORIGINAL;
	view->ctinfo = CTH_CT_ESTABLISHED;
	view->ct_id = 7;
}

#endif
