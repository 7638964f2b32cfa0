/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "expect.h"

static void expect_ct_set(struct nf_conntrack *ct, int family, int proto,
			  const union cth_addr *src, const union cth_addr *dst,
			  uint16_t sport, uint16_t dport);
static void expect_mask_set(struct nf_conntrack *mask, const struct cth_expect *e);
static void expect_prefix_mask(union cth_addr *m, unsigned int prefix);
static unsigned int expect_kernel_flags(unsigned int f);
static int expect_put_nat(struct nlmsghdr *nlh, const struct cth_expect *e);
static int expect_put_tuple(struct nlmsghdr *nlh, uint16_t type,
			    const struct nf_conntrack *ct);
static bool expect_ct_is(const struct nf_conntrack *ct, const struct cth_tuple *t);

struct nf_expect *expect_build(const struct cth_expect *e,
			       const struct cth_packet *pkt,
			       const char *helper, bool with_master)
{
	struct nf_conntrack *exp_ct = nfct_new(), *mask = nfct_new();
	struct nf_conntrack *master = NULL;
	struct nf_expect *exp = nfexp_new();
	union cth_addr zero = { 0 };

	if (!exp || !exp_ct || !mask)
		goto fail;
	expect_ct_set(exp_ct, e->family, e->proto,
		      (e->flags & CTH_EXPECT_ANY_SRC) ? &zero : &e->src, &e->dst,
		      e->sport, e->dport);
	expect_mask_set(mask, e);
	nfexp_set_attr(exp, ATTR_EXP_EXPECTED, exp_ct);
	nfexp_set_attr(exp, ATTR_EXP_MASK, mask);
	if (with_master) {
		const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];

		master = nfct_new();
		if (!master)
			goto fail;
		expect_ct_set(master, t->family, t->proto, &t->src, &t->dst,
			      t->sport, t->dport);
		nfexp_set_attr(exp, ATTR_EXP_MASTER, master);
	}
	/* CTA_EXPECT_HELP_NAME is the helper of the *expected* connection
	 * (Linux 6.1 init_conntrack(): exp->helper becomes its helper): with
	 * it, every packet of the data connection would be queued to us.
	 * The kernel's own helpers leave it unset; plugins opt in. */
	if (e->flags & CTH_EXPECT_HELPER)
		nfexp_set_attr(exp, ATTR_EXP_HELPER_NAME, helper);
	/* ctnetlink looks the master up in this zone (NFQA_EXP takes the
	 * queued packet's conntrack, zone included) */
	if (with_master)
		nfexp_set_attr_u16(exp, ATTR_EXP_ZONE, pkt->zone);
	nfexp_set_attr_u32(exp, ATTR_EXP_FLAGS, expect_kernel_flags(e->flags));
	/* only EXP_NEW without NLM_F_EXCL on an existing one applies it */
	if (e->timeout)
		nfexp_set_attr_u32(exp, ATTR_EXP_TIMEOUT, e->timeout);
	/* nfexp_set_attr copies the conntrack objects */
	nfct_destroy(exp_ct);
	nfct_destroy(mask);
	if (master)
		nfct_destroy(master);
	return exp;
fail:
	if (exp)
		nfexp_destroy(exp);
	if (exp_ct)
		nfct_destroy(exp_ct);
	if (mask)
		nfct_destroy(mask);
	if (master)
		nfct_destroy(master);
	return NULL;
}

/* libnetfilter_conntrack 1.0.9's nfexp_nlmsg_build() writes tuple, master,
 * mask, timeout, flags and helper name, but not class, NAT or function. */
int expect_put(struct nlmsghdr *nlh, const struct cth_expect *e,
	       const struct cth_packet *pkt, const char *helper,
	       bool with_master)
{
	struct nf_expect *exp = expect_build(e, pkt, helper, with_master);
	int rc = 0;

	if (!exp)
		return -ENOMEM;
	if (nfexp_nlmsg_build(nlh, exp) < 0)
		rc = -EINVAL;
	nfexp_destroy(exp);
	if (rc)
		return rc;
	mnl_attr_put_u32(nlh, CTA_EXPECT_CLASS, htonl(e->class));
	if ((e->flags & CTH_EXPECT_NAT) && (rc = expect_put_nat(nlh, e)) < 0)
		return rc;
	if (e->fn)
		mnl_attr_put_strz(nlh, CTA_EXPECT_FN, e->fn);
	return 0;
}

