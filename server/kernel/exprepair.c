// SPDX-License-Identifier: MIT
/*
 * Re-create, with their NAT, expectations that another program created
 * for our helpers' connections without it (issue 18, docs/ha.md).
 *
 * Why: on a failover peer, conntrackd 1.4.7 commits the expectations it
 * received, but without their NAT part and function (measured in
 * tests/ha: the NAT is in the sync message, not in the kernel's
 * expectation after the commit; libnetfilter_conntrack 1.0.9's
 * nfexp_nlmsg_build() writes neither, see expect.c).  An expected
 * connection to a NATed master's public address then ends at the router
 * itself: an incoming call to a phone that registered through the old
 * primary, an active FTP data connection announced there.
 *
 * What can be derived: the kernel's nat-follow-master maps an expected
 * connection to the address its master's own NAT maps (6.1
 * nf_nat_follow_master(): the master's tuple in the other direction), and
 * the port to the expectation's saved port.  So an expectation for the
 * address a master's SNAT made (its reply destination) is mapped back to
 * the master's original source, and one for the address a DNAT hid (its
 * original destination) to the master's reply source, each keeping the
 * port: the port our plugins choose first when they rewrite.  Nothing
 * else is touched: an expectation that has a NAT, whose helper is not
 * ours, that is for any other address, or that this daemon created
 * itself (the event's netlink port id is one of ours, portids.h): those
 * are without NAT on purpose, and giving them the master's NAT would
 * open a port forward (issue 27).  A repair also passes the host's rule
 * for every expectation (guard.h).
 *
 * How: NFNLGRP_CONNTRACK_EXP_NEW events in the main loop; the master is
 * looked up (IPCTNL_MSG_CT_GET) for its tuples; the expectation is
 * deleted and created again with CTA_EXPECT_NAT and nat-follow-master
 * (ctnetlink cannot change an expectation's NAT in place:
 * ctnetlink_change_expect() applies only the timeout).  Our own
 * re-creation comes back as an event with its NAT, and is left alone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

#include "expect.h"
#include "exprepair.h"
#include "runtime/guard.h"
#include "base/log.h"
#include "portids.h"
#include "runtime/stats.h"

struct exprepair_master {
	bool found;
	struct cth_tuple orig, reply;
};

static void exprepair_read_cb(struct ev_loop *loop, ev_io *io, int revents);
static bool exprepair_has(const struct nlmsghdr *nlh, uint16_t type);
static void exprepair_count_ours(struct exprepair *x, const struct nf_expect *exp);
static void exprepair_one(struct exprepair *x, const struct nf_expect *exp);
static int exprepair_master_get(struct exprepair *x, const struct cth_tuple *orig,
				uint16_t zone, struct exprepair_master *m);
static int exprepair_master_cb(const struct nlmsghdr *nlh, void *data);
static void exprepair_expect(const struct nf_expect *exp, const struct cth_tuple *t,
			     const struct exprepair_nat *nat, struct cth_expect *e);
static int exprepair_send(struct exprepair *x, uint8_t type, uint16_t flags,
			  const struct cth_expect *e, const struct cth_packet *master);
static bool exprepair_addr_eq(const union cth_addr *a, const union cth_addr *b,
			      int family);

int exprepair_open(struct exprepair *x, struct ev_loop *loop, struct nlreq *req,
		   struct runtime *_Atomic *rtp, struct stats_block *stats)
{
	unsigned int group = NFNLGRP_CONNTRACK_EXP_NEW;
	int rc;

	x->req = req;
	x->rtp = rtp;
	x->stats = stats;
	x->nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!x->nl || mnl_socket_bind(x->nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_setsockopt(x->nl, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0) {
		rc = -errno;
		log_warn("expectation events: %s: expectations a failover peer commits "
			 "without their NAT are not repaired", strerror(-rc));
		if (x->nl)
			mnl_socket_close(x->nl);
		x->nl = NULL;
		return rc;
	}
	ev_io_init(&x->io, exprepair_read_cb, mnl_socket_get_fd(x->nl), EV_READ);
	x->io.data = x;
	ev_io_start(loop, &x->io);
	return 0;
}

void exprepair_close(struct exprepair *x, struct ev_loop *loop)
{
	if (!x->nl)
		return;
	ev_io_stop(loop, &x->io);
	mnl_socket_close(x->nl);
	x->nl = NULL;
}

/*
 * Only what another program created is repaired: an expectation this
 * daemon created without NAT was meant so (sip_direct_media = no makes
 * one to whatever address the SDP names), and giving it the master's NAT
 * would forward any outside host to the inside one (issue 27).  Ours are
 * told apart by the event's port id: our request sockets' (portids.h)
 * for ctnetlink, 0 for a verdict's NFQA_EXP (measured on 6.1, see
 * docs/architecture.md; a queue socket's is taken as ours too).  Port id
 * 0 is also the kernel's own helpers', whose masters are never ours; a
 * failover peer's conntrackd commits under its own socket's.
 */
