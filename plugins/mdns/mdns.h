/* SPDX-License-Identifier: MIT */
/*
 * The mDNS plugin's configuration block and the indexes of its class and
 * counters (mdns.c declares them to the host in this order; the unit
 * tests read them).  Behaviour and the differences from conntrackd's mdns
 * helper are in docs/plugins/mdns.md.
 */
#ifndef CTH_MDNS_H
#define CTH_MDNS_H

#include <stdbool.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "mdns". */
#define MDNS_CLASS 0u

/* Counters, in cth_plugin_desc::counters order. */
enum mdns_counter {
	MDNS_C_QUERIES,         /* one-shot queries whose answers were expected */
	MDNS_C_EXPECT_ERRORS,   /* answers the host would not expect */
	MDNS_C_NO_LINK,         /* answers = link, no network known: nothing opened */
	MDNS_C_MALFORMED,       /* shorter than a DNS header */
	MDNS_C_IGNORED,         /* not a one-shot query to the group: nothing opened */
	MDNS_C_COUNT
};

/* Values of the answers key. */
enum mdns_answers {
	MDNS_ANSWERS_LINK,      /* from the link's network (cth_link()) */
	MDNS_ANSWERS_ANY,       /* from anywhere, as conntrackd */
};

/* Per helper instance: the host fills it from the declared keys. */
struct mdns_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
	bool outgoing;          /* outgoing: help queries this host sends */
	bool incoming;          /* incoming: help queries that arrive */
	unsigned int answers;   /* answers: an mdns_answers */
};

#endif
