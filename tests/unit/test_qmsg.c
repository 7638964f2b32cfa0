/* SPDX-License-Identifier: MIT */
/*
 * Reading queue messages (server/worker/qmsg.c) that lie or lack things: every
 * packet with an id gets an answer, NFQA_CT is checked before use (an
 * IPv6 conntrack without addresses crashed the daemon), CTA_HELP_INFO's
 * real length is kept, truncated and GSO packets are flagged.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ctnest.h"
#include "worker/qmsg.h"

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

/* An IPv4/TCP packet with 4 payload bytes. */
static size_t pkt4(uint8_t *p)
{
	struct iphdr *ip = (void *)p;
	struct tcphdr *th = (void *)(p + sizeof(*ip));

	memset(p, 0, 64);
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons(sizeof(*ip) + sizeof(*th) + 4);
	ip->protocol = IPPROTO_TCP;
	ip->ttl = 64;
	inet_pton(AF_INET, "10.0.1.2", &ip->saddr);
	inet_pton(AF_INET, "10.0.2.2", &ip->daddr);
	th->source = htons(40000);
	th->dest = htons(21);
	th->doff = 5;
	memcpy(p + sizeof(*ip) + sizeof(*th), "PORT", 4);
	return sizeof(*ip) + sizeof(*th) + 4;
}

enum { WITH_REPLY_ADDRS = 1, WITH_HELP = 2, LONG_HELP = 4, BAD_MARK = 8,
       CAPPED = 16, GSO = 32, IPV4 = 64, MASTER = 128, MASTER_PART = 256,
       DUPS = 512, BIG_CT = 1024, IFACES = 2048, BAD_IFACE = 4096 };

/* NFQA_CT the way the kernel's conntrack glue writes it (DUPS: each
 * attribute after a copy that does not validate, and before a second
 * good one, which must not be used). */
