/* SPDX-License-Identifier: MIT */
/*
 * The DHCPv6 message type check (dhcpv6_parse.h).  The options do not
 * change what the helper opens: whichever server answers, it answers the
 * client's address on port 546.
 */
#include <errno.h>

#include "dhcpv6_parse.h"

/*
 * Per client message: how long the exchange may take before the
 * answers stop (the master's timeout), conntrackd's values, which follow
 * the retransmission limits of RFC 8415 section 7.6 (a Solicit's first
 * round, a Renew's T2 wait, a Release answered at once).
 */
static const struct dhcpv6_type {
	const char *name;
	uint32_t timeout;
} dhcpv6_types[] = {
	[1] = { "SOLICIT", 120 },
	[2] = { "ADVERTISE", 0 },
	[3] = { "REQUEST", 30 },
	[4] = { "CONFIRM", 4 },
	[5] = { "RENEW", 600 },
	[6] = { "REBIND", 600 },
	[7] = { "REPLY", 0 },
	[8] = { "RELEASE", 1 },
	[9] = { "DECLINE", 1 },
	[10] = { "RECONFIGURE", 0 },
	[11] = { "INFORMATION-REQUEST", 120 },
	[12] = { "RELAY-FORW", 0 },
	[13] = { "RELAY-REPL", 0 },
	[14] = { "LEASEQUERY", 0 },
	[15] = { "LEASEQUERY-REPLY", 0 },
	[16] = { "LEASEQUERY-DONE", 0 },
	[17] = { "LEASEQUERY-DATA", 0 },
	[18] = { "RECONFIGURE-REQUEST", 0 },
	[19] = { "RECONFIGURE-REPLY", 0 },
	[20] = { "DHCPV4-QUERY", 0 },
	[21] = { "DHCPV4-RESPONSE", 0 },
};

#define DHCPV6_N_TYPES (sizeof(dhcpv6_types) / sizeof(dhcpv6_types[0]))

int dhcpv6_parse(const uint8_t *buf, size_t len, uint8_t *type)
{
	*type = 0;
	if (len < DHCPV6_HDR_LEN)
		return -EINVAL;
	*type = buf[0];
	return 0;
}

uint32_t dhcpv6_client_timeout(uint8_t type)
{
	return type < DHCPV6_N_TYPES ? dhcpv6_types[type].timeout : 0;
}

const char *dhcpv6_type_name(uint8_t type)
{
	if (type < DHCPV6_N_TYPES && dhcpv6_types[type].name)
		return dhcpv6_types[type].name;
	return "type?";
}
