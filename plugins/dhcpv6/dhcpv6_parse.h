/* SPDX-License-Identifier: MIT */
/*
 * What the DHCPv6 plugin reads of a datagram: the message type of the
 * client/server header (RFC 8415 section 8), and what each client
 * message asks of the helper.
 */
#ifndef CTH_DHCPV6_PARSE_H
#define CTH_DHCPV6_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* msg-type and transaction-id (RFC 8415 section 8). */
#define DHCPV6_HDR_LEN 4u

/*
 * Read the message type of the DHCPv6 message at buf.
 * @return 0, or -EINVAL: shorter than the header
 */
int dhcpv6_parse(const uint8_t *buf, size_t len, uint8_t *type);

/*
 * How long the client's exchange lasts, in seconds: the master's timeout
 * for a client message a server answers to the client's port 546
 * (Solicit, Request, Confirm, Renew, Rebind, Release, Decline,
 * Information-request); 0 for any other type (opens nothing).
 */
uint32_t dhcpv6_client_timeout(uint8_t type);

/* The type's name (RFC 8415 section 7.3, RFC 5007, ...), "type?" unknown. */
const char *dhcpv6_type_name(uint8_t type);

#endif
