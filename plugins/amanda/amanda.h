/* SPDX-License-Identifier: MIT */
/*
 * The Amanda plugin's configuration block and the indexes of its class
 * and counters (amanda.c declares them to the host in this order; the
 * unit tests read them).  Behaviour and the differences from the
 * kernel's nf_conntrack_amanda + nf_nat_amanda and conntrackd's amanda
 * helper are in docs/plugins/amanda.md.
 */
#ifndef CTH_AMANDA_H
#define CTH_AMANDA_H

#include <stdint.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "amanda": DATA, MESG and INDEX. */
#define AMANDA_CLASS 0u

/* Counters, in cth_plugin_desc::counters order. */
enum amanda_counter {
	AMANDA_C_CONNECTS,      /* valid CONNECT lines in replies */
	AMANDA_C_EXPECTATIONS,  /* streams expected (the host took them) */
	AMANDA_C_EXPECT_ERRORS, /* streams that could not be expected */
	AMANDA_C_NAT_REWRITES,  /* ports moved to a free one under NAT */
	AMANDA_C_MALFORMED,     /* not Amanda, or a CONNECT line refused */
	AMANDA_C_OTHER,         /* requests, ACKs, replies without CONNECT */
	AMANDA_C_COUNT
};

/* Per helper instance: the host fills it from the declared keys. */
struct amanda_config {
	struct cth_ports ports;  /* ports: the client's amandad port */
	uint32_t master_timeout; /* master_timeout: seconds, set on each reply */
};

#endif
