/* SPDX-License-Identifier: MIT */
#ifndef CTH_EXPECT_H
#define CTH_EXPECT_H

#include <stdbool.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>

#include <cthelperd/plugin.h>

/*
 * Turn a plugin's expectation into a libnetfilter_conntrack object.  The
 * master tuple is only needed when the expectation goes over ctnetlink
 * (the NFQA_EXP path takes the master from the queued packet).
 */
struct nf_expect *expect_build(const struct cth_expect *e,
			       const struct cth_packet *pkt,
			       const char *helper, bool with_master);

/*
 * Append the CTA_EXPECT_* attributes of an expectation to nlh: inside an
 * NFQA_EXP nest, or as the body of an IPCTNL_MSG_EXP_NEW.  Returns 0 or a
 * negative errno.
 */
int expect_put(struct nlmsghdr *nlh, const struct cth_expect *e,
	       const struct cth_packet *pkt, const char *helper,
	       bool with_master);

/* The prefix length of a source mask of family (CTA_EXPECT_MASK, as
 * expect_build() writes it for CTH_EXPECT_SRC_PREFIX), or -1 when its
 * set bits are not one leading run. */
int expect_mask_bits(int family, const union cth_addr *m);

/*
 * An IPCTNL_MSG_EXP_GET answer (expect_master_cb as the nlreq callback):
 * does the kernel's expectation belong to this master and class?
 */
struct expect_owner {
	const struct cth_tuple *master;   /* original direction */
	unsigned int class;
	bool ours;
};
int expect_master_cb(const struct nlmsghdr *nlh, void *data);

/* CTA_EXPECT_MASTER (the master's original tuple) and CTA_EXPECT_ZONE:
 * the body of a dump of one master's expectations. */
int expect_put_master(struct nlmsghdr *nlh, const struct cth_tuple *orig,
		      uint16_t zone);
/* Set a conntrack object's original tuple (ATTR_ORIG_*). */
void expect_ct_set_tuple(struct nf_conntrack *ct, const struct cth_tuple *t);
/* Read one direction of a conntrack object (ATTR_ORIG_*, or ATTR_REPL_*
 * when reply): the family and protocol are the original's. */
void expect_ct_get_tuple(const struct nf_conntrack *ct, bool reply,
			 struct cth_tuple *t);
/* The body of a ctnetlink message about one existing connection (orig,
 * zone): a GET, or an IPCTNL_MSG_CT_NEW update that sets its helper
 * (an empty name detaches it) or, with helper NULL, changes nothing.
 * 0 or a negative errno. */
int expect_ct_put_conn(struct nlmsghdr *nlh, const struct cth_tuple *orig,
		       uint16_t zone, const char *helper);

/* What a master dump found (expect_list_cb as the nlreq callback), enough
 * to delete each by tuple and id. */
#define EXPECT_LIST_MAX 64u
struct expect_list {
	int class;                    /* only this class, or -1 for all */
	unsigned int n;
	bool truncated;               /* more than EXPECT_LIST_MAX */
	struct {
		uint8_t tuple[256];   /* CTA_EXPECT_TUPLE's payload */
		uint16_t tuple_len;
		bool has_id;
		uint32_t id;          /* network order */
		uint32_t class;
	} e[EXPECT_LIST_MAX];
};
int expect_list_cb(const struct nlmsghdr *nlh, void *data);
/* The body of an IPCTNL_MSG_EXP_DELETE for entry i. */
void expect_list_put_del(struct nlmsghdr *nlh, const struct expect_list *l,
			 unsigned int i, uint16_t zone);

#endif
