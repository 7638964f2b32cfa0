/* SPDX-License-Identifier: MIT */
/*
 * What the NetBIOS-NS plugin reads of a datagram: the name service
 * header (RFC 1002 section 4.2.1.1).
 */
#ifndef CTH_NETBIOS_NS_PARSE_H
#define CTH_NETBIOS_NS_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* NAME_TRN_ID, the flags word, four counts. */
#define NBNS_HDR_LEN 12u

struct nbns_hdr {
	uint16_t trn_id;
	uint16_t flags;         /* R, OPCODE, NM_FLAGS, RCODE */
	uint16_t qdcount;
};

/*
 * Read the name service header at buf.
 * @return 1: a name query request (R 0, OPCODE 0, a question); 0: another
 *         name service packet (a response, a registration, a release, a
 *         refresh, no question); -EINVAL: shorter than the header
 */
int nbns_parse(const uint8_t *buf, size_t len, struct nbns_hdr *hdr);

#endif
