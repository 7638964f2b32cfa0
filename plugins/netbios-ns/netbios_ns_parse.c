/* SPDX-License-Identifier: MIT */
/*
 * The name service header check of the NetBIOS-NS plugin
 * (netbios_ns_parse.h).  The question's encoded name does not change
 * what the helper opens.
 */
#include <errno.h>
#include <string.h>

#include "netbios_ns_parse.h"

#define NBNS_FLAG_R 0x8000u             /* a response */
#define NBNS_OPCODE(flags) (((flags) >> 11) & 0xfu)

int nbns_parse(const uint8_t *buf, size_t len, struct nbns_hdr *hdr)
{
	memset(hdr, 0, sizeof(*hdr));
	if (len < NBNS_HDR_LEN)
		return -EINVAL;
	hdr->trn_id = (uint16_t)(buf[0] << 8 | buf[1]);
	hdr->flags = (uint16_t)(buf[2] << 8 | buf[3]);
	hdr->qdcount = (uint16_t)(buf[4] << 8 | buf[5]);
	/* a registration or release broadcast is answered only to
	 * defend a name (RFC 1002 section 4.2.6), not worth a way in */
	if ((hdr->flags & NBNS_FLAG_R) || NBNS_OPCODE(hdr->flags) != 0 || hdr->qdcount == 0)
		return 0;
	return 1;
}
