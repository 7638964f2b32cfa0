/* SPDX-License-Identifier: MIT */
/*
 * One netlink socket for nfnetlink requests that want an answer: the
 * daemon's control requests (cthelper) and each worker's ctnetlink
 * requests.
 */
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <time.h>

#include "nlreq.h"

static int nlreq_answer(struct nlreq *r, const struct nlmsghdr *nlh,
			mnl_cb_t cb, void *data);

int nlreq_open(struct nlreq *r)
{
	r->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!r->nl)
		return -errno;
	if (mnl_socket_bind(r->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int e = -errno;

		mnl_socket_close(r->nl);
		r->nl = NULL;
		return e;
	}
	r->portid = mnl_socket_get_portid(r->nl);
	r->seq = (uint32_t)time(NULL);
	return 0;
}

void nlreq_close(struct nlreq *r)
{
	if (r->nl)
		mnl_socket_close(r->nl);
	r->nl = NULL;
}

struct nlmsghdr *nlreq_msg_put(char *buf, uint8_t subsys, uint8_t type,
			       uint16_t flags, uint8_t family)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (uint16_t)(subsys << 8 | type);
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = family;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	return nlh;
}

int nlreq_talk(struct nlreq *r, struct nlmsghdr *nlh)
{
	return nlreq_talk_cb(r, nlh, NULL, NULL);
}

int nlreq_talk_cb(struct nlreq *r, struct nlmsghdr *nlh, mnl_cb_t cb,
		  void *data)
{
	char buf[NLREQ_BUF];

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++r->seq;
	if (mnl_socket_sendto(r->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(r->nl, buf, sizeof(buf));
		const struct nlmsghdr *m = (const void *)buf;
		int rem = (int)n;

		if (n < 0)
			return errno == EINTR ? 0 : -errno;
		for (; mnl_nlmsg_ok(m, rem); m = mnl_nlmsg_next(m, &rem)) {
			int rc = nlreq_answer(r, m, cb, data);

			if (rc)
				return rc < 0 ? rc : 0;
		}
	}
}

/*
 * Answers are matched to the request by sequence number and port id, both
 * exactly (mnl_cb_run() lets a message with sequence 0 pass): anything
 * else is a stale answer to an earlier request and is skipped.  Returns
 * 1 when the answer is complete, 0 to read on, or a negative errno.
 */
static int nlreq_answer(struct nlreq *r, const struct nlmsghdr *nlh,
			mnl_cb_t cb, void *data)
{
	if (nlh->nlmsg_seq != r->seq || (nlh->nlmsg_pid && nlh->nlmsg_pid != r->portid))
		return 0;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

		if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
			return -EBADMSG;
		return e->error ? e->error : 1;
	}
	if (nlh->nlmsg_type == NLMSG_DONE)
		return 1;
	if (cb && cb(nlh, data) < 0)
		return -EBADMSG;
	return 0;
}
