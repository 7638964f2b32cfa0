/* SPDX-License-Identifier: MIT */
/*
 * Queue workers: receive queued packets with their conntrack, run the
 * helper's plugin, send the verdict with the updated conntrack (private
 * state, timeout, mark, helper detach) and at most one expectation.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/if_ether.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "expect.h"
#include "overlay.h"
#include "log.h"
#include "packet.h"
#include "worker.h"

/* GSO packets can be 64 KiB; the verdict may carry one back, grown. */
#define WORKER_RBUF (256u * 1024u)
#define WORKER_SBUF (80u * 1024u)
#define WORKER_SO_RCVBUF (8 * 1024 * 1024)
#define WORKER_MAX_EXPECT 16u

/* Per-packet state the expect backend needs besides the pkt_call. */
struct worker_pkt {
	struct worker *w;
	bool has_exp;                   /* one rides on the verdict (NFQA_EXP) */
	struct cth_expect exp;
	char fn[32];                    /* the plugin's string may not outlive the call */
};

static int worker_queue_bind(struct worker *w, uint32_t queue_len,
			     bool fail_open)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	uint32_t flags = NFQA_CFG_F_CONNTRACK | NFQA_CFG_F_GSO |
			 (fail_open ? NFQA_CFG_F_FAIL_OPEN : 0);
	int rc;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, w->queue);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	if ((rc = nlreq_talk(&w->nfq, nlh)) < 0)
		return rc;
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, w->queue);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(flags));
	nfq_nlmsg_cfg_put_qmaxlen(nlh, queue_len);
	return nlreq_talk(&w->nfq, nlh);
}

static void worker_sock_tune(struct worker *w)
{
	int fd = mnl_socket_get_fd(w->nfq.nl), one = 1, sz = WORKER_SO_RCVBUF;

	/* losing a queued packet's verdict is worse than an overrun report:
	 * overruns are counted by the kernel (nfnetlink_queue stats) */
	mnl_socket_setsockopt(w->nfq.nl, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int worker_init(struct worker *w, uint16_t queue, uint32_t queue_len,
		bool fail_open, struct runtime *_Atomic *rtp)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->queue = queue;
	w->rtp = rtp;
	w->rbuf = malloc(WORKER_RBUF);
	w->sbuf = malloc(WORKER_SBUF);
	if (!w->rbuf || !w->sbuf)
		return -ENOMEM;
	if ((rc = nlreq_open(&w->nfq)) < 0 || (rc = nlreq_open(&w->ctnl)) < 0) {
		log_err("queue %u: cannot open netlink socket: %s", queue, strerror(-rc));
		return rc;
	}
	rc = worker_queue_bind(w, queue_len, fail_open);
	if (rc < 0) {
		log_err("queue %u: cannot bind: %s%s", queue, strerror(-rc),
			rc == -EBUSY ? " (another process, e.g. conntrackd, owns this queue)" :
			rc == -EPERM ? " (needs CAP_NET_ADMIN)" :
			rc == -EINVAL || rc == -EOPNOTSUPP ? " (kernel lacks nfnetlink_queue or its conntrack glue)" : "");
		return rc;
	}
	worker_sock_tune(w);
	return 0;
}

/*
 * EEXIST (NLM_F_EXCL) says an expectation with this tuple exists, not
 * whose it is.  When it belongs to this very master and class (a
 * retransmitted PORT/227 asking again), the kernel's own helpers would
 * simply replace it (nf_ct_expect_related): report success, so that the
 * plugin announces the same port again.
 */
static bool worker_expect_ours(struct worker *w, const struct pkt_call *c,
			       const struct cth_expect *e)
{
	struct expect_owner own = {
		.master = &c->pkt.tuple[CTH_DIR_ORIGINAL],
		.class = e->class,
	};
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_GET,
			    0, e->family);
	if (expect_put(nlh, e, &c->pkt, c->inst->name, true) < 0)
		return false;
	if (nlreq_talk_cb(&w->ctnl, nlh, expect_master_cb, &own) < 0)
		return false;
	return own.ours;
}

