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

#include "packet.h"
#include "worker.h"

#define WORKER_MAX_EXPECT PKT_EXPECT_PER_CALL

/* Per-packet state the expect backend needs besides the pkt_call. */
struct worker_pkt {
	struct worker *w;
	bool has_exp;                   /* one rides on the verdict (NFQA_EXP) */
	struct cth_expect exp;
	/* the plugin's strings may not outlive the call; packet.c refuses
	 * an fn of PKT_EXPECT_FN_MAX bytes or more before it gets here */
	char fn[PKT_EXPECT_FN_MAX];
	bool exp_pinned;                /* it must ride on the verdict (helper, refresh) */
	/* right after the verdict: creations for a master not confirmed
	 * yet, timeout updates of refreshed expectations */
	unsigned int n_later;
	struct cth_expect later[WORKER_MAX_EXPECT];
	bool later_timeout[WORKER_MAX_EXPECT];
	char later_fn[WORKER_MAX_EXPECT][PKT_EXPECT_FN_MAX];
};

/* Start a packet's state (only the counters: the arrays are large and
 * filled as used). */
void worker_pkt_init(struct worker_pkt *wp, struct worker *w);
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
/* After the verdict: what waited for the master's confirmation. */
void worker_expect_later(struct worker_pkt *wp, struct pkt_call *c, int verdict);

#endif
