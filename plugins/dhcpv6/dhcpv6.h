/* SPDX-License-Identifier: MIT */
/*
 * The DHCPv6 plugin's configuration block and the indexes of its class
 * and counters (dhcpv6.c declares them to the host in this order; the
 * unit tests read them).  Behaviour and the differences from conntrackd's
 * dhcpv6 helper are in docs/plugins/dhcpv6.md.
 */
#ifndef CTH_DHCPV6_H
#define CTH_DHCPV6_H

#include <stdbool.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "dhcpv6". */
#define DHCPV6_CLASS 0u

/* Where servers and relays send to a client (RFC 8415 section 7.2). */
#define DHCPV6_CLIENT_PORT 546u

/* Counters, in cth_plugin_desc::counters order. */
enum dhcpv6_counter {
	DHCPV6_C_MESSAGES,      /* client messages whose answers were expected */
	DHCPV6_C_OTHER,         /* other message types: nothing opened */
	DHCPV6_C_EXPECT_ERRORS, /* answers the host would not expect */
	DHCPV6_C_MALFORMED,     /* shorter than a DHCPv6 header */
	DHCPV6_C_IGNORED,       /* not to ff02::1:2, a direction switched off */
	DHCPV6_C_COUNT
};

/* Values of the answers key. */
enum dhcpv6_answers {
	DHCPV6_ANSWERS_LINK,    /* from a link-local address, fe80::/10 */
	DHCPV6_ANSWERS_ANY,     /* from anywhere, as conntrackd */
};

/* Per helper instance: the host fills it from the declared keys. */
struct dhcpv6_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
	bool outgoing;          /* outgoing: help messages this host sends */
	bool incoming;          /* incoming: help messages that arrive */
	unsigned int answers;   /* answers: a dhcpv6_answers */
};

#endif