/* IPCTNL_MSG_EXP_NEW with an ack: the kernel's answer now. */
static int worker_expect_ctnl(struct worker *w, const struct pkt_call *c,
			      const struct cth_expect *e)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_NEW,
			    NLM_F_CREATE | NLM_F_EXCL, e->family);
	rc = expect_put(nlh, e, &c->pkt, c->inst->name, true);
	if (rc == 0)
		rc = nlreq_talk(&w->ctnl, nlh);
	if (rc == -EEXIST && worker_expect_ours(w, c, e))
		rc = 0;
	log_debug("%s: expectation to port %u over ctnetlink: %s", c->inst->name,
		  e->dport, rc ? strerror(-rc) : "created");
	return rc;
}

/* Keep an expectation for the verdict's NFQA_EXP (the plugin's fn string
 * may not outlive the call). */
static void worker_expect_hold(struct worker_pkt *wp, const struct cth_expect *e)
{
	wp->exp = *e;
	if (e->fn)
		wp->exp.fn = strcpy(wp->fn, e->fn);
	wp->has_exp = true;
}

/*
 * Which path an expectation takes.  The verdict carries one (NFQA_EXP,
 * its result is never known); everything else, and whatever needs an
 * answer, goes over ctnetlink.  Measured on Linux 6.1 (docs/
 * architecture.md): ctnetlink EXP_NEW ignores the helper name, only
 * NFQA_EXP gives the expected connection a helper, so a
 * CTH_EXPECT_HELPER expectation always takes the verdict's place; with
 * CTH_EXPECT_SYNC it is also created over ctnetlink first for the answer,
 * and the verdict's copy replaces it (same tuple, class and master:
 * nf_ct_expect_related() replaces rather than refuses).
 */
static int worker_expect(struct pkt_call *c, const struct cth_expect *e,
			 unsigned int how)
{
	struct worker_pkt *wp = c->backend;
	bool helped = e->flags & CTH_EXPECT_HELPER;
	int rc;

	/* only created expectations count: a NAT port search may try many */
	if (c->n_expect >= WORKER_MAX_EXPECT)
		return -ENOSPC;
	if (e->fn && strlen(e->fn) >= sizeof(wp->fn))
		return -EINVAL;
	if (helped && wp->has_exp && (wp->exp.flags & CTH_EXPECT_HELPER))
		return -EOPNOTSUPP;   /* one helped expectation per packet */
	if (helped && wp->has_exp) {
		/* the held one was promised without an answer: create it now */
		if (worker_expect_ctnl(wp->w, c, &wp->exp) < 0)
			log_info("%s: expectation to port %u (moved off the verdict) failed",
				 c->inst->name, wp->exp.dport);
		wp->has_exp = false;
	}
	if ((how & CTH_EXPECT_SYNC) || (!helped && wp->has_exp)) {
		rc = worker_expect_ctnl(wp->w, c, e);
		if (rc < 0)
			return rc;
		if (!helped) {
			c->n_expect++;
			return 0;
		}
	}
	worker_expect_hold(wp, e);
	c->n_expect++;
	return 0;
}

/* The attributes a tuple needs, per direction and family: the conntrack
 * glue always sends them, but a message that lacks one must not crash us. */
static const enum nf_conntrack_attr worker_tuple_attrs[2][2][4] = {
	/* [reply][v6] = { src, dst, sport, dport } */
	[0][0] = { ATTR_ORIG_IPV4_SRC, ATTR_ORIG_IPV4_DST, ATTR_ORIG_PORT_SRC, ATTR_ORIG_PORT_DST },
	[0][1] = { ATTR_ORIG_IPV6_SRC, ATTR_ORIG_IPV6_DST, ATTR_ORIG_PORT_SRC, ATTR_ORIG_PORT_DST },
	[1][0] = { ATTR_REPL_IPV4_SRC, ATTR_REPL_IPV4_DST, ATTR_REPL_PORT_SRC, ATTR_REPL_PORT_DST },
	[1][1] = { ATTR_REPL_IPV6_SRC, ATTR_REPL_IPV6_DST, ATTR_REPL_PORT_SRC, ATTR_REPL_PORT_DST },
};

static int worker_tuple_get(const struct nf_conntrack *ct, int reply,
			    struct cth_tuple *t)
{
	const enum nf_conntrack_attr *a;

