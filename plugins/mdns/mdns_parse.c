/* SPDX-License-Identifier: MIT */
/*
 * The DNS header check of the mDNS plugin (mdns_parse.h).  Only the
 * fixed 12 bytes are read: the questions themselves do not change what
 * the helper opens, and a responder that cannot parse them does not
 * answer.
 */
#include <errno.h>
#include <string.h>

#include "mdns_parse.h"

#define MDNS_FLAG_QR 0x8000u            /* a response */
#define MDNS_OPCODE(flags) (((flags) >> 11) & 0xfu)

int mdns_parse(const uint8_t *buf, size_t len, struct mdns_hdr *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	if (len < MDNS_HDR_LEN)
		return -EINVAL;
	hdr->id = (uint16_t)(buf[0] << 8 | buf[1]);
	hdr->flags = (uint16_t)(buf[2] << 8 | buf[3]);
	hdr->qdcount = (uint16_t)(buf[4] << 8 | buf[5]);
	/* RFC 6762 section 18.3: a multicast DNS message with another
	 * opcode is silently ignored, so nobody answers it */
	if ((hdr->flags & MDNS_FLAG_QR) || MDNS_OPCODE(hdr->flags) != 0 || hdr->qdcount == 0)
		return 0;
	return 1;
}
