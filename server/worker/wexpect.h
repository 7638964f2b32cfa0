/* SPDX-License-Identifier: MIT */
/*
 * The worker's expectation backend (cth_expect(), cth_expect_ctl()): one
 * expectation rides on the verdict (NFQA_EXP), the rest and everything
 * that needs an answer go over the worker's ctnetlink socket.  Split from
 * worker.c so the tests can run it against an emulated kernel
 * (tests/unit/nlfake.c stands in for nlreq.c).
 */
#ifndef CTH_WEXPECT_H
#define CTH_WEXPECT_H

#include <stdbool.h>

#include "host/packet.h"
#include "worker.h"

#define WORKER_MAX_EXPECT PKT_EXPECT_PER_CALL

/*
 * Most ctnetlink requests (dumps, gets, creates, deletes, conntrack
 * updates) one queued packet may cost, from its plugin call to what
 * follows its verdict; past it a request fails with -ENOSPC, which the
 * plugin sees, and counts as kernel_capped.  Each request is a
 * synchronous round trip on the worker's thread, so without a bound one
 * TCP segment of back-to-back SIP messages (each flushing three classes)
 * held the queue for thousands of them.  A legitimate packet needs far
 * fewer: one dump and a delete per expectation of its own to flush,
 * then up to WORKER_MAX_EXPECT expectations at two requests each at
 * most (a lookup, or a create answered EEXIST and its lookup), 33 plus
 * the deletes.  A NAT port search past that finds the range crowded.
 */
#define WORKER_KREQ_MAX 64u
/* A packet past a limit (WORKER_KREQ_MAX, WORKER_MAX_EXPECT) is logged
 * rate-limited (log_rl_*, log.h): a flood of them would flood the log. */

/* Per-packet state the expect backend needs besides the pkt_call. */
struct worker_pkt {
	struct worker *w;
	bool has_exp;                   /* one rides on the verdict (NFQA_EXP) */
	struct cth_expect exp;
	/* the plugin's strings may not outlive the call; packet.c refuses
	 * an fn of PKT_EXPECT_FN_MAX bytes or more before it gets here */
	char fn[PKT_EXPECT_FN_MAX];
	bool exp_pinned;                /* it must ride on the verdict (helper, refresh) */
	bool exp_unanswered;            /* asked for by cth_expect() and not made
					 * over ctnetlink: the verdict's is all */
	/* right after the verdict: creations for a master not confirmed
	 * yet, timeout updates of refreshed expectations */
	unsigned int n_later;
	struct cth_expect later[WORKER_MAX_EXPECT];
	bool later_timeout[WORKER_MAX_EXPECT];
	char later_fn[WORKER_MAX_EXPECT][PKT_EXPECT_FN_MAX];
	/* the master's expectations, every class, are in w->xlist: dumped
	 * once per packet, then kept as this packet deletes and creates, so
	 * however many flushes the packet asks for cost one dump */
	bool listed;
	int list_rc;                    /* the dump's answer, kept with it */
};

/* Start a packet's state (only the counters: the arrays are large and
 * filled as used). */
void worker_pkt_init(struct worker_pkt *wp, struct worker *w);
/* The bound on kernel requests starts for a packet of helper in, and
 * ends (the detach poll has its own: DETACH_POLL_BATCH). */
void worker_kreq_begin(struct worker *w, const struct instance *in);
void worker_kreq_end(struct worker *w);
/* The master's expectations of the packet into w->xlist, dumped once per
 * packet: 0 or a negative errno (-ENOENT: no such master). */
int worker_expect_listed(struct worker_pkt *wp, const struct pkt_call *c);
/* Every ctnetlink request of the worker (the verdicts collected so far
 * go first): 0 or a negative errno. */
int worker_ctnl_talk(struct worker *w, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data);
/* The master's expectations (of one class, or -1: all) into w->xlist:
 * 0 or a negative errno (-ENOENT: no such master). */
int worker_master_list(struct worker *w, const struct cth_tuple *orig,
		       uint16_t zone, int class);
/* The pkt_call's expect_fn and expect_ctl_fn. */
int worker_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how);
int worker_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e);
/* The verdict carried wp's expectation (NFQA_EXP): one asked for by
 * cth_expect() and made nowhere else counts as sent, its outcome unknown
 * to the worker. */
void worker_expect_sent(struct worker_pkt *wp, const struct pkt_call *c);
/* After the verdict: what waited for the master's confirmation. */
void worker_expect_later(struct worker_pkt *wp, struct pkt_call *c, int verdict);

#endif
