/* SPDX-License-Identifier: MIT */
/* Conntrack attributes of a queue message, built the way the kernel's
 * conntrack glue writes them (NFQA_CT): for test_qmsg and test_whelp. */
#ifndef CTH_TEST_CTNEST_H
#define CTH_TEST_CTNEST_H

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A TCP tuple nest of type (CTA_TUPLE_ORIG, _REPLY, _MASTER), IPv4 or
 * IPv6 by src's form; without addrs only its ports, as a message whose
 * addresses the reader must take from elsewhere. */
static inline void ctnest_tuple_put(struct nlmsghdr *nlh, uint16_t type, const char *src,
				    const char *dst, uint16_t sport, uint16_t dport, bool addrs)
{
	struct nlattr *t = mnl_attr_nest_start(nlh, type), *n;
	bool v4 = strchr(src, ':') == NULL;
	uint8_t a[16];

	if (addrs) {
		n = mnl_attr_nest_start(nlh, CTA_TUPLE_IP);
		inet_pton(v4 ? AF_INET : AF_INET6, src, a);
		mnl_attr_put(nlh, v4 ? CTA_IP_V4_SRC : CTA_IP_V6_SRC, v4 ? 4 : 16, a);
		inet_pton(v4 ? AF_INET : AF_INET6, dst, a);
		mnl_attr_put(nlh, v4 ? CTA_IP_V4_DST : CTA_IP_V6_DST, v4 ? 4 : 16, a);
		mnl_attr_nest_end(nlh, n);
	}
	n = mnl_attr_nest_start(nlh, CTA_TUPLE_PROTO);
	mnl_attr_put_u8(nlh, CTA_PROTO_NUM, IPPROTO_TCP);
	mnl_attr_put_u16(nlh, CTA_PROTO_SRC_PORT, htons(sport));
	mnl_attr_put_u16(nlh, CTA_PROTO_DST_PORT, htons(dport));
	mnl_attr_nest_end(nlh, n);
	mnl_attr_nest_end(nlh, t);
}

#endif