	if (!nfct_attr_is_set(ct, ATTR_ORIG_L3PROTO) ||
	    !nfct_attr_is_set(ct, reply ? ATTR_REPL_L4PROTO : ATTR_ORIG_L4PROTO))
		return -EINVAL;
	t->family = nfct_get_attr_u8(ct, ATTR_ORIG_L3PROTO);
	if (t->family != AF_INET && t->family != AF_INET6)
		return -EINVAL;
	a = worker_tuple_attrs[reply][t->family == AF_INET6];
	for (size_t i = 0; i < 4; i++)
		if (!nfct_attr_is_set(ct, a[i]))
			return -EINVAL;
	t->proto = nfct_get_attr_u8(ct, reply ? ATTR_REPL_L4PROTO : ATTR_ORIG_L4PROTO);
	memset(&t->src, 0, sizeof(t->src));
	memset(&t->dst, 0, sizeof(t->dst));
	memcpy(t->src.raw, nfct_get_attr(ct, a[0]), t->family == AF_INET ? 4 : 16);
	memcpy(t->dst.raw, nfct_get_attr(ct, a[1]), t->family == AF_INET ? 4 : 16);
	t->sport = ntohs(nfct_get_attr_u16(ct, a[2]));
	t->dport = ntohs(nfct_get_attr_u16(ct, a[3]));
	return 0;
}

/* An expected connection's master (CTA_TUPLE_MASTER), all or nothing. */
static bool worker_master_get(const struct nf_conntrack *ct, struct cth_tuple *t)
{
	static const enum nf_conntrack_attr v4[] = {
		ATTR_MASTER_L4PROTO, ATTR_MASTER_IPV4_SRC, ATTR_MASTER_IPV4_DST,
		ATTR_MASTER_PORT_SRC, ATTR_MASTER_PORT_DST,
	}, v6[] = {
		ATTR_MASTER_L4PROTO, ATTR_MASTER_IPV6_SRC, ATTR_MASTER_IPV6_DST,
		ATTR_MASTER_PORT_SRC, ATTR_MASTER_PORT_DST,
	};
	const enum nf_conntrack_attr *a;
	uint8_t family;

	if (!nfct_attr_is_set(ct, ATTR_MASTER_L3PROTO))
		return false;
	family = nfct_get_attr_u8(ct, ATTR_MASTER_L3PROTO);
	if (family != AF_INET && family != AF_INET6)
		return false;
	a = family == AF_INET ? v4 : v6;
	for (size_t i = 0; i < sizeof(v4) / sizeof(v4[0]); i++)
		if (!nfct_attr_is_set(ct, a[i]))
			return false;
	memset(t, 0, sizeof(*t));
	t->family = family;
	t->proto = nfct_get_attr_u8(ct, a[0]);
	memcpy(t->src.raw, nfct_get_attr(ct, a[1]), family == AF_INET ? 4 : 16);
	memcpy(t->dst.raw, nfct_get_attr(ct, a[2]), family == AF_INET ? 4 : 16);
	t->sport = ntohs(nfct_get_attr_u16(ct, a[3]));
	t->dport = ntohs(nfct_get_attr_u16(ct, a[4]));
	return true;
}

static unsigned int worker_ct_status(uint32_t ips)
{
	return ((ips & IPS_EXPECTED) ? CTH_CT_EXPECTED : 0) |
	       ((ips & IPS_SEEN_REPLY) ? CTH_CT_SEEN_REPLY : 0) |
	       ((ips & IPS_ASSURED) ? CTH_CT_ASSURED : 0) |
	       ((ips & IPS_CONFIRMED) ? CTH_CT_CONFIRMED : 0);
}

/* Everything the plugin sees about the connection, from NFQA_CT. */
static int worker_conn_get(const struct nf_conntrack *ct, uint32_t ctinfo,
			   struct cth_packet *p)
{
	uint32_t status;

