/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <string.h>
#include <sys/socket.h>

#include "kernel/expect.h"
#include "nlfake.h"
#include "kernel/nlreq.h"
#include "host/packet.h"

struct nlfake nlfake;

void nlfake_reset(void)
{
	memset(&nlfake, 0, sizeof(nlfake));
	nlfake.next_id = 1;
}

void nlfake_master_add_nat(const struct cth_tuple *orig, const struct cth_tuple *reply)
{
	if (nlfake.n_master < NLFAKE_MASTER_MAX) {
		nlfake.master_reply[nlfake.n_master] = *reply;
		nlfake.master[nlfake.n_master++] = *orig;
	}
}

void nlfake_master_add(const struct cth_tuple *orig)
{
	struct cth_tuple reply = *orig;

	reply.src = orig->dst;
	reply.dst = orig->src;
	reply.sport = orig->dport;
	reply.dport = orig->sport;
	nlfake_master_add_nat(orig, &reply);
}

static bool nlfake_master_known(const struct cth_tuple *t)
{
	for (unsigned int i = 0; i < nlfake.n_master; i++)
		if (pkt_tuple_eq(&nlfake.master[i], t))
			return true;
	return false;
}

unsigned int nlfake_count(const struct cth_tuple *master)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < nlfake.n; i++)
		n += pkt_tuple_eq(&nlfake.e[i].master, master);
	return n;
}

static struct nlfake_exp *nlfake_find(const struct cth_tuple *t)
{
	for (unsigned int i = 0; i < nlfake.n; i++)
		if (pkt_tuple_eq(&nlfake.e[i].t, t))
			return &nlfake.e[i];
	return NULL;
}

static void nlfake_del(struct nlfake_exp *x)
{
	unsigned int i = (unsigned int)(x - nlfake.e);

	if (i != --nlfake.n)
		nlfake.e[i] = nlfake.e[nlfake.n];
}

int nlreq_open(struct nlreq *r)
{
	memset(r, 0, sizeof(*r));
	return 0;
}

void nlreq_close(struct nlreq *r)
{
	(void)r;
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
	return nlh;
}

/* One expectation as the kernel would dump it (CTA_EXPECT_ID and
 * CTA_EXPECT_CLASS are not written by nfexp_nlmsg_build()). */
static int nlfake_answer(const struct nlfake_exp *x, mnl_cb_t cb, void *data)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP,
					     IPCTNL_MSG_EXP_NEW, NLM_F_MULTI, x->t.family);
	struct nf_expect *exp = nfexp_new();
	struct nf_conntrack *t = nfct_new(), *m = nfct_new();
	int rc = 0;

	expect_ct_set_tuple(t, &x->t);
	expect_ct_set_tuple(m, &x->master);
	nfexp_set_attr(exp, ATTR_EXP_EXPECTED, t);
	nfexp_set_attr(exp, ATTR_EXP_MASK, t);
	nfexp_set_attr(exp, ATTR_EXP_MASTER, m);
	if (nfexp_nlmsg_build(nlh, exp) < 0)
		rc = -EINVAL;
	mnl_attr_put_u32(nlh, CTA_EXPECT_ID, htonl(x->id));
	mnl_attr_put_u32(nlh, CTA_EXPECT_CLASS, htonl(x->class));
	nfexp_destroy(exp);
	nfct_destroy(t);
	nfct_destroy(m);
	if (!rc && cb && cb(nlh, data) < 0)
		rc = -EBADMSG;
	return rc;
}

/* A tuple of the request: one parsed alone (a dump's master) gets no
 * family from the parser, the request's nfgenmsg has it.  (Read field by
 * field: nfct_clone() of a conntrack inside a parsed nf_expect reads
 * uninitialised fields.) */
