/* SPDX-License-Identifier: MIT */
#ifndef CTH_VBATCH_H
#define CTH_VBATCH_H

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

#endif
