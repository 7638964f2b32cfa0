/* SPDX-License-Identifier: MIT */
#ifndef CTH_RXVEC_H
#define CTH_RXVEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/uio.h>

/*
 * Several datagrams per receive: one recvmmsg() fills up to `slots`
 * buffers of `size` bytes each.  A datagram larger than its slot would be
 * cut (MSG_TRUNC) and its rest lost (netlink_recvmsg() frees the skb
 * whatever it copied), so the caller sizes each slot for the largest
 * datagram it can get; a cut one is still reported, flagged, so that a
 * queued packet in it can be answered.  The buffers are allocated once
 * and only the pages a datagram is written to are ever touched.
 */
struct rxvec {
	unsigned int slots;
	size_t size;                /* bytes per slot */
	char *buf;                  /* slots * size */
	struct mmsghdr *msg;
	struct iovec *iov;
};

/* 0 or -ENOMEM (then rxvec_free() is still safe). */
int rxvec_init(struct rxvec *v, unsigned int slots, size_t size);
void rxvec_free(struct rxvec *v);
/* One receive: the number of datagrams (1..slots), or a negative errno
 * (-EAGAIN: nothing queued, or the socket's receive timeout passed).
 * With wait, it blocks until the first datagram (MSG_WAITFORONE: the
 * others only if already there); else it does not block at all. */
int rxvec_recv(struct rxvec *v, int fd, bool wait);
/* Datagram i of the last receive: its bytes, their number, and whether
 * it was cut to the slot's size. */
char *rxvec_get(const struct rxvec *v, unsigned int i, size_t *len, bool *cut);

#endif
