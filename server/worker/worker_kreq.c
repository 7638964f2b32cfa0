/* SPDX-License-Identifier: MIT */
/* The worker's kernel requests (worker_kreq.h). */
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <stdlib.h>

#include "worker_kreq.h"
#include "base/log.h"
#include "worker_count.h"

static bool worker_kreq_take(struct worker_kreq *k);

int worker_kreq_init(struct worker_kreq *k, struct nlreq *ctnl,
		     struct worker_verdict *verdict, struct stats_block *stats)
{
	k->ctnl = ctnl;
	k->verdict = verdict;
	k->stats = stats;
	k->list = malloc(sizeof(*k->list));
	return k->list ? 0 : -ENOMEM;
}

void worker_kreq_free(struct worker_kreq *k)
{
	free(k->list);
	k->list = NULL;
}

void worker_kreq_begin(struct worker_kreq *k, const struct instance *in)
{
	k->left = WORKER_KREQ_MAX;
	k->inst = in;
}

void worker_kreq_end(struct worker_kreq *k)
{
	k->inst = NULL;
}

/*
 * The verdicts collected so far go first: the kernel then sees verdicts
 * and ctnetlink requests in the order it saw them when each verdict had
 * its own sendto().  What a request reads or changes may depend on an
 * earlier verdict (an expectation it carried, a detach, a master it
 * confirmed), and what must follow this packet's verdict
 * (worker_expect_later()) finds it sent.
 */
int worker_kreq_talk(struct worker_kreq *k, struct nlmsghdr *nlh, mnl_cb_t cb,
		     void *data)
{
	if (!worker_kreq_take(k))
		return -ENOSPC;
	worker_verdict_flush(k->verdict);
	return nlreq_talk_cb(k->ctnl, nlh, cb, data);
}

/* Update an existing connection (no NLM_F_CREATE): set its helper, or
 * with helper NULL change nothing (expect_ct_put_conn()). */
int worker_kreq_ct_update(struct worker_kreq *k, const struct cth_tuple *orig,
			  uint16_t zone, const char *helper)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_NEW, 0,
			    (uint8_t)orig->family);
	if ((rc = expect_ct_put_conn(nlh, orig, zone, helper)) < 0)
		return rc;
	return worker_kreq_talk(k, nlh, NULL, NULL);
}

int worker_kreq_master_list(struct worker_kreq *k, const struct cth_tuple *orig,
			    uint16_t zone, int class)
{
	struct expect_list *l = k->list;
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	l->class = class;
	l->n = 0;
	l->truncated = false;
	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_GET,
			    NLM_F_DUMP, (uint8_t)orig->family);
	if ((rc = expect_put_master(nlh, orig, zone)) < 0)
		return rc;
	return worker_kreq_talk(k, nlh, expect_list_cb, l);
}

/* One more request for the packet being helped: false past the bound. */
static bool worker_kreq_take(struct worker_kreq *k)
{
	if (!k->inst)
		return true;
	if (k->left) {
		k->left--;
		return true;
	}
	worker_count(k->stats, k->inst, STATS_H_KERNEL_CAPPED);
	log_rl_warn("%s: a packet asked for more than %u kernel requests: refused (kernel_capped)",
		    k->inst->name, WORKER_KREQ_MAX);
	return false;
}
