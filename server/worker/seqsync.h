/* SPDX-License-Identifier: MIT */
#ifndef CTH_SEQSYNC_H
#define CTH_SEQSYNC_H

#include <stdbool.h>
#include <stddef.h>

#include "host/packet.h"

/*
 * Did this verdict change the length of a TCP payload, i.e. did the kernel
 * just record a sequence adjustment for the connection?  new_len: the
 * packet as sent back, 0 when unchanged; p->len: as it was queued.
 */
bool seqsync_needed(const struct cth_packet *p, size_t new_len);

#endif