int expect_master_cb(const struct nlmsghdr *nlh, void *data)
{
	struct expect_owner *o = data;
	struct nf_expect *exp = nfexp_new();
	const struct nf_conntrack *master;

	if (!exp)
		return MNL_CB_ERROR;
	if (nfexp_nlmsg_parse(nlh, exp) == 0 &&
	    nfexp_attr_is_set(exp, ATTR_EXP_MASTER) &&
	    (master = nfexp_get_attr(exp, ATTR_EXP_MASTER)) != NULL &&
	    expect_ct_is(master, o->master) &&
	    (!nfexp_attr_is_set(exp, ATTR_EXP_CLASS) ||
	     nfexp_get_attr_u32(exp, ATTR_EXP_CLASS) == o->class))
		o->ours = true;
	nfexp_destroy(exp);
	return MNL_CB_OK;
}

int expect_put_master(struct nlmsghdr *nlh, const struct cth_tuple *orig,
		      uint16_t zone)
{
	struct nf_conntrack *ct = nfct_new();
	int rc;

	if (!ct)
		return -ENOMEM;
	expect_ct_set_tuple(ct, orig);
	rc = expect_put_tuple(nlh, CTA_EXPECT_MASTER, ct);
	nfct_destroy(ct);
	mnl_attr_put_u16(nlh, CTA_EXPECT_ZONE, htons(zone));
	return rc;
}

void expect_ct_set_tuple(struct nf_conntrack *ct, const struct cth_tuple *t)
{
	expect_ct_set(ct, t->family, t->proto, &t->src, &t->dst, t->sport, t->dport);
}

void expect_ct_get_tuple(const struct nf_conntrack *ct, bool reply,
			 struct cth_tuple *t)
{
	memset(t, 0, sizeof(*t));
	t->family = nfct_get_attr_u8(ct, ATTR_ORIG_L3PROTO);
	t->proto = nfct_get_attr_u8(ct, ATTR_ORIG_L4PROTO);
	t->sport = ntohs(nfct_get_attr_u16(ct, reply ? ATTR_REPL_PORT_SRC : ATTR_ORIG_PORT_SRC));
	t->dport = ntohs(nfct_get_attr_u16(ct, reply ? ATTR_REPL_PORT_DST : ATTR_ORIG_PORT_DST));
	if (t->family == AF_INET) {
		t->src.ip = nfct_get_attr_u32(ct, reply ? ATTR_REPL_IPV4_SRC : ATTR_ORIG_IPV4_SRC);
		t->dst.ip = nfct_get_attr_u32(ct, reply ? ATTR_REPL_IPV4_DST : ATTR_ORIG_IPV4_DST);
		return;
	}
	{
		const void *s = nfct_get_attr(ct, reply ? ATTR_REPL_IPV6_SRC : ATTR_ORIG_IPV6_SRC);
		const void *d = nfct_get_attr(ct, reply ? ATTR_REPL_IPV6_DST : ATTR_ORIG_IPV6_DST);

		if (s)
			memcpy(t->src.raw, s, 16);
		if (d)
			memcpy(t->dst.raw, d, 16);
	}
}

int expect_ct_put_conn(struct nlmsghdr *nlh, const struct cth_tuple *orig,
		       uint16_t zone, const char *helper)
{
	struct nf_conntrack *ct = nfct_new();
	int rc;

	if (!ct)
		return -ENOMEM;
	expect_ct_set_tuple(ct, orig);
	nfct_set_attr_u16(ct, ATTR_ZONE, zone);
	if (helper)
		nfct_set_attr(ct, ATTR_HELPER_NAME, helper);
	rc = nfct_nlmsg_build(nlh, ct);
	nfct_destroy(ct);
	return rc < 0 ? -EINVAL : 0;
}

