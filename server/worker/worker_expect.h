/* SPDX-License-Identifier: MIT */
/*
 * The worker's expectation backend (cth_expect(), cth_expect_ctl()): one
 * expectation rides on the verdict (NFQA_EXP), the rest and everything
 * that needs an answer go over the worker's ctnetlink socket
 * (worker_kreq.h).  The tests run it against an emulated kernel
 * (tests/unit/nlfake.c stands in for nlreq.c).
 */
#ifndef CTH_WORKER_EXPECT_H
#define CTH_WORKER_EXPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "host/packet.h"
#include "worker_kreq.h"

/* Most expectations one packet makes; a packet past it is logged
 * rate-limited (log_rl_*, log.h). */
#define WORKER_EXPECT_MAX PKT_EXPECT_PER_CALL

/* What an expectation kept for after the verdict is for. */
enum worker_later {
	WORKER_LATER_CREATE,    /* create it: the master was not confirmed */
	WORKER_LATER_TIMEOUT,   /* set its timeout: a refresh */
	WORKER_LATER_SHADOW,    /* create it unless the verdict's copy lives */
};

/* What one packet did with expectations, the pkt_call's backend. */
struct worker_expect_pkt {
	struct worker_kreq *kreq;
	struct stats_block *stats;      /* the worker's counters */
	bool has_exp;                   /* one rides on the verdict (NFQA_EXP) */
	struct cth_expect exp;
	/* the plugin's strings may not outlive the call; call.c refuses an
	 * fn of PKT_EXPECT_FN_MAX bytes or more before it gets here */
	char fn[PKT_EXPECT_FN_MAX];
	bool exp_pinned;                /* it must ride on the verdict (helper, refresh) */
	bool exp_unanswered;            /* asked for by cth_expect() and not made
					 * over ctnetlink: the verdict's is all */
	/* right after the verdict: creations for a master not confirmed
	 * yet, timeout updates of refreshed expectations */
	unsigned int n_later;
	struct cth_expect later[WORKER_EXPECT_MAX];
	uint8_t later_how[WORKER_EXPECT_MAX];   /* enum worker_later */
	char later_fn[WORKER_EXPECT_MAX][PKT_EXPECT_FN_MAX];
	/* the master's expectations, every class, are in kreq->list:
	 * dumped once per packet, then kept as this packet deletes and
	 * creates, so however many flushes the packet asks for cost one
	 * dump */
	bool listed;
	int list_rc;                    /* the dump's answer, kept with it */
};

/* Start a packet's state (only the counters: the arrays are large and
 * filled as used). */
void worker_expect_pkt_init(struct worker_expect_pkt *wp, struct worker_kreq *kreq,
			    struct stats_block *stats);
/* The pkt_call's expect_fn and expect_ctl_fn (c->backend is wp). */
int worker_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how);
int worker_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e);
/* The verdict carried wp's expectation (NFQA_EXP): one asked for by
 * cth_expect() and made nowhere else counts as sent, its outcome unknown
 * to the worker. */
void worker_expect_sent(struct worker_expect_pkt *wp, const struct pkt_call *c);
/* After the verdict: what waited for the master's confirmation. */
void worker_expect_later(struct worker_expect_pkt *wp, struct pkt_call *c, int verdict);
/* The master's expectations of the packet into wp->kreq->list, dumped
 * once per packet: 0 or a negative errno (-ENOENT: no such master). */
int worker_expect_listed(struct worker_expect_pkt *wp, const struct pkt_call *c);

#endif
