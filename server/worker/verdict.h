/* SPDX-License-Identifier: MIT */
#ifndef CTH_VERDICT_H
#define CTH_VERDICT_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/packet.h"

/*
 * Bounds on one verdict message, for the caller's buffer: everything but
 * the packet and NFQA_EXP (netlink and nfgenmsg headers, the verdict,
 * NFQA_CT with timeout, mark, helper name and CTH_PRIV_MAX bytes of
 * state: 112 bytes at most), and NFQA_EXP (tuple, mask, NAT tuple of IPv6,
 * class, flags, timeout, zone, helper name, function name: about 320
 * bytes).  test_verdict checks the largest of each against them.
 */
#define VERDICT_HEAD_MAX 256u
#define VERDICT_EXP_MAX 1024u

/* The most bytes a verdict carrying pkt_len bytes of packet (0: none)
 * and perhaps an expectation takes. */
size_t verdict_size_max(size_t pkt_len, bool exp);

/*
 * One NFQNL_MSG_VERDICT for packet id of queue, written at buf (at least
 * verdict_size_max() bytes): ACCEPT or DROP; when c (the plugin call, or
 * NULL for a packet no plugin saw) asks for it, the rewritten packet
 * (pkt, pkt_len), NFQA_CT and NFQA_EXP (exp).
 */
struct nlmsghdr *verdict_put(char *buf, uint16_t queue, uint32_t id, bool drop,
			     const struct pkt_call *c, const uint8_t *pkt,
			     size_t pkt_len, const struct cth_expect *exp);

#endif