static void nlfake_get_tuple(const struct nlmsghdr *nlh, const struct nf_expect *exp,
			     int attr, struct cth_tuple *t)
{
	const struct nfgenmsg *nfg = mnl_nlmsg_get_payload(nlh);
	const struct nf_conntrack *ct;

	memset(t, 0, sizeof(*t));
	if (!nfexp_attr_is_set(exp, attr) || !(ct = nfexp_get_attr(exp, attr)))
		return;
	t->family = nfct_attr_is_set(ct, ATTR_ORIG_L3PROTO) ?
		    nfct_get_attr_u8(ct, ATTR_ORIG_L3PROTO) : nfg->nfgen_family;
	t->proto = nfct_get_attr_u8(ct, ATTR_ORIG_L4PROTO);
	t->sport = ntohs(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_SRC));
	t->dport = ntohs(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_DST));
	if (t->family == AF_INET) {
		t->src.ip = nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC);
		t->dst.ip = nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_DST);
	} else if (nfct_attr_is_set(ct, ATTR_ORIG_IPV6_SRC) &&
		   nfct_attr_is_set(ct, ATTR_ORIG_IPV6_DST)) {
		memcpy(t->src.raw, nfct_get_attr(ct, ATTR_ORIG_IPV6_SRC), 16);
		memcpy(t->dst.raw, nfct_get_attr(ct, ATTR_ORIG_IPV6_DST), 16);
	}
}

static int nlfake_dump(const struct cth_tuple *master, mnl_cb_t cb, void *data)
{
	nlfake.dumps++;

	if (!nlfake_master_known(master))
		return -ENOENT;
	for (unsigned int i = 0; i < nlfake.n; i++)
		if (pkt_tuple_eq(&nlfake.e[i].master, master) && nlfake_answer(&nlfake.e[i], cb, data) < 0)
			return -EBADMSG;
	return 0;
}

static int nlfake_new(const struct nlmsghdr *nlh, const struct nf_expect *exp,
		      const struct cth_tuple *t, const struct cth_tuple *master)
{
	struct nlfake_exp *x;

	nlfake.news++;
	if (!nlfake_master_known(master))
		return -ENOENT;
	if ((x = nlfake_find(t)))
		return (nlh->nlmsg_flags & NLM_F_EXCL) ? -EEXIST : 0;
	if (nlfake.n == NLFAKE_EXP_MAX)
		return -EMFILE;
	x = &nlfake.e[nlfake.n++];
	x->t = *t;
	x->master = *master;
	x->class = nfexp_attr_is_set(exp, ATTR_EXP_CLASS) ? nfexp_get_attr_u32(exp, ATTR_EXP_CLASS) : 0;
	x->zone = nfexp_attr_is_set(exp, ATTR_EXP_ZONE) ? nfexp_get_attr_u16(exp, ATTR_EXP_ZONE) : 0;
	x->id = nlfake.next_id++;
	return 0;
}

/* No CTA_EXPECT_ID, or x's (libnetfilter_conntrack has no attribute
 * for it: read with mnl). */
static bool nlfake_id_is(const struct nlmsghdr *nlh, uint32_t id)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg))
		if (mnl_attr_get_type(a) == CTA_EXPECT_ID)
			return mnl_attr_validate(a, MNL_TYPE_U32) == 0 &&
			       ntohl(mnl_attr_get_u32(a)) == id;
	return true;
}

static int nlfake_exp(const struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	struct nf_expect *exp = nfexp_new();
	struct cth_tuple t, master;
	struct nlfake_exp *x;
	int rc = -EOPNOTSUPP;

	if (nfexp_nlmsg_parse(nlh, exp) < 0) {
		nfexp_destroy(exp);
		return -EINVAL;
	}
	nlfake_get_tuple(nlh, exp, ATTR_EXP_EXPECTED, &t);
	nlfake_get_tuple(nlh, exp, ATTR_EXP_MASTER, &master);
	switch (nlh->nlmsg_type & 0xff) {
	case IPCTNL_MSG_EXP_GET:
		if (nlh->nlmsg_flags & NLM_F_DUMP) {
			rc = nlfake_dump(&master, cb, data);
			break;
		}
		nlfake.gets++;
		x = nlfake_find(&t);
		rc = x ? nlfake_answer(x, cb, data) : -ENOENT;
		break;
	case IPCTNL_MSG_EXP_NEW:
		rc = nlfake_new(nlh, exp, &t, &master);
		break;
	case IPCTNL_MSG_EXP_DELETE:
		nlfake.dels++;
		x = nlfake_find(&t);
		if (!x || !nlfake_id_is(nlh, x->id))
			rc = -ENOENT;
		else
			nlfake_del(x), rc = 0;
		break;
	}
	nfexp_destroy(exp);
	return rc;
}

