/* SPDX-License-Identifier: MIT */
/*
 * What the SLP plugin reads of a datagram: the SLPv2 header (RFC 2608
 * section 8), or the version byte of an SLPv1 one (RFC 2165).
 */
#ifndef CTH_SLP_PARSE_H
#define CTH_SLP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* SLPv2's fixed header, up to the language tag's length. */
#define SLP_HDR_LEN 14u

/* Function ids of the requests a user agent multicasts (RFC 2608
 * section 8). */
enum slp_function {
	SLP_FN_SRVRQST = 1,
	SLP_FN_ATTRRQST = 6,
	SLP_FN_SRVTYPERQST = 9,
};

struct slp_hdr {
	uint8_t version;        /* 1 or 2 */
	uint8_t function;
	uint32_t length;        /* the message's, header included (v2) */
	uint16_t flags;
	uint16_t lang_len;
};

/*
 * Read the SLP header at buf.
 * @return 1: an SLPv2 Service, Attribute or Service Type Request; 0: an
 *         SLPv1 message or another SLPv2 one (a reply, an advertisement,
 *         a registration); -EINVAL: not an SLP header (another version,
 *         shorter than its header, a length that disagrees with the
 *         datagram or leaves no room for the language tag)
 */
int slp_parse(const uint8_t *buf, size_t len, struct slp_hdr *hdr);

#endif
