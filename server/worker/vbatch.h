/* SPDX-License-Identifier: MIT */
#ifndef CTH_VBATCH_H
#define CTH_VBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Verdict messages collected to leave in one datagram.  The kernel runs
 * every message of a datagram that does not start a batch
 * (NFNL_MSG_BATCH_BEGIN), in order, and answers each one that fails with
 * an error message of its own (Linux 6.1 nfnetlink_rcv() ->
 * netlink_rcv_skb()): N verdicts in one sendmsg() do what N sendto()
 * calls did, in the same order.
 *
 * A batch of several messages stays within `goal` bytes: the kernel
 * copies a datagram larger than NLMSG_GOODSIZE (a page less the skb's
 * shared info, ~3.7 KiB) into a vmalloc()ed skb (6.1
 * netlink_alloc_large_skb()), which costs more than the syscalls saved.
 * A larger message (a rewritten GSO packet) goes alone; `cap` must hold
 * the largest one.  At most VBATCH_MAX messages.
 */
#define VBATCH_MAX 32u

struct vbatch {
	char *buf;
	size_t cap, goal;
	size_t len;                 /* bytes of messages in buf */
	unsigned int n;             /* messages */
	uint32_t id[VBATCH_MAX];    /* their packet ids */
	int tag[VBATCH_MAX];        /* the caller's, per message */
};

/* 0 or -ENOMEM (then vbatch_free() is still safe). */
int vbatch_init(struct vbatch *b, size_t cap, size_t goal);
void vbatch_free(struct vbatch *b);
/* Where to write the next message, of at most need bytes; NULL when the
 * batch must be sent first (an empty batch takes anything up to cap). */
char *vbatch_room(const struct vbatch *b, size_t need);
/* The message just written at vbatch_room()'s place joins the batch. */
void vbatch_add(struct vbatch *b, uint32_t id, int tag);
/* Sent (or lost): empty again. */
void vbatch_clear(struct vbatch *b);

/*
 * Sending: send() puts one datagram on the wire, 0 or a negative errno.
 * Verdicts carry no NLM_F_ACK (nfq_nlmsg_put() sets NLM_F_REQUEST
 * only), so a failed sendmsg() on netlink never means a reply queue
 * overflowed: the kernel runs a datagram's messages synchronously inside
 * sendmsg() and only fails it before (Linux 6.1 netlink_sendmsg(): skb
 * allocation, ENOBUFS/ENOMEM), so a failed datagram reached the kernel
 * not at all and no verdict of it may be lost: each is sent again alone,
 * a transient failure (ENOBUFS, ENOMEM, EAGAIN, EINTR) retried up to
 * VBATCH_TRIES times without waiting.  A verdict that still fails
 * becomes a bare DROP (a header only, the smallest allocation; the
 * sender retransmits, the helper sees the packet again with its old
 * state): a packet without a verdict would hold its queue slot and
 * conntrack entry for ever.  Only when even that fails is it lost.
 */
#define VBATCH_TRIES 4u

typedef int vbatch_send_fn(void *arg, const void *buf, size_t len);

struct vbatch_sent {
	unsigned int retried;       /* messages sent again alone */
	unsigned int dropped;       /* sent as a bare DROP instead */
	unsigned int lost;          /* no verdict at all */
	int err;                    /* the batch's failure, 0 if it went */
	bool ok[VBATCH_MAX];        /* message i went as written */
};

/* Send b's messages (b is not cleared); what happened in *r. */
void vbatch_send(const struct vbatch *b, vbatch_send_fn *send, void *arg,
		 struct vbatch_sent *r);

#endif
