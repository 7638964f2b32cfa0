/* SPDX-License-Identifier: MIT */
/*
 * Payload edits a plugin asks for (cth_mangle), recorded per call and
 * applied once the plugin returned; shared by the host (call.c), its unit
 * test and the fuzz targets.
 *
 * edit_add() answers, in this order of checks:
 *   -EBUSY     the result was already taken (edit_result)
 *   -EMSGSIZE  the packet cannot be rewritten as a whole: the queue gave us
 *              only part of it (NFQA_CAP_LEN, or an IP length field larger
 *              than what we hold), or it is a UDP GSO super-packet (a
 *              mangled packet leaves the queue CHECKSUM_NONE, which UDP
 *              segmentation refuses; TCP segmentation sets the checksum
 *              up again, so TCP GSO packets are edited).  The plugin
 *              should drop it: the sender retransmits.
 *   -EINVAL    range outside the payload, NULL replacement with a length,
 *              an edit that overlaps (or inserts at the same place as) an
 *              earlier one, a packet we cannot lay out (IPv4 fragment)
 *   -EPERM     a TCP payload length change on a connection without NAT
 *              (the kernel adjusts sequence numbers only under NAT), or
 *              an edit starting in the bytes kept from earlier segments
 *              (cth_packet::kept: forwarded already)
 *   -ENOSPC    more than EDIT_MAX edits, or the result would be larger
 *              than PKT_OUT_MAX bytes (packet.h)
 *   -ENOMEM    out of memory
 */
#ifndef CTH_EDIT_H
#define CTH_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include "packet.h"

/* Edits one plugin call may record. */
#define EDIT_MAX 32u

/* Record one edit of c's payload: [off, off + len) of the payload the
 * plugin was shown becomes repl_len bytes of repl.  0 or a negative
 * errno, cth_mangle()'s answer. */
int edit_add(struct pkt_call *c, size_t off, size_t len,
	     const void *repl, size_t repl_len);
/* The packet with every edit applied, lengths and checksums fixed (NULL
 * when unchanged); after it, edit_add() answers -EBUSY. */
const uint8_t *edit_result(struct pkt_call *c, size_t *len);
/* Free c's edits (pkt_call_release). */
void edit_release(struct pkt_call *c);

#endif
