/* SPDX-License-Identifier: MIT */
/*
 * The NetBIOS-NS plugin's configuration block and the indexes of its
 * class and counters (netbios_ns.c declares them to the host in this
 * order; the unit tests read them).  Behaviour and the differences from
 * the kernel's nf_conntrack_netbios_ns are in docs/plugins/netbios-ns.md.
 */
#ifndef CTH_NETBIOS_NS_H
#define CTH_NETBIOS_NS_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "netbios-ns". */
#define NBNS_CLASS 0u

/* Counters, in cth_plugin_desc::counters order. */
enum nbns_counter {
	NBNS_C_QUERIES,         /* name queries whose answers were expected */
	NBNS_C_EXPECT_ERRORS,   /* answers the host would not expect */
	NBNS_C_NO_LINK,         /* no network known for the broadcast: nothing opened */
	NBNS_C_MALFORMED,       /* shorter than a NetBIOS-NS header */
	NBNS_C_IGNORED,         /* not a name query broadcast the keys help */
	NBNS_C_COUNT
};

/* Values of the answers key. */
enum nbns_answers {
	NBNS_ANSWERS_LINK,      /* from the broadcast's network (cth_link()) */
	NBNS_ANSWERS_ANY,       /* from anywhere */
};

/* Per helper instance: the host fills it from the declared keys. */
struct nbns_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
	bool outgoing;          /* outgoing: help queries this host sends */
	bool incoming;          /* incoming: help queries that arrive */
	unsigned int answers;   /* answers: an nbns_answers */
	bool broadcast_all;     /* broadcast_all: 255.255.255.255 too */
	uint32_t timeout;       /* timeout: the query flow's, seconds */
};

#endif