/* One expectation of a master dump: keep what deleting it needs. */
int expect_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct expect_list *l = data;
	const struct nlattr *a, *tuple = NULL, *id = NULL;
	uint32_t class = 0;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		switch (mnl_attr_get_type(a)) {
		case CTA_EXPECT_TUPLE:
			tuple = a;
			break;
		case CTA_EXPECT_ID:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				id = a;
			break;
		case CTA_EXPECT_CLASS:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				class = ntohl(mnl_attr_get_u32(a));
			break;
		}
	}
	if (!tuple || mnl_attr_get_payload_len(tuple) > sizeof(l->e[0].tuple) ||
	    (l->class >= 0 && class != (uint32_t)l->class))
		return MNL_CB_OK;
	if (l->n == EXPECT_LIST_MAX) {
		l->truncated = true;
		return MNL_CB_OK;
	}
	l->e[l->n].tuple_len = (uint16_t)mnl_attr_get_payload_len(tuple);
	memcpy(l->e[l->n].tuple, mnl_attr_get_payload(tuple), l->e[l->n].tuple_len);
	l->e[l->n].has_id = id != NULL;
	l->e[l->n].id = id ? mnl_attr_get_u32(id) : 0;
	l->e[l->n].class = class;
	l->n++;
	return MNL_CB_OK;
}

void expect_list_put_del(struct nlmsghdr *nlh, const struct expect_list *l,
			 unsigned int i, uint16_t zone)
{
	mnl_attr_put(nlh, CTA_EXPECT_TUPLE | NLA_F_NESTED, l->e[i].tuple_len, l->e[i].tuple);
	if (l->e[i].has_id)
		mnl_attr_put_u32(nlh, CTA_EXPECT_ID, l->e[i].id);   /* as dumped: network order */
	mnl_attr_put_u16(nlh, CTA_EXPECT_ZONE, htons(zone));
}

static void expect_ct_set(struct nf_conntrack *ct, int family, int proto,
			  const union cth_addr *src, const union cth_addr *dst,
			  uint16_t sport, uint16_t dport)
{
	nfct_set_attr_u8(ct, ATTR_ORIG_L3PROTO, (uint8_t)family);
	nfct_set_attr_u8(ct, ATTR_ORIG_L4PROTO, (uint8_t)proto);
	if (family == AF_INET) {
		nfct_set_attr_u32(ct, ATTR_ORIG_IPV4_SRC, src->ip);
		nfct_set_attr_u32(ct, ATTR_ORIG_IPV4_DST, dst->ip);
	} else {
		nfct_set_attr(ct, ATTR_ORIG_IPV6_SRC, src->raw);
		nfct_set_attr(ct, ATTR_ORIG_IPV6_DST, dst->raw);
	}
	nfct_set_attr_u16(ct, ATTR_ORIG_PORT_SRC, htons(sport));
	nfct_set_attr_u16(ct, ATTR_ORIG_PORT_DST, htons(dport));
}

static void expect_mask_set(struct nf_conntrack *mask, const struct cth_expect *e)
{
	union cth_addr ones, src;

	memset(&ones, 0xff, sizeof(ones));
	memset(&src, 0, sizeof(src));
	if (e->flags & CTH_EXPECT_SRC_PREFIX)
		expect_prefix_mask(&src, e->src_prefix);
	else if (!(e->flags & CTH_EXPECT_ANY_SRC))
		src = ones;
	/* only the source half of a mask is used by the kernel (Linux 6.1
	 * ctnetlink_alloc_expect() copies mask.src alone), any prefix of it,
	 * measured v4 and v6; the destination must be present for the
	 * tuple to parse */
	expect_ct_set(mask, e->family, e->proto, &src, &ones, e->sport ? 0xffff : 0, 0xffff);
}

int expect_mask_bits(int family, const union cth_addr *m)
{
	size_t len = family == AF_INET6 ? 16 : 4;
	unsigned int bits = 0;
	size_t i = 0;

	for (; i < len && m->raw[i] == 0xff; i++)
		bits += 8;
	if (i < len) {
		uint8_t b = m->raw[i++];

		for (; b & 0x80; b = (uint8_t)(b << 1))
			bits++;
		if (b)
			return -1;
	}
	for (; i < len; i++)
		if (m->raw[i])
			return -1;
	return (int)bits;
}

/* The first bits of m set: a network mask of prefix bits (the host
 * checked it against the family, host/call.c). */
