/* SPDX-License-Identifier: MIT */
/*
 * The TFTP plugin's configuration block and the indexes of its class and
 * counters (tftp.c declares them to the host in this order; the unit tests
 * read them).  Behaviour and the differences from the kernel's
 * nf_conntrack_tftp are in docs/plugins/tftp.md.
 */
#ifndef CTH_TFTP_H
#define CTH_TFTP_H

#include <stdbool.h>

#include <cthelperd/plugin.h>

/* The one expectation class, "tftp". */
#define TFTP_CLASS 0u

/* Counters, in cth_plugin_desc::counters order. */
enum tftp_counter {
	TFTP_C_RRQ,             /* well-formed read requests */
	TFTP_C_WRQ,             /* well-formed write requests */
	TFTP_C_EXPECTATIONS,    /* answers expected (the host took them) */
	TFTP_C_EXPECT_ERRORS,   /* answers that could not be expected */
	TFTP_C_MALFORMED,       /* neither a request nor another TFTP packet */
	TFTP_C_OTHER,           /* DATA, ACK, ERROR, OACK on a request's flow */
	TFTP_C_COUNT
};

/* Per helper instance: the host fills it from the declared keys. */
struct tftp_config {
	struct cth_ports ports; /* ports: where --print-rules attaches the helper */
	bool loose;             /* loose: any RRQ/WRQ opcode opens the answer */
};

#endif