	if (worker_tuple_get(ct, 0, &p->tuple[CTH_DIR_ORIGINAL]) < 0 ||
	    worker_tuple_get(ct, 1, &p->tuple[CTH_DIR_REPLY]) < 0)
		return -EINVAL;
	status = nfct_attr_is_set(ct, ATTR_STATUS) ? nfct_get_attr_u32(ct, ATTR_STATUS) : 0;
	p->nat = ((status & IPS_SRC_NAT) ? CTH_NAT_SRC : 0) |
		 ((status & IPS_DST_NAT) ? CTH_NAT_DST : 0);
	p->ct_status = worker_ct_status(status);
	if (worker_master_get(ct, &p->master))
		p->ct_status |= CTH_CT_EXPECTED;
	else if (p->ct_status & CTH_CT_EXPECTED)
		memset(&p->master, 0, sizeof(p->master));
	p->mark = nfct_attr_is_set(ct, ATTR_MARK) ? nfct_get_attr_u32(ct, ATTR_MARK) : 0;
	p->zone = nfct_attr_is_set(ct, ATTR_ZONE) ? nfct_get_attr_u16(ct, ATTR_ZONE) : 0;
	p->ct_id = nfct_attr_is_set(ct, ATTR_ID) ? nfct_get_attr_u32(ct, ATTR_ID) : 0;
	if (ctinfo > IP_CT_RELATED_REPLY)
		return -EINVAL;
	p->ctinfo = (enum cth_ctinfo)ctinfo;
	p->dir = ctinfo >= IP_CT_IS_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	return 0;
}

/*
 * CTA_HELP_INFO as the kernel sent it, with its real length (the library
 * keeps the length to itself): a shorter blob is zero-extended by
 * pkt_call_run(), never read past.
 */
static const uint8_t *worker_help_info(const struct nlattr *ct_nest, size_t *len)
{
	const struct nlattr *a, *h;

	mnl_attr_for_each_nested(a, ct_nest) {
		if (mnl_attr_get_type(a) != CTA_HELP)
			continue;
		mnl_attr_for_each_nested(h, a) {
			if (mnl_attr_get_type(h) != CTA_HELP_INFO)
				continue;
			*len = mnl_attr_get_payload_len(h);
			return mnl_attr_get_payload(h);
		}
	}
	*len = 0;
	return NULL;
}

/*
 * The NFQA_CT nest is written with libmnl: libnetfilter_conntrack 1.0.9
 * never records the length given to nfct_set_attr_l(ATTR_HELPER_INFO),
 * so nfct_nlmsg_build() emits an empty CTA_HELP_INFO for a fresh object.
 * Tuples are not needed: the kernel only applies timeout, status, helper,
 * labels and mark from a verdict's conntrack.
 */
static void worker_ct_put(struct nlmsghdr *nlh, const struct pkt_call *c)
{
	size_t priv_size = c->inst->pl->desc->priv_size;
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_CT);
	bool expected = c->pkt.ct_status & CTH_CT_EXPECTED;

	if (c->has_timeout)
		mnl_attr_put_u32(nlh, CTA_TIMEOUT, htonl(c->timeout));
	if (c->has_mark)
		mnl_attr_put_u32(nlh, CTA_MARK, htonl(c->mark));
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

static void worker_verdict_send(struct worker *w, uint16_t queue, uint32_t id,
				int verdict, struct pkt_call *c,
				const struct cth_expect *exp)
{
	struct nlmsghdr *nlh = nfq_nlmsg_put(w->sbuf, NFQNL_MSG_VERDICT, queue);

	nfq_nlmsg_verdict_put(nlh, (int)id, verdict == CTH_VERDICT_DROP ? NF_DROP : NF_ACCEPT);
	if (c) {
		size_t len;
		const uint8_t *pkt = pkt_call_mangled(c, &len);

		if (pkt)
			nfq_nlmsg_verdict_put_pkt(nlh, pkt, (uint32_t)len);
		/* NFQA_EXP is only honoured together with NFQA_CT */
		if (c->priv_changed || c->detach || c->has_timeout ||
		    c->has_mark || exp)
			worker_ct_put(nlh, c);
		if (exp) {
			struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_EXP);

			if (expect_put(nlh, exp, &c->pkt, c->inst->name, false) < 0)
				mnl_attr_nest_cancel(nlh, nest);
			else
				mnl_attr_nest_end(nlh, nest);
		}
	}
	if (mnl_socket_sendto(w->nfq.nl, nlh, nlh->nlmsg_len) < 0) {
		w->verdict_errors++;
		log_err("queue %u: verdict for packet %u: %s", queue, id, strerror(errno));
	}
}

