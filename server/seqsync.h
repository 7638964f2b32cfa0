/* SPDX-License-Identifier: MIT */
#ifndef CTH_SEQSYNC_H
#define CTH_SEQSYNC_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stddef.h>

#include "packet.h"

/*
 * Did this verdict change the length of a TCP payload, i.e. did the kernel
 * just record a sequence adjustment for the connection?  new_len: the
 * packet as sent back, 0 when unchanged; p->len: as it was queued.
 */
bool seqsync_needed(const struct cth_packet *p, size_t new_len);

/*
 * Build a ctnetlink update for the connection of p that changes nothing:
 * the kernel answers it with an UPDATE event that carries the sequence
 * adjustment (see seqsync.c for why that matters).  0 or -errno.
 */
int seqsync_put(struct nlmsghdr *nlh, const struct cth_packet *p);

#endif