static void ct_nest_put(struct nlmsghdr *nlh, unsigned int how)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_CT);
	bool v4 = how & IPV4;
	const char *a1 = v4 ? "10.0.1.2" : "fd00:1::2", *a2 = v4 ? "10.0.2.2" : "fd00:2::2";
	uint32_t status = IPS_CONFIRMED | IPS_SEEN_REPLY |
			  (how & (MASTER | MASTER_PART) ? IPS_EXPECTED : 0);

	if (how & DUPS) {
		mnl_attr_put_u16(nlh, CTA_STATUS, 1);          /* a u32 attribute */
		mnl_attr_put(nlh, CTA_TUPLE_ORIG, 2, "xx");   /* not a nest */
		mnl_attr_put_u8(nlh, CTA_ZONE, 9);            /* a u16 attribute */
	}
	ctnest_tuple_put(nlh, CTA_TUPLE_ORIG, a1, a2, 40000, 21, true);
	ctnest_tuple_put(nlh, CTA_TUPLE_REPLY, a2, a1, 21, 40000, how & WITH_REPLY_ADDRS);
	if (how & (MASTER | MASTER_PART))
		ctnest_tuple_put(nlh, CTA_TUPLE_MASTER, a1, a2, 1234, 5678, how & MASTER);
	if (how & BIG_CT) {
		static uint8_t junk[6000];

		mnl_attr_put(nlh, 30, sizeof(junk), junk);    /* no type we read */
	}
	mnl_attr_put_u32(nlh, CTA_ID, htonl(0x1234));
	mnl_attr_put_u32(nlh, CTA_STATUS, htonl(status));
	mnl_attr_put_u16(nlh, CTA_ZONE, htons(5));
	if (how & DUPS) {
		ctnest_tuple_put(nlh, CTA_TUPLE_ORIG, a2, a1, 1, 2, true);
		mnl_attr_put_u32(nlh, CTA_ID, htonl(0x9999));
		mnl_attr_put_u16(nlh, CTA_ZONE, htons(6));
	}
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
					   .hw_protocol = htons(how & IPV4 ? ETH_P_IP : ETH_P_IPV6) };
	uint8_t p[64];
	size_t plen = how & IPV4 ? pkt4(p) : pkt6(p);

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
	if (how & IFACES) {
		mnl_attr_put_u32(nlh, NFQA_IFINDEX_INDEV, htonl(3));
		mnl_attr_put_u32(nlh, NFQA_IFINDEX_OUTDEV, htonl(0x10002));
		mnl_attr_put_u32(nlh, NFQA_IFINDEX_PHYSINDEV, htonl(9));
	}
	if (how & BAD_IFACE)
		mnl_attr_put_u16(nlh, NFQA_IFINDEX_OUTDEV, htons(2));   /* a u32 attribute */
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

	kind = qmsg_read(msg_build(WITH_HELP), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/ipv6-without-reply-addresses-refused", kind == QMSG_PAYLOAD &&
	      rc == -EINVAL, "kind %d rc %d", kind, rc);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | LONG_HELP), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/long-helper-name-is-nobody", rc == 0 && m.helper[0] == '\0',
	      "rc %d helper '%s'", rc, m.helper);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | BAD_MARK), &m);
	CHECK("qmsg/malformed-still-answered", kind == QMSG_MALFORMED && m.id == 42,
	      "kind %d id %u", kind, m.id);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | CAPPED | GSO), &m);
	CHECK("qmsg/truncated-and-gso-flagged", kind == QMSG_PAYLOAD && m.truncated && m.gso,
	      "kind %d truncated %d gso %d", kind, m.truncated, m.gso);

	/* the link view's interfaces: a bridge port is not one */
	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | IFACES), &m);
	CHECK("qmsg/interfaces", kind == QMSG_PAYLOAD && m.in_ifindex == 3 &&
	      m.out_ifindex == 0x10002, "kind %d in %u out %u", kind, m.in_ifindex,
	      m.out_ifindex);
	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS), &m);
	CHECK("qmsg/interfaces-absent", kind == QMSG_PAYLOAD && m.in_ifindex == 0 &&
	      m.out_ifindex == 0, "kind %d in %u out %u", kind, m.in_ifindex, m.out_ifindex);
	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | BAD_IFACE), &m);
	CHECK("qmsg/interface-malformed-still-answered", kind == QMSG_MALFORMED && m.id == 42,
	      "kind %d id %u", kind, m.id);

	kind = qmsg_read(msg_build(IPV4 | WITH_REPLY_ADDRS | WITH_HELP), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/ipv4-complete", kind == QMSG_PAYLOAD && rc == 0 &&
	      m.view.tuple[0].family == AF_INET && m.view.tuple[1].family == AF_INET &&
	      m.view.tuple[0].src.ip == htonl(0x0a000102) &&
	      m.view.tuple[1].src.ip == htonl(0x0a000202) &&
	      m.view.tuple[0].src.raw[4] == 0 && m.view.tuple[0].proto == IPPROTO_TCP &&
	      m.view.tuple[0].dport == 21 && m.view.dir == CTH_DIR_ORIGINAL &&
	      !(m.view.ct_status & CTH_CT_EXPECTED) && (m.view.ct_status & CTH_CT_CONFIRMED),
	      "kind %d rc %d family %u status %x", kind, rc, m.view.tuple[0].family,
	      m.view.ct_status);

	kind = qmsg_read(msg_build(IPV4 | WITH_REPLY_ADDRS | MASTER), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/expected-with-master", rc == 0 &&
	      (m.view.ct_status & CTH_CT_EXPECTED) && m.view.master.family == AF_INET &&
	      m.view.master.sport == 1234 && m.view.master.dport == 5678 &&
	      m.view.master.dst.ip == htonl(0x0a000202),
	      "rc %d status %x master %u:%u", rc, m.view.ct_status,
	      m.view.master.sport, m.view.master.dport);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | MASTER_PART), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/expected-master-incomplete-zeroed", rc == 0 &&
	      (m.view.ct_status & CTH_CT_EXPECTED) && m.view.master.family == 0 &&
	      m.view.master.sport == 0, "rc %d status %x family %u", rc,
	      m.view.ct_status, m.view.master.family);

	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | DUPS), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/first-valid-attribute-used", rc == 0 && m.view.ct_id == 0x1234 &&
	      m.view.zone == 5 && m.view.tuple[0].sport == 40000 &&
	      (m.view.ct_status & CTH_CT_CONFIRMED),
	      "rc %d id %x zone %u sport %u status %x", rc, m.view.ct_id, m.view.zone,
	      m.view.tuple[0].sport, m.view.ct_status);

	/* a conntrack with a large attribute we do not read (a security
	 * context, say) is still read: nothing is copied any more */
	kind = qmsg_read(msg_build(WITH_REPLY_ADDRS | WITH_HELP | BIG_CT), &m);
	rc = qmsg_conn_read(&m);
	CHECK("qmsg/large-conntrack-read", kind == QMSG_PAYLOAD && rc == 0 &&
	      strcmp(m.helper, "ftp") == 0, "kind %d rc %d", kind, rc);

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
	}
	CHECK("qmsg/every-prefix", ok, "an id other than 42 was reported");
	return check_exit();
}
