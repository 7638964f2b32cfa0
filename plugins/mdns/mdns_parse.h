/* SPDX-License-Identifier: MIT */
/*
 * What the mDNS plugin reads of a datagram: the DNS message header
 * (RFC 1035 section 4.1.1, RFC 6762 section 18).
 */
#ifndef CTH_MDNS_PARSE_H
#define CTH_MDNS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A DNS header's size: what a query holds at least. */
#define MDNS_HDR_LEN 12u

/* The header fields the helper decides on. */
struct mdns_hdr {
	uint16_t id;
	uint16_t flags;         /* QR, opcode, AA, TC, RD, RA, Z, AD, CD, rcode */
	uint16_t qdcount;       /* questions */
};

/*
 * Read the header of the DNS message at buf.
 * @return 1: a standard query (QR 0, opcode 0 QUERY, at least one
 *         question); 0: another DNS message (a response, another opcode,
 *         no question); -EINVAL: shorter than a header
 */
int mdns_parse(const uint8_t *buf, size_t len, struct mdns_hdr *hdr);

#endif