static int worker_family(const struct nfqnl_msg_packet_hdr *ph)
{
	switch (ntohs(ph->hw_protocol)) {
	case ETH_P_IP:
		return AF_INET;
	case ETH_P_IPV6:
		return AF_INET6;
	default:
		return -1;
	}
}

static uint64_t worker_now_ms(const struct worker *w)
{
	return (uint64_t)(ev_now(w->loop) * 1000.0);
}

/* Run the plugin for a packet with payload and send its verdict. */
static void worker_packet_help(struct worker *w, uint16_t queue, uint32_t id,
			       int family, struct nlattr **attr,
			       const struct cth_packet *view, bool truncated,
			       bool gso)
{
	const struct runtime *rt = atomic_load(w->rtp);
	struct worker_pkt wp = { .w = w };
	struct pkt_call c = { .backend = &wp, .expect_fn = worker_expect };
	struct nf_conntrack *ct = nfct_new();
	const struct instance *in = NULL;
	const char *name = NULL;
	const uint8_t *kpriv;
	uint32_t ctinfo = IP_CT_NUMBER;
	size_t klen;
	int verdict = CTH_VERDICT_ACCEPT;

	if (!ct)
		goto out;
	if (nfct_payload_parse(mnl_attr_get_payload(attr[NFQA_CT]),
			       mnl_attr_get_payload_len(attr[NFQA_CT]),
			       (uint16_t)family, ct) < 0)
		goto out;
	if (attr[NFQA_CT_INFO])
		ctinfo = ntohl(mnl_attr_get_u32(attr[NFQA_CT_INFO]));
	c.pkt = *view;
	if (worker_conn_get(ct, ctinfo, &c.pkt) < 0 ||
	    c.pkt.tuple[0].family != family) {
		log_debug("queue %u: packet %u: incomplete conntrack, accepted", queue, id);
		goto out;
	}
	if (nfct_attr_is_set(ct, ATTR_HELPER_NAME))
		name = nfct_get_attr(ct, ATTR_HELPER_NAME);
	in = name ? runtime_find(rt, queue, name, family, c.pkt.tuple[0].proto) : NULL;
	if (!in) {
		log_debug("queue %u: packet %u: helper '%s' is not ours, accepted",
			  queue, id, name ? name : "(none)");
		goto out;
	}
	c.inst = in;
	c.pkt.queue = queue;
	c.truncated = truncated;
	c.gso = gso;
	kpriv = worker_help_info(attr[NFQA_CT], &klen);
	verdict = overlay_call_run(&w->overlay, &c, kpriv, klen, worker_now_ms(w));
out:
	worker_verdict_send(w, queue, id, verdict, in ? &c : NULL,
			    wp.has_exp ? &wp.exp : NULL);
	pkt_call_release(&c);
	if (ct)
		nfct_destroy(ct);
}

/* The bits of the queue message the packet view needs besides the packet. */
static void worker_view_flags(struct nlattr **attr, bool *truncated, bool *gso)
{
	uint32_t skbinfo = attr[NFQA_SKB_INFO] ? ntohl(mnl_attr_get_u32(attr[NFQA_SKB_INFO])) : 0;

	/* NFQA_CAP_LEN is only sent when the copy was cut short */
	*truncated = attr[NFQA_CAP_LEN] &&
		     ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN])) >
		     mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	*gso = skbinfo & NFQA_SKB_GSO;
}

