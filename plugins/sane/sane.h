/* SPDX-License-Identifier: MIT */
/*
 * The SANE plugin's configuration block, private state and the indexes
 * of its class and counters (sane.c declares them to the host in this
 * order; the unit tests read them).  Behaviour and the differences from
 * the kernel's nf_conntrack_sane and conntrackd's sane helper are in
 * docs/plugins/sane.md.
 */
#ifndef CTH_SANE_H
#define CTH_SANE_H

#include <stdint.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "sane": a scan's data connection. */
#define SANE_CLASS 0u

/* SANE network protocol (sane-backends doc/net.tex): RPC codes are the
 * first big-endian word of a request; SANE_NET_START's request is the
 * code and the device handle, its reply the status, the port, ... */
#define SANE_NET_START 7u
#define SANE_WORD 4u
#define SANE_START_LEN (2u * SANE_WORD)

/* Counters, in cth_plugin_desc::counters order. */
enum sane_counter {
	SANE_C_STARTS,          /* SANE_NET_START requests seen */
	SANE_C_EXPECTATIONS,    /* data connections expected */
	SANE_C_EXPECT_ERRORS,   /* data connections that could not be expected */
	SANE_C_START_FAILED,    /* START replies with a status other than 0 */
	SANE_C_PORT_ZERO,       /* successful START replies with port 0: refused */
	SANE_C_MALFORMED,       /* START replies whose port word is above 65535 */
	SANE_C_NAT_REWRITES,    /* ports moved to a free one under NAT */
	SANE_C_COUNT
};

/* Per helper instance: the host fills it from the declared keys. */
struct sane_config {
	struct cth_ports ports; /* ports: saned's */
};

/* Layout version of struct sane_priv, kept by the host at its first byte. */
#define SANE_PRIV_VERSION 1u

/*
 * Where the connection is, for the next segment with data.  SANE is
 * strictly request then reply: a client sends its next request only
 * once it has the whole reply, so the first original-direction data
 * after reply data starts a request.
 */
enum sane_state {
	SANE_S_IDLE = 0,        /* the next client data starts a request */
	SANE_S_REQUEST = 1,     /* in a request other than START */
	SANE_S_START = 2,       /* START sent: the reply's status and port awaited */
	SANE_S_REPLY = 3,       /* in a reply: the next client data starts a request */
	SANE_S_COUNT
};

/* Per-connection state, in the conntrack entry (CTA_HELP_INFO). */
struct sane_priv {
	uint8_t version;
	uint8_t state;          /* enum sane_state */
};

_Static_assert(sizeof(struct sane_priv) == 2, "sane_priv must have no padding");

#endif
