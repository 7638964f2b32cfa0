/* SPDX-License-Identifier: MIT */
/*
 * The SSDP plugin's configuration block and the indexes of its classes and
 * counters (ssdp.c declares them to the host in this order; the unit tests
 * read them).  Behaviour and the differences from conntrackd's ssdp
 * helper are in docs/plugins/ssdp.md.
 */
#ifndef CTH_SSDP_H
#define CTH_SSDP_H

#include <stdbool.h>

#include <cthelperd/plugin.h>

/* Expectation classes. */
#define SSDP_CLASS 0u   /* "ssdp": the unicast answers to an M-SEARCH */
#define SSDP_CLASS_HTTP 1u /* "http": LOCATION, CALLBACK and NOTIFY connections */

/* Values of the answers key. */
enum ssdp_answers {
	SSDP_ANSWERS_LINK = 0,  /* from the query's link's network only */
	SSDP_ANSWERS_ANY = 1,   /* from anywhere, as conntrackd */
};

/* Counters, in cth_plugin_desc::counters order. */
enum ssdp_counter {
	SSDP_C_MSEARCH,           /* M-SEARCH to a group: answers expected */
	SSDP_C_NO_LINK,           /* answers = link, but no network known */
	SSDP_C_LOCATION,          /* LOCATION: TCP to the answerer expected */
	SSDP_C_LOCATION_REFUSED,  /* LOCATION naming another host */
	SSDP_C_CALLBACK,          /* SUBSCRIBE CALLBACK expected */
	SSDP_C_CALLBACK_REFUSED,  /* CALLBACK naming another host */
	SSDP_C_NOTIFY,            /* NOTIFY: next event connection expected */
	SSDP_C_EXPECT_ERRORS,     /* expectations the host or kernel refused */
	SSDP_C_MALFORMED,         /* messages or URLs that do not parse */
	SSDP_C_OTHER,             /* everything else read and passed */
	SSDP_C_COUNT
};

/* Per helper instance: the host fills it from the declared keys. */
struct ssdp_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
	bool outgoing;          /* help M-SEARCHes this host sends */
	bool incoming;          /* help M-SEARCHes that arrive */
	bool location_own;      /* LOCATION only to the answerer's own address */
	unsigned int answers;   /* enum ssdp_answers */
};

#endif