static void worker_packet(struct worker *w, const struct nlmsghdr *nlh)
{
	struct nlattr *attr[NFQA_MAX + 1] = { 0 };
	const struct nfqnl_msg_packet_hdr *ph;
	struct cth_packet view = { 0 };
	uint16_t queue = ntohs(((struct nfgenmsg *)mnl_nlmsg_get_payload(nlh))->res_id);
	bool parsed, truncated = false, gso = false;
	uint32_t id;
	int family;

	/* A message that does not parse as a whole may still name its packet
	 * (NFQA_PACKET_HDR comes first): that packet gets a verdict, or the
	 * kernel would hold it until the queue overflows. */
	parsed = nfq_nlmsg_parse(nlh, attr) >= 0;
	if (!attr[NFQA_PACKET_HDR]) {
		log_err("queue %u: malformed queue message without packet id", queue);
		return;
	}
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	id = ntohl(ph->packet_id);
	w->packets++;
	if (!parsed) {
		log_warn("queue %u: packet %u: malformed queue message, accepted", queue, id);
		worker_verdict_send(w, queue, id, CTH_VERDICT_ACCEPT, NULL, NULL);
		return;
	}
	family = worker_family(ph);
	/* no payload (pure ACK), no conntrack, or not IP: accept, cheaply */
	if (family < 0 || !attr[NFQA_PAYLOAD] || !attr[NFQA_CT] ||
	    pkt_view_parse(&view, mnl_attr_get_payload(attr[NFQA_PAYLOAD]),
			   mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]), family) < 0 ||
	    view.payload_len == 0) {
		worker_verdict_send(w, queue, id, CTH_VERDICT_ACCEPT, NULL, NULL);
		return;
	}
	worker_view_flags(attr, &truncated, &gso);
	worker_packet_help(w, queue, id, family, attr, &view, truncated, gso);
}

/* Walk every message ourselves: mnl_cb_run() stops at the first error
 * message, which would strand the packets queued behind it. */
static void worker_batch(struct worker *w, size_t len)
{
	const struct nlmsghdr *nlh = (const void *)w->rbuf;
	int rem = (int)len;

	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (e->error) {
				w->verdict_errors++;
				log_warn("queue %u: kernel refused a verdict: %s",
					 w->queue, strerror(-e->error));
			}
			continue;
		}
		if ((nlh->nlmsg_type & 0xff) == NFQNL_MSG_PACKET &&
		    (nlh->nlmsg_type >> 8) == NFNL_SUBSYS_QUEUE)
			worker_packet(w, nlh);
	}
}

static void worker_drain(struct worker *w)
{
	int fd = mnl_socket_get_fd(w->nfq.nl);

	for (;;) {
		ssize_t n = recv(fd, w->rbuf, WORKER_RBUF, MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				log_err("queue %u: receive: %s", w->queue, strerror(errno));
			return;
		}
		worker_batch(w, (size_t)n);
	}
}

static void worker_io_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	(void)loop;
	(void)revents;
	worker_drain(io->data);
}

/* Packets queued just before the helper was disabled may still be on
 * their way: give them a moment, then leave. */
static void worker_drain_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	(void)revents;
	worker_drain(t->data);
	ev_break(loop, EVBREAK_ALL);
}

static void worker_stop_cb(struct ev_loop *loop, ev_async *a, int revents)
{
	struct worker *w = a->data;

	(void)revents;
	worker_drain(w);
	ev_timer_init(&w->drain, worker_drain_cb, 0.2, 0.);
	w->drain.data = w;
	ev_timer_start(loop, &w->drain);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	ev_run(w->loop, 0);
	return NULL;
}

int worker_start(struct worker *w)
{
	sigset_t all, old;
	int rc;

	w->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
	if (!w->loop)
		return -ENOMEM;
	ev_io_init(&w->io, worker_io_cb, mnl_socket_get_fd(w->nfq.nl), EV_READ);
	w->io.data = w;
	ev_io_start(w->loop, &w->io);
	ev_async_init(&w->stop, worker_stop_cb);
	w->stop.data = w;
	ev_async_start(w->loop, &w->stop);
	/* signals belong to the main loop */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, worker_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}

void worker_stop(struct worker *w)
{
	if (!w->loop)
		return;
	ev_async_send(w->loop, &w->stop);
	pthread_join(w->thread, NULL);
	ev_loop_destroy(w->loop);
	w->loop = NULL;
}

void worker_free(struct worker *w)
{
	nlreq_close(&w->nfq);
	nlreq_close(&w->ctnl);
	free(w->rbuf);
	free(w->sbuf);
	w->rbuf = w->sbuf = NULL;
}
