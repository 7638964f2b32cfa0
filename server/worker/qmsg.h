/* SPDX-License-Identifier: MIT */
#ifndef CTH_QMSG_H
#define CTH_QMSG_H

#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <stdbool.h>
#include <stdint.h>

#include "host/packet.h"

/*
 * Room for every NFQA_* type: libnetfilter_queue ships its own, older copy
 * of the uapi header, so NFQA_MAX depends on which header a file includes
 * first; the array must not.  nfq_nlmsg_parse() fills up to its NFQA_MAX.
 */
#define QMSG_NATTR 64
_Static_assert(NFQA_MAX < QMSG_NATTR, "QMSG_NATTR too small");

/* One queued packet's message, read. */
struct qmsg {
	uint16_t queue;
	uint32_t id;
	int family;                    /* AF_INET, AF_INET6, or -1 */
	struct nlattr *attr[QMSG_NATTR];
	struct cth_packet view;        /* packet, then connection (qmsg_conn_read) */
	bool truncated;                /* NFQA_CAP_LEN: we hold only part of it */
	bool gso;                      /* NFQA_SKB_GSO: a GSO super-packet */
	uint32_t in_ifindex;           /* NFQA_IFINDEX_INDEV, 0: sent by this host */
	uint32_t out_ifindex;          /* NFQA_IFINDEX_OUTDEV, 0: delivered to it */
	char helper[CTH_NAME_LEN];     /* the connection's helper, or "" */
	const uint8_t *kpriv;          /* CTA_HELP_INFO as sent, or NULL */
	size_t klen;
};

enum qmsg_kind {
	QMSG_NO_ID = -2,      /* no packet id: nothing to answer */
	QMSG_MALFORMED = -1,  /* has an id, the rest does not parse: accept */
	QMSG_ACCEPT = 0,      /* nothing for a plugin (no payload, no conntrack) */
	QMSG_PAYLOAD = 1,     /* a packet with payload and conntrack */
};

/* Read the packet part.  Returns an enum qmsg_kind; m->queue is set
 * whenever the message is long enough, m->id from QMSG_MALFORMED up. */
int qmsg_read(const struct nlmsghdr *nlh, struct qmsg *m);
/* After QMSG_PAYLOAD: the connection (tuples, status, zone, id, master,
 * ctinfo, helper name, private state), read in place: nothing is
 * allocated, m points into the message.  0, or -EINVAL when NFQA_CT lacks
 * something the view needs. */
int qmsg_conn_read(struct qmsg *m);

#endif