int exprepair_event(const struct nlmsghdr *nlh, void *data)
{
	struct exprepair *x = data;
	enum portid_kind kind = portids_kind(nlh->nlmsg_pid);
	bool verdict = kind == PORTID_QUEUE || nlh->nlmsg_pid == 0;
	struct nf_expect *exp;

	if (NFNL_MSG_TYPE(nlh->nlmsg_type) != IPCTNL_MSG_EXP_NEW ||
	    kind == PORTID_REQUEST ||
	    (!verdict && exprepair_has(nlh, CTA_EXPECT_NAT)))
		return MNL_CB_OK;
	if (!(exp = nfexp_new()))
		return MNL_CB_OK;
	if (nfexp_nlmsg_parse(nlh, exp) == 0) {
		if (verdict)
			exprepair_count_ours(x, exp);
		else
			exprepair_one(x, exp);
	}
	nfexp_destroy(exp);
	return MNL_CB_OK;
}

bool exprepair_derive(const struct cth_tuple *orig, const struct cth_tuple *reply,
		      const struct cth_tuple *expected, struct exprepair_nat *nat)
{
	int f = orig->family;

	if (expected->family != f)
		return false;
	/* SNAT: the reply goes to the address the master was mapped to */
	if (!exprepair_addr_eq(&orig->src, &reply->dst, f) &&
	    exprepair_addr_eq(&expected->dst, &reply->dst, f)) {
		nat->dir = CTH_DIR_REPLY;
		nat->addr = orig->src;
		nat->port = expected->dport;
		return true;
	}
	/* DNAT: the master was addressed to an address the server is not */
	if (!exprepair_addr_eq(&orig->dst, &reply->src, f) &&
	    exprepair_addr_eq(&expected->dst, &orig->dst, f)) {
		nat->dir = CTH_DIR_ORIGINAL;
		nat->addr = reply->src;
		nat->port = expected->dport;
		return true;
	}
	return false;
}

static void exprepair_read_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct exprepair *x = io->data;
	char buf[32768];   /* several events per read; not a VLA */
	ssize_t n;

	(void)loop;
	(void)revents;
	n = mnl_socket_recvfrom(x->nl, buf, sizeof(buf));
	if (n < 0) {
		/* ENOBUFS: events lost in a burst; later ones still come */
		if (errno != EAGAIN && errno != EINTR)
			log_rl_warn("expectation events: %s", strerror(errno));
		return;
	}
	mnl_cb_run(buf, (size_t)n, 0, 0, exprepair_event, x);
}

/* Does the message carry attribute type at its top level? */
static bool exprepair_has(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == type)
			return true;
	return false;
}

/*
 * One of our expectations sent with a verdict: its result was not known
 * when it was sent (counted "sent" then); this event says it was created.
 * Those created over ctnetlink were counted from their ack.
 */
static void exprepair_count_ours(struct exprepair *x, const struct nf_expect *exp)
{
	const struct runtime *rt = atomic_load(x->rtp);
	const struct nf_conntrack *mct = nfexp_get_attr(exp, ATTR_EXP_MASTER);
	const char *helper = nfexp_get_attr(exp, ATTR_EXP_HELPER_NAME);
	const struct instance *in;
	struct cth_tuple t;

	if (!mct || !helper || !x->stats)
		return;
	expect_ct_get_tuple(mct, false, &t);
	/* a kernel helper's (port id 0 too) has a master that is not ours */
	in = runtime_find(rt, helper, t.family, t.proto);
	if (in)
		stats_add(&x->stats->h[in->slot][STATS_H_EXPECT_CREATED], 1);
}

static void exprepair_one(struct exprepair *x, const struct nf_expect *exp)
{
	const struct runtime *rt = atomic_load(x->rtp);
	const struct nf_conntrack *mct = nfexp_get_attr(exp, ATTR_EXP_MASTER);
	const struct nf_conntrack *ect = nfexp_get_attr(exp, ATTR_EXP_EXPECTED);
	const char *helper = nfexp_get_attr(exp, ATTR_EXP_HELPER_NAME);
	const struct instance *in;
	struct cth_packet master = { 0 };
	struct exprepair_master m;
	struct exprepair_nat nat;
	struct cth_tuple t;
	struct cth_expect e;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	int rc;

	if (!mct || !ect || !helper)
		return;
	expect_ct_get_tuple(mct, false, &master.tuple[CTH_DIR_ORIGINAL]);
	expect_ct_get_tuple(ect, false, &t);
	if (!runtime_find(rt, helper, master.tuple[0].family, master.tuple[0].proto))
		return;
	master.zone = nfexp_attr_is_set(exp, ATTR_EXP_ZONE) ?
		      nfexp_get_attr_u16(exp, ATTR_EXP_ZONE) : 0;
	if (exprepair_master_get(x, &master.tuple[0], master.zone, &m) < 0 ||
	    !exprepair_derive(&m.orig, &m.reply, &t, &nat))
		return;
	exprepair_expect(exp, &t, &nat, &e);
	/* the host's rule for every expectation holds for a repair too */
	if ((in = runtime_find(rt, helper, t.family, master.tuple[0].proto)) &&
	    guard_expect_check(&in->guard, &m.orig, &m.reply, &e) < 0) {
		if (x->stats)
			stats_add(&x->stats->h[in->slot][STATS_H_EXPECT_REFUSED], 1);
		return;
	}
	/* delete by tuple, then create: no in-place change of NAT */
	rc = exprepair_send(x, IPCTNL_MSG_EXP_DELETE, 0, &e, &master);
	if (rc == 0 || rc == -ENOENT)
		rc = exprepair_send(x, IPCTNL_MSG_EXP_NEW, NLM_F_CREATE | NLM_F_EXCL,
				    &e, &master);
	inet_ntop(t.family, t.dst.raw, a, sizeof(a));
	inet_ntop(t.family, nat.addr.raw, b, sizeof(b));
	if (rc) {
		log_rl_warn("%s: expectation for %s:%u came without its NAT and could not be "
			    "re-created: %s", helper, a, t.dport, strerror(-rc));
		return;
	}
	log_rl(LOG_L_NOTICE, "%s: expectation for %s:%u came without its NAT (conntrackd's "
	       "commit on a failover peer loses it): re-created mapping to %s:%u, "
	       "as its master's NAT does", helper, a, t.dport, b, nat.port);
}

