/* SPDX-License-Identifier: MIT */
/*
 * The IRC plugin's configuration block and the indexes of its class and
 * counters (irc.c declares them to the host in this order; the unit tests
 * read them).  Behaviour and the differences from the kernel's
 * nf_conntrack_irc + nf_nat_irc are in docs/plugins/irc.md.
 */
#ifndef CTH_IRC_H
#define CTH_IRC_H

#include <cthelperd/plugin.h>

/* The one expectation class, "irc": the DCC connections. */
#define IRC_CLASS 0u

/* Counters, in cth_plugin_desc::counters order. */
enum irc_counter {
	IRC_C_DCC,            /* DCC offers that name an address */
	IRC_C_OPENED,         /* expectations made for them */
	IRC_C_FORGED,         /* an address not the sender's own: nothing opened */
	IRC_C_PASSIVE,        /* port 0 (reverse DCC): nothing to open here */
	IRC_C_OTHER_FAMILY,   /* an address of the other family: nothing opened */
	IRC_C_MALFORMED,      /* DCC offers that do not parse */
	IRC_C_REWRITTEN,      /* offers rewritten to the NAT address/port */
	IRC_C_UNTRANSLATED,   /* NAT needed, but the text was forwarded already */
	IRC_C_EXPECT_ERRORS,  /* expectations that could not be made */
	IRC_C_COUNT
};

/* Per helper instance: the host fills it from the declared keys. */
struct irc_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
};

#endif
