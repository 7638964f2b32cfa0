/* SPDX-License-Identifier: MIT */
/*
 * Reading queue messages (server/qmsg.c) that lie or lack things: every
 * packet with an id gets an answer, NFQA_CT is checked before use (an
 * IPv6 conntrack without addresses crashed the daemon), CTA_HELP_INFO's
 * real length is kept, truncated and GSO packets are flagged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "qmsg.h"

static uint8_t buf[65536];

/* An IPv6/TCP packet with 4 payload bytes. */
static size_t pkt6(uint8_t *p)
{
	struct ip6_hdr *ip6 = (void *)p;
	struct tcphdr *th = (void *)(p + sizeof(*ip6));

	memset(p, 0, 64);
	ip6->ip6_vfc = 0x60;
	ip6->ip6_plen = htons(sizeof(*th) + 4);
	ip6->ip6_nxt = IPPROTO_TCP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, "fd00:1::2", &ip6->ip6_src);
	inet_pton(AF_INET6, "fd00:2::2", &ip6->ip6_dst);
	th->source = htons(40000);
	th->dest = htons(21);
	th->doff = 5;
	memcpy(p + sizeof(*ip6) + sizeof(*th), "PORT", 4);
	return sizeof(*ip6) + sizeof(*th) + 4;
}

enum { WITH_REPLY_ADDRS = 1, WITH_HELP = 2, LONG_HELP = 4, BAD_MARK = 8,
       CAPPED = 16, GSO = 32 };

static void tuple_put(struct nlmsghdr *nlh, uint16_t type, const char *src,
		      const char *dst, uint16_t sport, uint16_t dport, bool addrs)
{
	struct nlattr *t = mnl_attr_nest_start(nlh, type), *n;
	uint8_t a[16];

	if (addrs) {
		n = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
		inet_pton(AF_INET6, src, a);
		mnl_attr_put(nlh, CTA_IP_V6_SRC, 16, a);
		inet_pton(AF_INET6, dst, a);
		mnl_attr_put(nlh, CTA_IP_V6_DST, 16, a);
		mnl_attr_nest_end(nlh, n);
	}
	n = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	mnl_attr_put_u8(nlh, CTA_PROTO_NUM, IPPROTO_TCP);
	mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, htons(sport));
	mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, htons(dport));
	mnl_attr_nest_end(nlh, n);
	mnl_attr_nest_end(nlh, t);
}

/* NFQA_CT the way the kernel's conntrack glue writes it. */
static void ct_nest_put(struct nlmsghdr *nlh, unsigned int how)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_CT);

	tuple_put(nlh, CTA_TUPLE_ORIG, "fd00:1::2", "fd00:2::2", 40000, 21, true);
	tuple_put(nlh, CTA_TUPLE_REPLY, "fd00:2::2", "fd00:1::2", 21, 40000,
		  how & WITH_REPLY_ADDRS);
	mnl_attr_put_u32(nlh, CTA_ID, htonl(0x1234));
	mnl_attr_put_u32(nlh, CTA_STATUS, htonl(IPS_CONFIRMED | IPS_SEEN_REPLY));
	mnl_attr_put_u16(nlh, CTA_ZONE, htons(5));
	if (how & (WITH_HELP | LONG_HELP)) {
		struct nlattr *h = mnl_attr_nest_start(nlh, CTA_HELP);

		mnl_attr_put_strz(nlh, CTA_HELP_NAME,
				  (how & LONG_HELP) ? "a-very-long-helper-name" : "ftp");
		mnl_attr_put(nlh, CTA_HELP_INFO, 3, "\x01\x02\x03");
		mnl_attr_nest_end(nlh, h);
	}
	mnl_attr_nest_end(nlh, nest);
}

static const struct nlmsghdr *msg_build(unsigned int how)
{
	struct nlmsghdr *nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_PACKET, 7);
	struct nfqnl_msg_packet_hdr ph = { .packet_id = htonl(42),
					   .hw_protocol = htons(ETH_P_IPV6) };
	uint8_t p[64];
	size_t plen = pkt6(p);

	mnl_attr_put(nlh, NFQA_PACKET_HDR, sizeof(ph), &ph);
	if (how & BAD_MARK)
		mnl_attr_put_u16(nlh, NFQA_MARK, 1);   /* a u32 attribute */
	mnl_attr_put(nlh, NFQA_PAYLOAD, plen, p);
	ct_nest_put(nlh, how);
	mnl_attr_put_u32(nlh, NFQA_CT_INFO, htonl(0));
	if (how & CAPPED)
		mnl_attr_put_u32(nlh, NFQA_CAP_LEN, htonl(1500));
	if (how & GSO)
		mnl_attr_put_u32(nlh, NFQA_SKB_INFO, htonl(NFQA_SKB_GSO));
	return nlh;
}

int main(void)
{
	struct qmsg m;
	int kind, rc;

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | WITH_HELP), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/ipv6-complete", kind == QMSG_PAYLOAD && rc == 0 && m.id == 42 &&
	      m.queue == 7 && m.view.tuple[1].sport == 21 && m.view.zone == 5 &&
	      m.view.ct_id == 0x1234 && strcmp(m.helper, "ftp") == 0 &&
	      m.view.payload_len == 4 && !m.truncated && !m.gso,
	      "kind %d rc %d id %u queue %u sport %u zone %u helper %s ctid %x plen %zu", kind, rc,
	      m.id, m.queue, m.view.tuple[1].sport, m.view.zone, m.helper, m.view.ct_id, m.view.payload_len);
	CHECK("qmsg/help-info-real-length", m.klen == 3 && m.kpriv &&
	      memcmp(m.kpriv, "\x01\x02\x03", 3) == 0, "klen %zu", m.klen);
	qmsg_release(&m);

	kind = qmsg_read(msg_build(WITH_HELP), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/ipv6-without-reply-addresses-refused", kind == QMSG_PAYLOAD &&
	      rc == -EINVAL, "kind %d rc %d", kind, rc);
	qmsg_release(&m);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | LONG_HELP), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/long-helper-name-is-nobody", rc == 0 && m.helper[0] == '\0',
	      "rc %d helper '%s'", rc, m.helper);
	qmsg_release(&m);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | BAD_MARK), &m);
	CHECK("qmsg/malformed-still-answered", kind == QMSG_MALFORMED && m.id == 42,
	      "kind %d id %u", kind, m.id);
	qmsg_release(&m);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | CAPPED | GSO), &m);
	CHECK("qmsg/truncated-and-gso-flagged", kind == QMSG_PAYLOAD && m.truncated && m.gso,
	      "kind %d truncated %d gso %d", kind, m.truncated, m.gso);
	qmsg_release(&m);

	/* every prefix of a good message: never a crash, never a verdict
	 * for an id that was not there */
	const struct nlmsghdr *full = msg_build(WITH_REPLY_ADDRS | WITH_HELP);
	uint32_t full_len = full->nlmsg_len;
	static uint8_t copy[65536];
	bool ok = true;

	for (uint32_t n = 0; n <= full_len; n++) {
		struct nlmsghdr *c = (void *)copy;

		memcpy(copy, full, full_len);
		c->nlmsg_len = n < sizeof(*c) ? (uint32_t)sizeof(*c) : n;
		kind = qmsg_read(c, &m);
		if (kind == QMSG_PAYLOAD)
			qmsg_conn_read(&m);
		if (kind >= QMSG_MALFORMED && m.id != 42)
			ok = false;
		qmsg_release(&m);
	}
	CHECK("qmsg/every-prefix", ok, "an id other than 42 was reported");
	return check_exit();
}
