/* SPDX-License-Identifier: MIT */
/*
 * The SLP header check of the SLP plugin (slp_parse.h).  The header says
 * what the message is; its body (the service type, scopes, predicate) does
 * not change what the helper opens.
 */
#include <errno.h>
#include <string.h>

#include "slp_parse.h"

int slp_parse(const uint8_t *buf, size_t len, struct slp_hdr *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	if (len < 2)
		return -EINVAL;
	hdr->version = buf[0];
	hdr->function = buf[1];
	/* SLPv1 (RFC 2165) has a header of its own; its agents are gone,
	 * and an SLPv2 agent does not answer it (RFC 2608 section 8) */
	if (hdr->version == 1)
		return 0;
	if (hdr->version != 2 || len < SLP_HDR_LEN)
		return -EINVAL;
	hdr->length = (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4];
	hdr->flags = (uint16_t)(buf[5] << 8 | buf[6]);
	hdr->lang_len = (uint16_t)(buf[12] << 8 | buf[13]);
	/* one message per datagram: a length past it was cut short (the
	 * OVERFLOW case is a reply's), and the tag must fit inside it */
	if (hdr->length > len || hdr->length < SLP_HDR_LEN + (uint32_t)hdr->lang_len)
		return -EINVAL;
	switch (hdr->function) {
	case SLP_FN_SRVRQST:
	case SLP_FN_ATTRRQST:
	case SLP_FN_SRVTYPERQST:
		return 1;
	default:
		return 0;
	}
}
