/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: reading queue messages (server/worker/qmsg.c), the first
 * code every kernel message meets.  Input: the attributes of one
 * NFQNL_MSG_PACKET message (after the nfgenmsg header), as they would
 * follow each other in the kernel's message.
 *
 * Invariants: a packet id is reported only when NFQA_PACKET_HDR holds
 * one; a connection read as good has both tuples of the packet's family,
 * a helper name shorter than CTH_NAME_LEN and private state inside NFQA_CT;
 * the packet view stays inside NFQA_PAYLOAD; the interfaces are
 * NFQA_IFINDEX_INDEV's and _OUTDEV's values, 0 when absent.
 */
#include <arpa/inet.h>
#include <linux/netfilter/nfnetlink.h>

#include "fuzz_common.h"
#include "worker/qmsg.h"

#define FZ_MAX 65536u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[FZ_MAX + 64] __attribute__((aligned(8)));
	struct nlmsghdr *nlh;
	struct qmsg m;
	int kind;

	if (size > FZ_MAX)
		return 0;
	nlh = nfq_nlmsg_put((char *)buf, NFQNL_MSG_PACKET, 3);
	memcpy((uint8_t *)nlh + nlh->nlmsg_len, data, size);
	nlh->nlmsg_len += (uint32_t)size;
	kind = qmsg_read(nlh, &m);
	FZ_CHECK(m.queue == 3);
	if (kind >= QMSG_MALFORMED)
		FZ_CHECK(m.attr[NFQA_PACKET_HDR] != NULL);
	if (kind == QMSG_PAYLOAD) {
		const struct nlattr *pl = m.attr[NFQA_PAYLOAD];
		const uint8_t *p0 = mnl_attr_get_payload(pl);

		FZ_CHECK(m.view.data == p0 &&
			 m.view.payload_offset + m.view.payload_len <= mnl_attr_get_payload_len(pl) &&
			 m.view.payload_len > 0);
		FZ_CHECK(m.in_ifindex == (m.attr[NFQA_IFINDEX_INDEV] ?
					  ntohl(mnl_attr_get_u32(m.attr[NFQA_IFINDEX_INDEV])) : 0));
		FZ_CHECK(m.out_ifindex == (m.attr[NFQA_IFINDEX_OUTDEV] ?
					   ntohl(mnl_attr_get_u32(m.attr[NFQA_IFINDEX_OUTDEV])) : 0));
		if (qmsg_conn_read(&m) == 0) {
			const struct nlattr *ct = m.attr[NFQA_CT];
			const uint8_t *c0 = mnl_attr_get_payload(ct);

			FZ_CHECK(m.view.tuple[0].family == m.family &&
				 m.view.tuple[1].family == m.family);
			FZ_CHECK(strlen(m.helper) < CTH_NAME_LEN);
			FZ_CHECK(!m.kpriv || (m.kpriv >= c0 &&
				 m.kpriv + m.klen <= c0 + mnl_attr_get_payload_len(ct)));
			FZ_CHECK(m.view.dir == CTH_DIR_ORIGINAL || m.view.dir == CTH_DIR_REPLY);
		}
	}
	return 0;
}