static int exprepair_master_get(struct exprepair *x, const struct cth_tuple *orig,
				uint16_t zone, struct exprepair_master *m)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_GET, 0, orig->family);
	if ((rc = expect_ct_put_conn(nlh, orig, zone, NULL)) < 0)
		return rc;
	m->found = false;
	rc = nlreq_talk_cb(x->req, nlh, exprepair_master_cb, m);
	return rc < 0 ? rc : m->found ? 0 : -ENOENT;
}

static int exprepair_master_cb(const struct nlmsghdr *nlh, void *data)
{
	struct exprepair_master *m = data;
	struct nf_conntrack *ct = nfct_new();

	if (!ct)
		return MNL_CB_ERROR;
	if (nfct_nlmsg_parse(nlh, ct) == 0 && nfct_attr_is_set(ct, ATTR_ORIG_L3PROTO)) {
		expect_ct_get_tuple(ct, false, &m->orig);
		expect_ct_get_tuple(ct, true, &m->reply);
		m->found = true;
	}
	nfct_destroy(ct);
	return MNL_CB_OK;
}

/* The expectation as the host's own creation path takes it. */
static void exprepair_expect(const struct nf_expect *exp, const struct cth_tuple *t,
			     const struct exprepair_nat *nat, struct cth_expect *e)
{
	const struct nf_conntrack *mask = nfexp_get_attr(exp, ATTR_EXP_MASK);
	struct cth_tuple m = { 0 };
	uint32_t kf = nfexp_attr_is_set(exp, ATTR_EXP_FLAGS) ?
		      nfexp_get_attr_u32(exp, ATTR_EXP_FLAGS) : 0;
	union cth_addr zero = { 0 };
	int bits;

	memset(e, 0, sizeof(*e));
	if (mask)
		expect_ct_get_tuple(mask, false, &m);
	e->class = nfexp_attr_is_set(exp, ATTR_EXP_CLASS) ?
		   nfexp_get_attr_u32(exp, ATTR_EXP_CLASS) : 0;
	e->family = t->family;
	e->proto = t->proto;
	e->src = t->src;
	e->dst = t->dst;
	e->sport = m.sport ? t->sport : 0;
	e->dport = t->dport;
	e->flags = CTH_EXPECT_NAT |
		   ((kf & NF_CT_EXPECT_PERMANENT) ? CTH_EXPECT_PERMANENT : 0) |
		   ((kf & NF_CT_EXPECT_INACTIVE) ? CTH_EXPECT_INACTIVE : 0) |
		   (exprepair_addr_eq(&m.src, &zero, t->family) ? CTH_EXPECT_ANY_SRC : 0);
	/* a source network (CTH_EXPECT_SRC_PREFIX) keeps its mask */
	bits = expect_mask_bits(t->family, &m.src);
	if (bits > 0 && bits < (t->family == AF_INET6 ? 128 : 32)) {
		e->flags |= CTH_EXPECT_SRC_PREFIX;
		e->src_prefix = (uint8_t)bits;
	}
	e->nat_dir = nat->dir;
	e->nat_addr = nat->addr;
	e->nat_port = nat->port;
	e->fn = "nat-follow-master";
}

static int exprepair_send(struct exprepair *x, uint8_t type, uint16_t flags,
			  const struct cth_expect *e, const struct cth_packet *master)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	int rc;

	nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, type, flags, e->family);
	if ((rc = expect_put(nlh, e, master, NULL, true)) < 0)
		return rc;
	return nlreq_talk(x->req, nlh);
}

static bool exprepair_addr_eq(const union cth_addr *a, const union cth_addr *b,
			      int family)
{
	return memcmp(a->raw, b->raw, family == AF_INET ? 4 : 16) == 0;
}
