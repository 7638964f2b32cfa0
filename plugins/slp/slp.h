/* SPDX-License-Identifier: MIT */
/*
 * The SLP plugin's configuration block and the indexes of its class and
 * counters (slp.c declares them to the host in this order; the unit tests
 * read them).  Behaviour and the differences from conntrackd's slp helper
 * are in docs/plugins/slp.md.
 */
#ifndef CTH_SLP_H
#define CTH_SLP_H

#include <stdbool.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "slp". */
#define SLP_CLASS 0u

/* Counters, in cth_plugin_desc::counters order. */
enum slp_counter {
	SLP_C_REQUESTS,         /* requests whose answers were expected */
	SLP_C_V1,               /* SLPv1 messages: nothing opened */
	SLP_C_EXPECT_ERRORS,    /* answers the host would not expect */
	SLP_C_NO_LINK,          /* answers = link, no network known: nothing opened */
	SLP_C_MALFORMED,        /* not an SLP header */
	SLP_C_IGNORED,          /* not a request to a group or broadcast: nothing opened */
	SLP_C_COUNT
};

/* Values of the answers key. */
enum slp_answers {
	SLP_ANSWERS_LINK,       /* from the link's network (cth_link()) */
	SLP_ANSWERS_ANY,        /* from anywhere, as conntrackd */
};

/* Per helper instance: the host fills it from the declared keys. */
struct slp_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
	bool outgoing;          /* outgoing: help requests this host sends */
	bool incoming;          /* incoming: help requests that arrive */
	unsigned int answers;   /* answers: an slp_answers */
};

#endif
