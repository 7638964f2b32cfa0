/* SPDX-License-Identifier: MIT */
#ifndef CTH_EXPREPAIR_H
#define CTH_EXPREPAIR_H

#include <ev.h>
#include <libmnl/libmnl.h>
#include <stdbool.h>

#include "nlreq.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"

/*
 * Expectations another program created for our helpers' connections
 * without the NAT they need (conntrackd's commit on a failover peer loses
 * it, docs/ha.md): re-created with the mapping of their master's own NAT.
 * exprepair.c says when a mapping can be derived.
 */
struct exprepair {
	struct mnl_socket *nl;          /* NFNLGRP_CONNTRACK_EXP_NEW events */
	ev_io io;
	struct nlreq *req;              /* the main thread's request socket */
	struct runtime *_Atomic *rtp;
	struct stats_block *stats;      /* the main thread's helper counters, or NULL */
};

/* The NAT an expectation of a NATed master needs, derived from the
 * master's tuples: the mapping its own NAT made for the address the
 * expectation is for.  Pure; false when none can be derived. */
struct exprepair_nat {
	enum cth_dir dir;               /* where the NAT applies (the kernel's IP_CT_DIR_*) */
	union cth_addr addr;
	uint16_t port;                  /* host order */
};
bool exprepair_derive(const struct cth_tuple *orig, const struct cth_tuple *reply,
		      const struct cth_tuple *expected, struct exprepair_nat *nat);

/* Subscribe and watch in loop; 0 or -errno (logged: the daemon runs on
 * without repairs). */
int exprepair_open(struct exprepair *x, struct ev_loop *loop, struct nlreq *req,
		   struct runtime *_Atomic *rtp, struct stats_block *stats);
/* One message of the event socket (mnl_cb_t; data is x): for tests. */
int exprepair_event(const struct nlmsghdr *nlh, void *data);
void exprepair_close(struct exprepair *x, struct ev_loop *loop);

#endif
