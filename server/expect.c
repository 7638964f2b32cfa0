/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "expect.h"

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
	union cth_addr ones, zero;

	memset(&ones, 0xff, sizeof(ones));
	memset(&zero, 0, sizeof(zero));
	/* only the source half of a mask is used by the kernel; the
	 * destination must be present for the tuple to parse */
	expect_ct_set(mask, e->family, e->proto,
		      (e->flags & CTH_EXPECT_ANY_SRC) ? &zero : &ones, &ones,
		      e->sport ? 0xffff : 0, 0xffff);
}

static unsigned int expect_kernel_flags(unsigned int f)
{
	return ((f & CTH_EXPECT_PERMANENT) ? NF_CT_EXPECT_PERMANENT : 0) |
	       ((f & CTH_EXPECT_INACTIVE) ? NF_CT_EXPECT_INACTIVE : 0);
}

struct nf_expect *expect_build(const struct cth_expect *e,
			       const struct cth_packet *pkt,
			       const char *helper, bool with_master)
{
	struct nf_conntrack *exp_ct = nfct_new(), *mask = nfct_new();
	struct nf_conntrack *master = NULL, *nat = NULL;
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
	nfexp_set_attr(exp, ATTR_EXP_HELPER_NAME, helper);
	nfexp_set_attr_u32(exp, ATTR_EXP_CLASS, e->class);
	nfexp_set_attr_u32(exp, ATTR_EXP_FLAGS, expect_kernel_flags(e->flags));
	if (e->flags & CTH_EXPECT_NAT) {
		/* the kernel keeps the NAT tuple's source as the address and
		 * port the expected connection is mapped to */
		nat = nfct_new();
		if (!nat)
			goto fail;
		expect_ct_set(nat, e->family, e->proto, &e->nat_addr, &zero,
			      e->nat_port, 0);
		nfexp_set_attr(exp, ATTR_EXP_NAT_TUPLE, nat);
		nfexp_set_attr_u32(exp, ATTR_EXP_NAT_DIR, e->nat_dir);
	}
	if (e->fn)
		nfexp_set_attr(exp, ATTR_EXP_FN, e->fn);
	/* nfexp_set_attr copies the conntrack objects */
	nfct_destroy(exp_ct);
	nfct_destroy(mask);
	if (master)
		nfct_destroy(master);
	if (nat)
		nfct_destroy(nat);
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
