/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_DECIDE_H
#define CTH_CTHELPER_DECIDE_H

#include <stddef.h>

#include "cthelper_msg.h"
#include "runtime/runtime.h"

/* What registration does with one (family, protocol) of an instance. */
enum cthelper_action {
	CTHELPER_CREATE,   /* none registered: create it */
	CTHELPER_REUSE,    /* ours, or the same definition: update it */
	CTHELPER_TAKEOVER, /* disabled, another definition the kernel can update */
	CTHELPER_REFUSE,   /* another program's: leave it alone and exit */
};

/*
 * Decide, from what the kernel has (old, NULL when nothing), what to do for
 * instance in on (family, proto).  For every action but CREATE, msg gets
 * the line to log (REFUSE: the error, naming what differs and what to do;
 * conf is the configuration file for the --release hint).  Pure: no I/O.
 */
enum cthelper_action cthelper_decide(const struct cthelper_state *old,
				     const struct instance *in, int family,
				     int proto, const char *conf, char *msg,
				     size_t msglen);

/*
 * What the kernel cannot change in old to make it in's (an update with
 * another private-state length, class count or class name is EBUSY:
 * nfnl_cthelper_update(), nfnl_cthelper_update_policy{,_one}(), 6.1):
 * a ", "-separated list appended to buf, nothing when the layouts match.
 */
void cthelper_decide_layout(const struct cthelper_state *old,
			    const struct instance *in, char *buf, size_t len);

#endif
