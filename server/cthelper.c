/* SPDX-License-Identifier: MIT */
/*
 * Kernel helper registration over nfnetlink_cthelper, built with libmnl
 * (there is no libnetfilter_cthelper in our dependency set, by choice).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cthelper.h"
#include "log.h"

static void cthelper_put_tuple(struct nlmsghdr *nlh, int family, int proto)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFCTH_TUPLE);

	mnl_attr_put_u16(nlh, NFCTH_TUPLE_L3PROTONUM, htons((uint16_t)family));
	mnl_attr_put_u8(nlh, NFCTH_TUPLE_L4PROTONUM, (uint8_t)proto);
	mnl_attr_nest_end(nlh, nest);
}

static void cthelper_put_policy(struct nlmsghdr *nlh, const struct instance *in)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFCTH_POLICY);

	mnl_attr_put_u32(nlh, NFCTH_POLICY_SET_NUM, htonl(in->n_classes));
	for (unsigned i = 0; i < in->n_classes; i++) {
		struct nlattr *set = mnl_attr_nest_start(nlh, NFCTH_POLICY_SET + i);

		mnl_attr_put_strz(nlh, NFCTH_POLICY_NAME, in->classes[i].name);
		mnl_attr_put_u32(nlh, NFCTH_POLICY_EXPECT_MAX, htonl(in->classes[i].max));
		mnl_attr_put_u32(nlh, NFCTH_POLICY_EXPECT_TIMEOUT, htonl(in->classes[i].timeout));
		mnl_attr_nest_end(nlh, set);
	}
	mnl_attr_nest_end(nlh, nest);
}

int cthelper_register(struct nlreq *r, const struct instance *in, int family,
		      int proto, uint32_t status)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_NEW, NLM_F_CREATE, AF_UNSPEC);

	mnl_attr_put_strz(nlh, NFCTH_NAME, in->name);
	cthelper_put_tuple(nlh, family, proto);
	cthelper_put_policy(nlh, in);
	mnl_attr_put_u32(nlh, NFCTH_PRIV_DATA_LEN, htonl((uint32_t)in->pl->desc->priv_size));
	mnl_attr_put_u32(nlh, NFCTH_QUEUE_NUM, htonl(in->queue));
	mnl_attr_put_u32(nlh, NFCTH_STATUS, htonl(status));
	return nlreq_talk(r, nlh);
}

int cthelper_delete(struct nlreq *r, const char *name, int family, int proto)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_DEL, 0, AF_UNSPEC);

	mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	cthelper_put_tuple(nlh, family, proto);
	return nlreq_talk(r, nlh);
}

const char *cthelper_explain(int err)
{
	switch (-err) {
	case EBUSY:
		return "the name is taken: an in-kernel helper of that name is loaded "
		       "(e.g. nf_conntrack_ftp: 'modprobe -r nf_conntrack_ftp', and "
		       "register cthelperd before loading rules that name the helper), "
		       "or a user-space helper of that name exists with a different "
		       "private-state size or class list (delete it with 'nfct helper delete')";
	case EPERM:
		return "permission denied: registering helpers needs CAP_NET_ADMIN in "
		       "the initial network namespace (helpers are global)";
	case EOPNOTSUPP:
	case ENOENT:
	case EPROTONOSUPPORT:
		return "the kernel has no nfnetlink_cthelper: 'modprobe nfnetlink_cthelper', "
		       "or build and load kmod/ (see cthelperd --check-kernel)";
	case EINVAL:
		return "the kernel rejected the helper definition";
	default:
		return strerror(-err);
	}
}

/* The (family, protocol) kernel helpers an instance may stand for. */
static const struct cthelper_tuple {
	int family, proto;
	unsigned int fam_bit, proto_bit;
} cthelper_tuples[] = {
	{ AF_INET, IPPROTO_TCP, CTH_FAMILY_IPV4, CTH_PROTO_TCP },
	{ AF_INET, IPPROTO_UDP, CTH_FAMILY_IPV4, CTH_PROTO_UDP },
	{ AF_INET6, IPPROTO_TCP, CTH_FAMILY_IPV6, CTH_PROTO_TCP },
	{ AF_INET6, IPPROTO_UDP, CTH_FAMILY_IPV6, CTH_PROTO_UDP },
};

#define for_each_tuple(in, t)                                                 \
	for (const struct cthelper_tuple *t = cthelper_tuples;                \
	     t < cthelper_tuples + sizeof(cthelper_tuples) / sizeof(*t); t++) \
		if (((in)->families & t->fam_bit) && ((in)->protocols & t->proto_bit))

static const char *fam_name(int f) { return f == AF_INET6 ? "ipv6" : "ipv4"; }
static const char *pr_name(int p) { return p == IPPROTO_UDP ? "udp" : "tcp"; }

int cthelper_register_all(struct nlreq *r, const struct runtime *rt)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			int rc = cthelper_register(r, in, t->family, t->proto, NFCT_HELPER_STATUS_ENABLED);

			if (rc) {
				log_err("helper '%s' (%s/%s): cannot register: %s: %s",
					in->name, fam_name(t->family), pr_name(t->proto),
					strerror(-rc), cthelper_explain(rc));
				return rc;
			}
			log_info("helper '%s' (%s/%s) registered: plugin %s, queue %u, %zu bytes of state",
				 in->name, fam_name(t->family), pr_name(t->proto), in->pl->desc->name,
				 in->queue, in->pl->desc->priv_size);
		}
	}
	return 0;
}

/*
 * A helper left ENABLED with nobody reading its queue lets packets bypass
 * the queue without conntrack confirmation, which breaks new connections:
 * so every helper is disabled first, before anything that can fail.
 */
void cthelper_disable_all(struct nlreq *r, const struct runtime *rt)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			int rc = cthelper_register(r, in, t->family, t->proto, NFCT_HELPER_STATUS_DISABLED);

			if (rc)
				log_err("helper '%s' (%s/%s): cannot disable: %s",
					in->name, fam_name(t->family), pr_name(t->proto), strerror(-rc));
		}
	}
}

void cthelper_delete_all(struct nlreq *r, const struct runtime *rt)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			int rc = cthelper_delete(r, in->name, t->family, t->proto);

			if (rc == -EBUSY)
				log_notice("helper '%s' (%s/%s) left registered but disabled: "
					   "a firewall rule still references it",
					   in->name, fam_name(t->family), pr_name(t->proto));
			else if (rc)
				log_err("helper '%s' (%s/%s): cannot delete: %s",
					in->name, fam_name(t->family), pr_name(t->proto), strerror(-rc));
		}
	}
}
