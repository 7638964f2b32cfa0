/* SPDX-License-Identifier: MIT */
/*
 * Bounds of the payload edits a plugin may ask for (cth_mangle), shared by
 * server/host/mangle.c, its unit test and the fuzz targets.  The functions are
 * declared in packet.h (pkt_edit_add / pkt_edit_result / pkt_edit_release).
 *
 * pkt_edit_add() answers, in this order of checks:
 *   -EBUSY     the result was already taken (pkt_edit_result)
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
 *   -ENOSPC    more than PKT_EDIT_MAX edits, or the result would be larger
 *              than PKT_OUT_MAX bytes
 *   -ENOMEM    out of memory
 */
#ifndef CTH_MANGLE_H
#define CTH_MANGLE_H

/* Edits one plugin call may record. */
#define PKT_EDIT_MAX 32u

/* The largest packet a verdict can carry: NFQA_PAYLOAD's length is a
 * 16-bit netlink attribute length that includes its 4-byte header. */
#define PKT_OUT_MAX (65535u - 4u)

#endif
