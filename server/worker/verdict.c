/* SPDX-License-Identifier: MIT */
/* Writing one verdict message (see verdict.h); sending is the worker's. */
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "kernel/expect.h"
#include "verdict.h"

static void verdict_ct_put(struct nlmsghdr *nlh, const struct pkt_call *c);

size_t verdict_size_max(size_t pkt_len, bool exp)
{
	return VERDICT_HEAD_MAX + (exp ? VERDICT_EXP_MAX : 0) +
	       (pkt_len ? MNL_ATTR_HDRLEN + MNL_ALIGN(pkt_len) : 0);
}

struct nlmsghdr *verdict_put(char *buf, uint16_t queue, uint32_t id, bool drop,
			     const struct pkt_call *c, const uint8_t *pkt,
			     size_t pkt_len, const struct cth_expect *exp)
{
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_VERDICT, queue);

	nfq_nlmsg_verdict_put(nlh, (int)id, drop ? NF_DROP : NF_ACCEPT);
	if (!c)
		return nlh;
	if (pkt)
		nfq_nlmsg_verdict_put_pkt(nlh, pkt, (uint32_t)pkt_len);
	/* NFQA_EXP is only honoured together with NFQA_CT */
	if (c->priv_changed || c->detach || c->has_timeout || c->has_mark || exp)
		verdict_ct_put(nlh, c);
	if (exp) {
		struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_EXP);

		if (expect_put(nlh, exp, &c->pkt, c->inst->name, false) < 0)
			mnl_attr_nest_cancel(nlh, nest);
		else
			mnl_attr_nest_end(nlh, nest);
	}
	return nlh;
}

/*
 * The NFQA_CT nest is written with libmnl: libnetfilter_conntrack 1.0.9
 * never records the length given to nfct_set_attr_l(ATTR_HELPER_INFO),
 * so nfct_nlmsg_build() emits an empty CTA_HELP_INFO for a fresh object.
 * Tuples are not needed: the kernel only applies timeout, status, helper,
 * labels and mark from a verdict's conntrack.
 */
static void verdict_ct_put(struct nlmsghdr *nlh, const struct pkt_call *c)
{
	size_t priv_size = c->inst->pl->desc->priv_size;
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_CT);
	bool expected = c->pkt.ct_status & CTH_CT_EXPECTED;

	if (c->has_timeout)
		mnl_attr_put_u32(nlh, CTA_TIMEOUT, htonl(c->timeout));
	if (c->has_mark) {
		mnl_attr_put_u32(nlh, CTA_MARK, htonl(c->mark));
		/* Linux 6.1 ctnetlink_glue_parse_ct() -> ctnetlink_change_mark():
		 * new = (old & ~mask) ^ mark, so the helper's bits only */
		mnl_attr_put_u32(nlh, CTA_MARK_MASK, htonl(c->mark_mask));
	}
	/* Linux 6.1 ctnetlink_change_helper(): a connection with a master
	 * keeps no CTA_HELP_INFO, and any other helper name than its own is
	 * refused, which voids this whole NFQA_CT (mark, expectation, seq
	 * adjustment): never write CTA_HELP for one. */
	if (!expected && (c->detach || (c->priv_changed && priv_size))) {
		struct nlattr *help = mnl_attr_nest_start(nlh, CTA_HELP);

		mnl_attr_put_strz(nlh, CTA_HELP_NAME, c->detach ? "" : c->inst->name);
		if (!c->detach)
			mnl_attr_put(nlh, CTA_HELP_INFO, priv_size, c->priv);
		mnl_attr_nest_end(nlh, help);
	}
	mnl_attr_nest_end(nlh, nest);
}