static void expect_prefix_mask(union cth_addr *m, unsigned int prefix)
{
	memset(m, 0, sizeof(*m));
	if (prefix > 8 * sizeof(m->raw))
		prefix = 8 * sizeof(m->raw);
	memset(m->raw, 0xff, prefix / 8);
	if (prefix % 8)
		m->raw[prefix / 8] = (uint8_t)(0xffu << (8 - prefix % 8));
}

static unsigned int expect_kernel_flags(unsigned int f)
{
	return ((f & CTH_EXPECT_PERMANENT) ? NF_CT_EXPECT_PERMANENT : 0) |
	       ((f & CTH_EXPECT_INACTIVE) ? NF_CT_EXPECT_INACTIVE : 0);
}

/* The NAT tuple's source is where the kernel maps the expected connection
 * (nf_nat_follow_master takes the port from it). */
static int expect_put_nat(struct nlmsghdr *nlh, const struct cth_expect *e)
{
	struct nf_conntrack *nat = nfct_new();
	union cth_addr zero = { 0 };
	struct nlattr *nest;
	int rc;

	if (!nat)
		return -ENOMEM;
	expect_ct_set(nat, e->family, e->proto, &e->nat_addr, &zero,
		      e->nat_port, 0);
	nest = mnl_attr_nest_start(nlh, CTA_EXPECT_NAT);
	mnl_attr_put_u32(nlh, CTA_EXPECT_NAT_DIR, htonl((uint32_t)e->nat_dir));
	rc = expect_put_tuple(nlh, CTA_EXPECT_NAT_TUPLE, nat);
	mnl_attr_nest_end(nlh, nest);
	nfct_destroy(nat);
	return rc;
}

/*
 * Encode a tuple under attribute type: libnetfilter_conntrack knows how to
 * write a tuple but only as an expectation's CTA_EXPECT_TUPLE, so write it
 * that way into a scratch message and move its body.
 */
static int expect_put_tuple(struct nlmsghdr *nlh, uint16_t type,
			    const struct nf_conntrack *ct)
{
	char scratch[512];
	struct nlmsghdr *tmp = mnl_nlmsg_put_header(scratch);
	struct nf_expect *exp = nfexp_new();
	const struct nlattr *a;
	int rc = -EINVAL;

	if (!exp)
		return -ENOMEM;
	nfexp_set_attr(exp, ATTR_EXP_EXPECTED, ct);
	nfexp_set_attr(exp, ATTR_EXP_MASK, ct);
	if (nfexp_nlmsg_build(tmp, exp) == 0) {
		mnl_attr_for_each(a, tmp, 0) {
			if (mnl_attr_get_type(a) != CTA_EXPECT_TUPLE)
				continue;
			mnl_attr_put(nlh, type | NLA_F_NESTED,
				     mnl_attr_get_payload_len(a),
				     mnl_attr_get_payload(a));
			rc = 0;
			break;
		}
	}
	nfexp_destroy(exp);
	return rc;
}

static bool expect_ct_is(const struct nf_conntrack *ct, const struct cth_tuple *t)
{
	if (!nfct_attr_is_set(ct, ATTR_ORIG_L3PROTO) ||
	    nfct_get_attr_u8(ct, ATTR_ORIG_L3PROTO) != t->family ||
	    nfct_get_attr_u8(ct, ATTR_ORIG_L4PROTO) != t->proto ||
	    ntohs(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_SRC)) != t->sport ||
	    ntohs(nfct_get_attr_u16(ct, ATTR_ORIG_PORT_DST)) != t->dport)
		return false;
	if (t->family == AF_INET)
		return nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC) == t->src.ip &&
		       nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_DST) == t->dst.ip;
	return nfct_attr_is_set(ct, ATTR_ORIG_IPV6_SRC) &&
	       nfct_attr_is_set(ct, ATTR_ORIG_IPV6_DST) &&
	       memcmp(nfct_get_attr(ct, ATTR_ORIG_IPV6_SRC), t->src.raw, 16) == 0 &&
	       memcmp(nfct_get_attr(ct, ATTR_ORIG_IPV6_DST), t->dst.raw, 16) == 0;
}