/* IPCTNL_MSG_CT_GET of a connection by its original tuple: both tuples. */
static int nlfake_ct_get(const struct nlmsghdr *req, mnl_cb_t cb, void *data)
{
	struct nf_conntrack *ct = nfct_new();
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh;
	struct cth_tuple orig;
	int rc = -ENOENT;

	nlfake.gets++;
	if (nfct_nlmsg_parse(req, ct) < 0) {
		nfct_destroy(ct);
		return -EINVAL;
	}
	expect_ct_get_tuple(ct, false, &orig);
	nfct_destroy(ct);
	for (unsigned int i = 0; i < nlfake.n_master; i++) {
		const struct cth_tuple *r = &nlfake.master_reply[i];

		if (!pkt_tuple_eq(&nlfake.master[i], &orig))
			continue;
		ct = nfct_new();
		expect_ct_set_tuple(ct, &orig);
		nfct_set_attr_u8(ct, ATTR_REPL_L3PROTO, orig.family);
		nfct_set_attr_u8(ct, ATTR_REPL_L4PROTO, orig.proto);
		if (orig.family == AF_INET) {
			nfct_set_attr_u32(ct, ATTR_REPL_IPV4_SRC, r->src.ip);
			nfct_set_attr_u32(ct, ATTR_REPL_IPV4_DST, r->dst.ip);
		} else {
			nfct_set_attr(ct, ATTR_REPL_IPV6_SRC, r->src.raw);
			nfct_set_attr(ct, ATTR_REPL_IPV6_DST, r->dst.raw);
		}
		nfct_set_attr_u16(ct, ATTR_REPL_PORT_SRC, htons(r->sport));
		nfct_set_attr_u16(ct, ATTR_REPL_PORT_DST, htons(r->dport));
		nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_NEW, 0, orig.family);
		rc = nfct_nlmsg_build(nlh, ct) < 0 ? -EINVAL : 0;
		nfct_destroy(ct);
		if (!rc && cb && cb(nlh, data) < 0)
			rc = -EBADMSG;
		break;
	}
	return rc;
}

/* IPCTNL_MSG_CT_NEW on an existing connection: an empty helper detaches
 * it, and its expectations go with the helper. */
static int nlfake_ct(const struct nlmsghdr *nlh)
{
	struct nf_conntrack *ct = nfct_new();
	struct cth_tuple orig;
	const char *helper;
	int rc = 0;

	nlfake.ct_updates++;
	if (nfct_nlmsg_parse(nlh, ct) < 0) {
		nfct_destroy(ct);
		return -EINVAL;
	}
	expect_ct_get_tuple(ct, false, &orig);
	helper = nfct_attr_is_set(ct, ATTR_HELPER_NAME) ? nfct_get_attr(ct, ATTR_HELPER_NAME) : NULL;
	if (!nlfake_master_known(&orig)) {
		rc = -ENOENT;
	} else if (helper && !helper[0]) {
		nlfake.detaches++;
		for (unsigned int i = nlfake.n; i-- > 0; )
			if (pkt_tuple_eq(&nlfake.e[i].master, &orig))
				nlfake_del(&nlfake.e[i]);
	}
	nfct_destroy(ct);
	return rc;
}

int nlreq_talk_cb(struct nlreq *r, struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	uint8_t subsys = (uint8_t)(nlh->nlmsg_type >> 8);

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++r->seq;
	nlfake.requests++;
	if (nlfake.fail_errno)
		return -nlfake.fail_errno;
	if (subsys == NFNL_SUBSYS_CTNETLINK_EXP)
		return nlfake_exp(nlh, cb, data);
	if (subsys == NFNL_SUBSYS_CTNETLINK && (nlh->nlmsg_type & 0xff) == IPCTNL_MSG_CT_NEW)
		return nlfake_ct(nlh);
	if (subsys == NFNL_SUBSYS_CTNETLINK && (nlh->nlmsg_type & 0xff) == IPCTNL_MSG_CT_GET)
		return nlfake_ct_get(nlh, cb, data);
	return -EOPNOTSUPP;
}

int nlreq_talk(struct nlreq *r, struct nlmsghdr *nlh)
{
	return nlreq_talk_cb(r, nlh, NULL, NULL);
}
