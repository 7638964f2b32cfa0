/* SPDX-License-Identifier: MIT */
/*
 * Kernel helper registration over nfnetlink_cthelper, built with libmnl
 * (there is no libnetfilter_cthelper in our dependency set, by choice).
 *
 * Kernel helpers are global, not per network namespace, and a NEW for a
 * name+tuple that exists is an update (nfnl_cthelper_new() →
 * nfnl_cthelper_update()).  So registration first asks the kernel (GET)
 * what holds each name+tuple, and never silently rewrites a helper that
 * another program registered with another definition.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cthelper.h"
#include "kcheck.h"
#include "base/log.h"
#include "share.h"

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

/*
 * Status only: on an existing helper the kernel treats the private-state
 * length and the policy as optional (nfnl_cthelper_update(), Linux 6.1;
 * kmod/ does the same), so this works whatever definition the helper has.
 * On a missing one it would be a create without policy: EINVAL.
 */
static int cthelper_status_set(struct nlreq *r, const char *name, int family,
			       int proto, uint32_t status)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_NEW, 0, AF_UNSPEC);

	mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	cthelper_put_tuple(nlh, family, proto);
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
		/* a user-space helper in the way was found by GET before */
		return "the name is taken: an in-kernel helper of that name is loaded "
		       "(nf_conntrack_NAME, e.g. nf_conntrack_sip: 'modprobe -r nf_nat_sip "
		       "nf_conntrack_sip', and "
		       "register cthelperd before loading rules that name the helper), "
		       "or a user-space helper of that name has a different "
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

/* How nfct(8) spells a family, for the commands we suggest. */
static const char *nfct_fam_name(int f) { return f == AF_INET6 ? "inet6" : "inet"; }

/* ------------------------------------------------------------------ */
/* GET: what the kernel holds for a name+tuple                          */
/* ------------------------------------------------------------------ */

/* An attribute table: the type each attribute must have (UNSPEC: not
 * read, e.g. one a newer kernel added) and where the parser puts it. */
struct cthelper_attrs {
	const enum mnl_attr_data_type *types;
	unsigned int max;
	const struct nlattr **tb;
};

static const enum mnl_attr_data_type cthelper_top_types[NFCTH_MAX + 1] = {
	[NFCTH_NAME] = MNL_TYPE_NUL_STRING,
	[NFCTH_TUPLE] = MNL_TYPE_NESTED,
	[NFCTH_QUEUE_NUM] = MNL_TYPE_U32,
	[NFCTH_POLICY] = MNL_TYPE_NESTED,
	[NFCTH_PRIV_DATA_LEN] = MNL_TYPE_U32,
	[NFCTH_STATUS] = MNL_TYPE_U32,
};
static const enum mnl_attr_data_type cthelper_tuple_types[NFCTH_TUPLE_MAX + 1] = {
	[NFCTH_TUPLE_L3PROTONUM] = MNL_TYPE_U16,
	[NFCTH_TUPLE_L4PROTONUM] = MNL_TYPE_U8,
};
static const enum mnl_attr_data_type cthelper_set_types[NFCTH_POLICY_SET_MAX + 1] = {
	[NFCTH_POLICY_SET_NUM] = MNL_TYPE_U32,
	[NFCTH_POLICY_SET1] = MNL_TYPE_NESTED,
	[NFCTH_POLICY_SET2] = MNL_TYPE_NESTED,
	[NFCTH_POLICY_SET3] = MNL_TYPE_NESTED,
	[NFCTH_POLICY_SET4] = MNL_TYPE_NESTED,
};
static const enum mnl_attr_data_type cthelper_class_types[NFCTH_POLICY_MAX + 1] = {
	[NFCTH_POLICY_NAME] = MNL_TYPE_NUL_STRING,
	[NFCTH_POLICY_EXPECT_MAX] = MNL_TYPE_U32,
	[NFCTH_POLICY_EXPECT_TIMEOUT] = MNL_TYPE_U32,
};

static int cthelper_attr_cb(const struct nlattr *a, void *data)
{
	const struct cthelper_attrs *t = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type > t->max || t->types[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, t->types[type]) < 0)
		return MNL_CB_ERROR;
	t->tb[type] = a;
	return MNL_CB_OK;
}

/* Parse a nest into tb; every attribute of the table is required. */
static int cthelper_nest_parse(const struct nlattr *nest,
			       const enum mnl_attr_data_type *types,
			       unsigned int max, const struct nlattr **tb)
{
	struct cthelper_attrs t = { .types = types, .max = max, .tb = tb };

	if (mnl_attr_parse_nested(nest, cthelper_attr_cb, &t) < 0)
		return -EINVAL;
	for (unsigned int i = 1; i <= max; i++)
		if (types[i] != MNL_TYPE_UNSPEC && !tb[i])
			return -EINVAL;
	return 0;
}

/* A NUL-terminated (validated) string attribute into a name buffer. */
static int cthelper_name_get(const struct nlattr *a, char *dst)
{
	const char *s = mnl_attr_get_str(a);

	if (strnlen(s, CTH_NAME_LEN) >= CTH_NAME_LEN)
		return -EINVAL;
	strcpy(dst, s);
	return 0;
}

static int cthelper_class_parse(const struct nlattr *nest, struct cthelper_class *c)
{
	const struct nlattr *tb[NFCTH_POLICY_MAX + 1] = { 0 };

	if (cthelper_nest_parse(nest, cthelper_class_types, NFCTH_POLICY_MAX, tb) ||
	    cthelper_name_get(tb[NFCTH_POLICY_NAME], c->name))
		return -EINVAL;
	c->max = ntohl(mnl_attr_get_u32(tb[NFCTH_POLICY_EXPECT_MAX]));
	c->timeout = ntohl(mnl_attr_get_u32(tb[NFCTH_POLICY_EXPECT_TIMEOUT]));
	return 0;
}

/*
 * NFCTH_POLICY: the class count, then one nest per class.  Only the
 * classes we can hold are read; a count above that already differs from
 * any definition of ours.
 */
static int cthelper_policy_parse(const struct nlattr *nest, struct cthelper_state *st)
{
	const struct nlattr *tb[NFCTH_POLICY_SET_MAX + 1] = { 0 };
	struct cthelper_attrs t = { .types = cthelper_set_types,
				    .max = NFCTH_POLICY_SET_MAX, .tb = tb };

	if (mnl_attr_parse_nested(nest, cthelper_attr_cb, &t) < 0 ||
	    !tb[NFCTH_POLICY_SET_NUM])
		return -EINVAL;
	st->n_classes = ntohl(mnl_attr_get_u32(tb[NFCTH_POLICY_SET_NUM]));
	for (unsigned int i = 0; i < st->n_classes && i < CTH_CLASS_MAX; i++)
		if (!tb[NFCTH_POLICY_SET + i] ||
		    cthelper_class_parse(tb[NFCTH_POLICY_SET + i], &st->classes[i]))
			return -EINVAL;
	return 0;
}

int cthelper_state_parse(const struct nlmsghdr *nlh, struct cthelper_state *out)
{
	const struct nlattr *tb[NFCTH_MAX + 1] = { 0 }, *tu[NFCTH_TUPLE_MAX + 1] = { 0 };
	struct cthelper_attrs t = { .types = cthelper_top_types, .max = NFCTH_MAX, .tb = tb };

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct nfgenmsg)) ||
	    mnl_attr_parse(nlh, sizeof(struct nfgenmsg), cthelper_attr_cb, &t) < 0)
		return -EINVAL;
	for (unsigned int i = 1; i <= NFCTH_MAX; i++)
		if (!tb[i])
			return -EINVAL;
	if (cthelper_name_get(tb[NFCTH_NAME], out->name) ||
	    cthelper_nest_parse(tb[NFCTH_TUPLE], cthelper_tuple_types, NFCTH_TUPLE_MAX, tu) ||
	    cthelper_policy_parse(tb[NFCTH_POLICY], out))
		return -EINVAL;
	out->family = ntohs(mnl_attr_get_u16(tu[NFCTH_TUPLE_L3PROTONUM]));
	out->proto = mnl_attr_get_u8(tu[NFCTH_TUPLE_L4PROTONUM]);
	out->queue = ntohl(mnl_attr_get_u32(tb[NFCTH_QUEUE_NUM]));
	out->priv_len = ntohl(mnl_attr_get_u32(tb[NFCTH_PRIV_DATA_LEN]));
	out->status = ntohl(mnl_attr_get_u32(tb[NFCTH_STATUS]));
	return 0;
}

struct cthelper_get_ctx {
	const char *name;
	int family, proto;
	struct cthelper_state *out;
	bool found;
};

/* The kernel answers with the helper as a NEW message; anything else, or
 * another helper, is not what we asked for and is skipped. */
static int cthelper_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cthelper_get_ctx *g = data;
	struct cthelper_state st;

	if (nlh->nlmsg_type != (NFNL_SUBSYS_CTHELPER << 8 | NFNL_MSG_CTHELPER_NEW))
		return MNL_CB_OK;
	if (cthelper_state_parse(nlh, &st) < 0)
		return MNL_CB_ERROR;
	if (strcmp(st.name, g->name) == 0 && st.family == g->family &&
	    st.proto == g->proto) {
		*g->out = st;
		g->found = true;
	}
	return MNL_CB_OK;
}

/*
 * GET with NFCTH_NAME and NFCTH_TUPLE, not a dump: the kernel looks only
 * at user-space helpers and answers ENOENT when none matches
 * (nfnl_cthelper_get(), Linux 6.1).  Its answer is one NEW message, which
 * the in-tree module flags NLM_F_MULTI without a DONE after it, so the
 * ack we ask for is what ends the exchange.
 */
int cthelper_get(struct nlreq *r, const char *name, int family, int proto,
		 struct cthelper_state *out)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_GET, 0, AF_UNSPEC);
	struct cthelper_get_ctx g = { .name = name, .family = family,
				      .proto = proto, .out = out };
	int rc;

	mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	cthelper_put_tuple(nlh, family, proto);
	rc = nlreq_talk_cb(r, nlh, cthelper_get_cb, &g);
	if (rc)
		return rc;
	return g.found ? 0 : -ENOENT;
}

/* ------------------------------------------------------------------ */
/* Deciding what to do with a helper someone registered                 */
/* ------------------------------------------------------------------ */

/* Append one item to a ", "-separated list in buf. */
static void cthelper_diff_add(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cthelper_diff_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len) {
		memcpy(buf + n, ", ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/*
 * What the kernel cannot change in an existing helper (an update with
 * another private-state length, class count or class name is EBUSY:
 * nfnl_cthelper_update(), nfnl_cthelper_update_policy{,_one}(), 6.1).
 */
static void cthelper_diff_layout(const struct cthelper_state *old,
				 const struct instance *in, char *buf, size_t len)
{
	if (old->priv_len != in->pl->desc->priv_size)
		cthelper_diff_add(buf, len, "%u bytes of private state (we want %zu)",
				  old->priv_len, in->pl->desc->priv_size);
	if (old->n_classes != in->n_classes) {
		cthelper_diff_add(buf, len, "%u expectation classes (we want %u)",
				  old->n_classes, in->n_classes);
		return;
	}
	for (unsigned int i = 0; i < in->n_classes; i++)
		if (strcmp(old->classes[i].name, in->classes[i].name) != 0)
			cthelper_diff_add(buf, len, "class %u named '%s' (we want '%s')",
					  i, old->classes[i].name, in->classes[i].name);
}

/* What an update may change: the queue and each class's max and timeout
 * (classes only where the layout matches: otherwise they are not the
 * same classes). */
static void cthelper_diff_tunable(const struct cthelper_state *old,
				  const struct instance *in, char *buf, size_t len)
{
	if (old->queue != in->queue)
		cthelper_diff_add(buf, len, "queue %u (we want queue %u)",
				  old->queue, in->queue);
	if (old->n_classes != in->n_classes)
		return;
	for (unsigned int i = 0; i < in->n_classes; i++) {
		const struct cthelper_class *o = &old->classes[i];
		const struct cth_expect_class *c = &in->classes[i];

		if (strcmp(o->name, c->name) != 0)
			continue;
		if (o->max != c->max)
			cthelper_diff_add(buf, len, "class '%s' max %u (we want %u)",
					  c->name, o->max, c->max);
		if (o->timeout != c->timeout)
			cthelper_diff_add(buf, len, "class '%s' timeout %u s (we want %u s)",
					  c->name, o->timeout, c->timeout);
	}
}

enum cthelper_action cthelper_decide(const struct cthelper_state *old,
				     const struct instance *in, int family,
				     int proto, const char *conf, char *msg,
				     size_t msglen)
{
	char layout[512] = "", tunable[512] = "";
	bool enabled;

	msg[0] = '\0';
	if (!old)
		return CTHELPER_CREATE;
	enabled = old->status == NFCT_HELPER_STATUS_ENABLED;
	cthelper_diff_layout(old, in, layout, sizeof(layout));
	cthelper_diff_tunable(old, in, tunable, sizeof(tunable));
	if (!layout[0] && !tunable[0]) {
		/* our own leftover (kill -9), or a cthelperd in another network
		 * namespace serving the same helper: queues are per namespace,
		 * kernel helpers are not */
		snprintf(msg, msglen, "helper '%s' (%s/%s) was already registered (%s) "
			 "with this configuration, by an earlier cthelperd or one in "
			 "another network namespace: reusing it",
			 in->name, fam_name(family), pr_name(proto),
			 enabled ? "enabled" : "disabled");
		return CTHELPER_REUSE;
	}
	if (enabled || layout[0]) {
		snprintf(msg, msglen, "helper '%s' (%s/%s) is already registered%s by "
			 "another program with %s%s%s: %sstop that program or delete "
			 "it with 'nfct helper delete %s %s %s', or run 'cthelperd "
			 "--release -c %s' if it is a leftover of a crashed cthelperd "
			 "with another configuration",
			 in->name, fam_name(family), pr_name(proto),
			 enabled ? "" : " (disabled)", layout,
			 layout[0] && tunable[0] ? ", " : "", tunable,
			 enabled ? "" : "the kernel cannot change that in place; ",
			 in->name, nfct_fam_name(family), pr_name(proto), conf);
		return CTHELPER_REFUSE;
	}
	snprintf(msg, msglen, "helper '%s' (%s/%s) was already registered but "
		 "disabled, with %s: taking it over with this configuration",
		 in->name, fam_name(family), pr_name(proto), tunable);
	return CTHELPER_TAKEOVER;
}

/* ------------------------------------------------------------------ */
/* Whole runtimes                                                      */
/* ------------------------------------------------------------------ */

/* What the kernel held for each tuple of each instance before we began. */
struct cthelper_plan {
	bool exists;
	struct cthelper_state old;
};

static struct cthelper_plan *cthelper_plan_at(struct cthelper_plan *plan,
					      size_t inst,
					      const struct cthelper_tuple *t)
{
	return &plan[inst * CTHELPER_N_TUPLES + (size_t)(t - cthelper_tuples)];
}

/* GET every tuple; log every refusal.  0, -EEXIST (refused) or -errno. */
static int cthelper_plan_build(struct nlreq *r, const struct runtime *rt,
			       struct cthelper_plan *plan)
{
	size_t refused = 0;
	char msg[2048];

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			struct cthelper_plan *p = cthelper_plan_at(plan, i, t);
			int rc = cthelper_get(r, in->name, t->family, t->proto, &p->old);

			if (rc && rc != -ENOENT) {
				log_err("helper '%s' (%s/%s): cannot ask the kernel about it: %s: %s",
					in->name, fam_name(t->family), pr_name(t->proto),
					strerror(-rc), cthelper_explain(rc));
				return rc;
			}
			p->exists = rc == 0;
			if (cthelper_decide(p->exists ? &p->old : NULL, in, t->family, t->proto,
					    rt->cfg->file, msg, sizeof(msg)) == CTHELPER_REFUSE) {
				log_err("%s", msg);
				refused++;
			}
		}
	}
	if (refused) {
		log_err("%zu kernel helper(s) belong to another program: nothing registered", refused);
		return -EEXIST;
	}
	return 0;
}

static int cthelper_register_one(struct nlreq *r, const struct runtime *rt,
				 size_t i, const struct cthelper_tuple *t,
				 const struct cthelper_plan *p)
{
	const struct instance *in = &rt->inst[i];
	char msg[2048], kmod[64];
	int rc;

	switch (cthelper_decide(p->exists ? &p->old : NULL, in, t->family, t->proto,
				rt->cfg->file, msg, sizeof(msg))) {
	case CTHELPER_REUSE: log_info("%s", msg); break;
	case CTHELPER_TAKEOVER: log_notice("%s", msg); break;
	default: break;
	}
	rc = cthelper_register(r, in, t->family, t->proto, NFCT_HELPER_STATUS_ENABLED);
	if (rc == -EBUSY && kcheck_kernel_helper_loaded(in->name, kmod, sizeof(kmod))) {
		log_err("helper '%s' (%s/%s): cannot register: the kernel's own helper "
			"module %s is loaded and owns the name '%s' (the two cannot "
			"coexist): 'modprobe -r %s' (and any NAT module using it), then "
			"start cthelperd before loading rules that name '%s' (they autoload "
			"it); cthelperd needs no kernel NAT helper module",
			in->name, fam_name(t->family), pr_name(t->proto), kmod, in->name,
			kmod, in->name);
		return rc;
	}
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot register: %s: %s",
			in->name, fam_name(t->family), pr_name(t->proto),
			strerror(-rc), cthelper_explain(rc));
		return rc;
	}
	log_info("helper '%s' (%s/%s) registered: plugin %s, queue %u, %zu bytes of state",
		 in->name, fam_name(t->family), pr_name(t->proto), in->pl->desc->name,
		 in->queue, in->pl->desc->priv_size);
	return 0;
}

static struct cthelper_owned_entry *
cthelper_owned_find(const struct cthelper_owned *owned, const char *name,
		    int family, int proto)
{
	for (size_t i = 0; i < owned->n; i++) {
		const struct cthelper_owned_entry *e = &owned->h[i];

		if (e->family == family && e->proto == proto && strcmp(e->name, name) == 0)
			return (struct cthelper_owned_entry *)e;
	}
	return NULL;
}

/* Record a registered helper; -ENOSPC only after CTHELPER_OWNED_MAX
 * distinct ones (each name and tuple is recorded once). */
static int cthelper_owned_add(struct cthelper_owned *owned, const char *name,
			      int family, int proto, uint16_t queue, int lock)
{
	struct cthelper_owned_entry *e = cthelper_owned_find(owned, name, family, proto);

	if (!e) {
		if (owned->n == CTHELPER_OWNED_MAX)
			return -ENOSPC;
		e = &owned->h[owned->n++];
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->family = family;
		e->proto = proto;
		e->lock = -1;
	}
	e->queue = queue;
	if (lock >= 0) {
		if (e->lock >= 0)
			close(e->lock);
		e->lock = lock;
	}
	e->enabled = true;
	e->left = false;
	return 0;
}

/* Let e's share lock go (other daemons may hold the helper again). */
static void cthelper_share_drop(struct cthelper_owned_entry *e)
{
	if (e->lock >= 0)
		close(e->lock);
	e->lock = -1;
}

/* The share lock for a helper about to be registered: held before the
 * NEW, so that a daemon deleting it as the last one out (under the
 * exclusive lock) is done first.  -1 when not shared or already held. */
static int cthelper_share_hold(const struct cthelper_owned *owned,
			       const char *name, int family, int proto)
{
	const struct cthelper_owned_entry *e = cthelper_owned_find(owned, name, family, proto);
	int fd;

	if (!owned->share_dir[0] || (e && e->lock >= 0))
		return -1;
	fd = share_hold(owned->share_dir, name, family, proto);
	if (fd < 0)
		log_warn("helper '%s' (%s/%s): not shared with other cthelperd (%s/: %s): "
			 "a clean stop deletes it even if another namespace's daemon serves it",
			 name, fam_name(family), pr_name(proto), owned->share_dir,
			 strerror(-fd));
	return fd;
}

/*
 * On the way out of a helper (stop, or a reload that drops it): may this
 * daemon disable and delete it?  Not while another cthelperd holds its
 * share lock: disabling is global, and that daemon's namespace still
 * needs it.  When true, e->lock holds the lock exclusively (or sharing
 * is off); when false, e is marked left and its lock closed.
 */
static bool cthelper_share_last(const struct cthelper_owned *owned,
				struct cthelper_owned_entry *e)
{
	bool last = true;
	int fd;

	if (e->lock >= 0) {
		last = share_last(e->lock);
	} else if (owned->share_dir[0]) {
		int rc = share_probe(owned->share_dir, e->name, e->family, e->proto, &fd);

		if (rc == 1)
			e->lock = fd;
		last = rc != 0;
	}
	if (last)
		return true;
	cthelper_share_drop(e);
	e->left = true;
	log_notice("helper '%s' (%s/%s) left registered and enabled: another cthelperd "
		   "still serves it (from another network namespace; it holds its lock "
		   "in %s/)", e->name, fam_name(e->family), pr_name(e->proto),
		   owned->share_dir);
	return false;
}

static int cthelper_owned_record(struct cthelper_owned *owned,
				 const struct instance *in,
				 const struct cthelper_tuple *t, int lock)
{
	if (cthelper_owned_add(owned, in->name, t->family, t->proto, in->queue, lock) == 0)
		return 0;
	if (lock >= 0)
		close(lock);
	/* unreachable with sane configs; a stop would leave it enabled */
	log_err("helper '%s' (%s/%s): too many helpers registered in one run to "
		"remember: it stays registered at stop ('cthelperd --release')",
		in->name, fam_name(t->family), pr_name(t->proto));
	return -ENOSPC;
}

int cthelper_register_all(struct nlreq *r, const struct runtime *rt,
			  struct cthelper_owned *owned)
{
	struct cthelper_plan *plan = calloc(rt->n_inst ? rt->n_inst : 1,
					    CTHELPER_N_TUPLES * sizeof(*plan));
	int rc;

	if (!plan)
		return -ENOMEM;
	if (!owned->n)
		snprintf(owned->share_dir, sizeof(owned->share_dir), "%s",
			 rt->cfg->share_dir ? rt->cfg->share_dir : "");
	rc = cthelper_plan_build(r, rt, plan);
	for (size_t i = 0; i < rt->n_inst && !rc; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			int lock = cthelper_share_hold(owned, in->name, t->family, t->proto);

			rc = cthelper_register_one(r, rt, i, t, cthelper_plan_at(plan, i, t));
			if (!rc)
				rc = cthelper_owned_record(owned, in, t, lock);
			else if (lock >= 0)
				close(lock);
			if (rc)
				break;
		}
	}
	free(plan);
	return rc;
}

/*
 * A helper left ENABLED with nobody reading its queue lets packets bypass
 * the queue without conntrack confirmation, which breaks new connections:
 * so every helper is disabled first, before anything that can fail.
 */
void cthelper_disable_all(struct nlreq *r, struct cthelper_owned *owned)
{
	for (size_t i = 0; i < owned->n; i++) {
		struct cthelper_owned_entry *e = &owned->h[i];
		int rc;

		if (!e->enabled || e->left || !cthelper_share_last(owned, e))
			continue;
		rc = cthelper_status_set(r, e->name, e->family, e->proto,
					 NFCT_HELPER_STATUS_DISABLED);
		if (rc)
			log_err("helper '%s' (%s/%s): cannot disable: %s",
				e->name, fam_name(e->family), pr_name(e->proto), strerror(-rc));
		else
			e->enabled = false;
	}
}

void cthelper_delete_all(struct nlreq *r, struct cthelper_owned *owned)
{
	for (size_t i = 0; i < owned->n; i++) {
		struct cthelper_owned_entry *e = &owned->h[i];
		int rc;

		/* one a reload disabled had its lock let go: ask again */
		if (e->left || (e->lock < 0 && !cthelper_share_last(owned, e)))
			continue;
		rc = cthelper_delete(r, e->name, e->family, e->proto);
		cthelper_share_drop(e);

		if (rc == -EBUSY)
			log_notice("helper '%s' (%s/%s) left registered but disabled: "
				   "a firewall rule still references it",
				   e->name, fam_name(e->family), pr_name(e->proto));
		else if (rc && rc != -ENOENT)
			log_err("helper '%s' (%s/%s): cannot delete: %s",
				e->name, fam_name(e->family), pr_name(e->proto), strerror(-rc));
	}
	owned->n = 0;
}

/* One tuple of a reloaded instance: 0 when it may be registered. */
static int cthelper_reload_check_one(struct nlreq *r, const struct runtime *nrt,
				     const struct instance *in,
				     const struct cthelper_tuple *t,
				     const struct cthelper_owned *owned)
{
	struct cthelper_state old;
	char msg[2048], layout[512] = "";
	int rc = cthelper_get(r, in->name, t->family, t->proto, &old);

	if (rc == -ENOENT)
		return 0;
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot ask the kernel about it: %s: %s",
			in->name, fam_name(t->family), pr_name(t->proto),
			strerror(-rc), cthelper_explain(rc));
		return rc;
	}
	if (!cthelper_owned_find(owned, in->name, t->family, t->proto)) {
		if (cthelper_decide(&old, in, t->family, t->proto, nrt->cfg->file, msg,
				    sizeof(msg)) != CTHELPER_REFUSE)
			return 0;
		log_err("%s", msg);
		return -EEXIST;
	}
	cthelper_diff_layout(&old, in, layout, sizeof(layout));
	if (!layout[0])
		return 0;
	log_err("helper '%s' (%s/%s): the kernel holds it with %s: it cannot change "
		"that in place, and re-creating it would take the helper off every "
		"connection using it; restart cthelperd to apply this",
		in->name, fam_name(t->family), pr_name(t->proto), layout);
	return -EEXIST;
}

int cthelper_reload_check(struct nlreq *r, const struct runtime *nrt,
			  const struct cthelper_owned *owned)
{
	int bad = 0;

	for (size_t i = 0; i < nrt->n_inst; i++)
		for_each_tuple(&nrt->inst[i], t) {
			int rc = cthelper_reload_check_one(r, nrt, &nrt->inst[i], t, owned);

			if (rc && !bad)
				bad = rc;
		}
	return bad;
}

static bool cthelper_runtime_has(const struct runtime *rt, const char *name,
				 int family, int proto)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		if (strcmp(rt->inst[i].name, name) != 0)
			continue;
		for_each_tuple(&rt->inst[i], t)
			if (t->family == family && t->proto == proto)
				return true;
	}
	return false;
}

static bool cthelper_runtime_names(const struct runtime *rt,
				   const struct cthelper_owned_entry *e)
{
	return cthelper_runtime_has(rt, e->name, e->family, e->proto);
}

int cthelper_reload_apply(struct nlreq *r, const struct runtime *nrt,
			  struct cthelper_owned *owned)
{
	int bad = 0, rc;

	for (size_t i = 0; i < nrt->n_inst; i++) {
		const struct instance *in = &nrt->inst[i];

		for_each_tuple(in, t) {
			int lock = cthelper_share_hold(owned, in->name, t->family, t->proto);

			rc = cthelper_register(r, in, t->family, t->proto,
					       NFCT_HELPER_STATUS_ENABLED);
			if (rc) {
				log_err("helper '%s' (%s/%s): cannot register: %s: %s",
					in->name, fam_name(t->family), pr_name(t->proto),
					strerror(-rc), cthelper_explain(rc));
				if (lock >= 0)
					close(lock);
			} else {
				rc = cthelper_owned_record(owned, in, t, lock);
			}
			if (rc && !bad)
				bad = rc;
		}
	}
	for (size_t i = 0; i < owned->n; i++) {
		struct cthelper_owned_entry *e = &owned->h[i];

		if (!e->enabled || e->left || cthelper_runtime_names(nrt, e))
			continue;
		if (!cthelper_share_last(owned, e)) {
			e->enabled = false;
			continue;
		}
		rc = cthelper_status_set(r, e->name, e->family, e->proto,
					 NFCT_HELPER_STATUS_DISABLED);
		/* other daemons may hold it again; the stop asks once more */
		cthelper_share_drop(e);
		if (rc) {
			log_err("helper '%s' (%s/%s): removed from the configuration but "
				"cannot disable it: %s", e->name, fam_name(e->family),
				pr_name(e->proto), strerror(-rc));
			if (!bad)
				bad = rc;
			continue;
		}
		e->enabled = false;
		log_notice("helper '%s' (%s/%s) removed from the configuration: disabled "
			   "(deleted at stop: deleting a kernel helper drops the packets "
			   "queued on every queue)", e->name, fam_name(e->family),
			   pr_name(e->proto));
	}
	return bad;
}

bool cthelper_ready(struct nlreq *r, const struct runtime *rt, char *why,
		    size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			const char *fam = fam_name(t->family), *pr = pr_name(t->proto);
			struct cthelper_state st;
			int rc = cthelper_get(r, in->name, t->family, t->proto, &st);

			if (rc == -ENOENT) {
				snprintf(why, len, "helper '%s' (%s/%s) is not registered in the kernel",
					 in->name, fam, pr);
				return false;
			}
			if (rc) {
				snprintf(why, len, "cannot ask the kernel about helper '%s' (%s/%s): %s",
					 in->name, fam, pr, strerror(-rc));
				return false;
			}
			if (st.status != NFCT_HELPER_STATUS_ENABLED) {
				snprintf(why, len, "helper '%s' (%s/%s) is registered but disabled",
					 in->name, fam, pr);
				return false;
			}
			if (st.queue != in->queue) {
				snprintf(why, len, "helper '%s' (%s/%s) sends to queue %u, not to "
					 "this daemon's queue %u", in->name, fam, pr, st.queue,
					 in->queue);
				return false;
			}
			n++;
		}
	}
	snprintf(why, len, "%zu kernel helper(s) registered and enabled on this "
		 "daemon's queues", n);
	return n > 0;
}

/* --release for one tuple: 0 when it is gone (or was never there). */
static int cthelper_release_tuple(struct nlreq *r, const char *name, int family,
				  int proto)
{
	const char *fam = fam_name(family), *pr = pr_name(proto);
	struct cthelper_state old;
	int rc = cthelper_get(r, name, family, proto, &old), drc;

	if (rc == -ENOENT) {
		log_notice("helper '%s' (%s/%s): not registered", name, fam, pr);
		return 0;
	}
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot ask the kernel about it: %s: %s",
			name, fam, pr, strerror(-rc), cthelper_explain(rc));
		return rc;
	}
	/* disabled first: if the delete fails, a disabled helper is harmless */
	rc = cthelper_status_set(r, name, family, proto, NFCT_HELPER_STATUS_DISABLED);
	drc = cthelper_delete(r, name, family, proto);
	if (drc == 0 || drc == -ENOENT) {
		log_notice("helper '%s' (%s/%s) on queue %u, was %s: %sdeleted",
			   name, fam, pr, old.queue,
			   old.status == NFCT_HELPER_STATUS_ENABLED ? "enabled" : "disabled",
			   rc ? "" : "disabled and ");
		return 0;
	}
	if (rc) {
		log_err("helper '%s' (%s/%s): cannot disable (%s) nor delete (%s): it is "
			"left as it was (%s)", name, fam, pr, strerror(-rc), strerror(-drc),
			old.status == NFCT_HELPER_STATUS_ENABLED ? "ENABLED: new connections "
			"on its port break while nobody serves queue" : "disabled");
		return drc;
	}
	/* The point of --release is that new connections pass again, which a
	 * disabled helper achieves: like a clean stop, a rule that still
	 * names the helper is not a failure. */
	if (drc == -EBUSY) {
		log_notice("helper '%s' (%s/%s) on queue %u: disabled; not deleted while a "
			   "firewall rule references it, which is safe (connections pass "
			   "without the helper); remove the rule and run --release again "
			   "to delete it", name, fam, pr, old.queue);
		return 0;
	}
	log_err("helper '%s' (%s/%s): disabled but not deleted: %s",
			name, fam, pr, strerror(-drc));
	return drc;
}

/* A helper that another running cthelperd serves (ExecStopPost after a
 * crash of its peer in another namespace) is not this release's to undo;
 * the lock is held exclusively while it is taken out.  queue >= 0: only
 * while the kernel still sends the helper there (a record's entry). */
static int cthelper_release_one(struct nlreq *r, const struct runtime *rt,
				const char *name, int family, int proto, long queue)
{
	struct cthelper_state st;
	int fd = -1, rc;

	if (rt->cfg->share_dir &&
	    share_probe(rt->cfg->share_dir, name, family, proto, &fd) == 0) {
		log_notice("helper '%s' (%s/%s): another cthelperd serves it (it holds its "
			   "lock in %s/): left as it is", name, fam_name(family),
			   pr_name(proto), rt->cfg->share_dir);
		return 0;
	}
	if (queue >= 0 && cthelper_get(r, name, family, proto, &st) == 0 &&
	    st.queue != (uint32_t)queue) {
		log_notice("helper '%s' (%s/%s): recorded on queue %ld but the kernel "
			   "sends it to queue %u: registered by someone else since, left "
			   "as it is", name, fam_name(family), pr_name(proto), queue,
			   st.queue);
		rc = 0;
	} else {
		rc = cthelper_release_tuple(r, name, family, proto);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int cthelper_release_all(struct nlreq *r, const struct runtime *rt,
			 const struct record *rec)
{
	int bad = 0, rc;

	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t) {
			rc = cthelper_release_one(r, rt, in->name, t->family, t->proto, -1);
			if (rc && !bad)
				bad = rc;
		}
	}
	for (size_t i = 0; rec && i < rec->n; i++) {
		const struct record_entry *e = &rec->e[i];

		if (cthelper_runtime_has(rt, e->name, e->family, e->proto))
			continue;
		log_notice("helper '%s' (%s/%s): not in %s but recorded as registered "
			   "by a cthelperd run with it", e->name, fam_name(e->family),
			   pr_name(e->proto), rt->cfg->file);
		rc = cthelper_release_one(r, rt, e->name, e->family, e->proto, e->queue);
		if (rc && !bad)
			bad = rc;
	}
	return bad;
}

int cthelper_record_fill(const struct cthelper_owned *owned,
			 const struct runtime *rt, struct record *out)
{
	int rc;

	for (size_t i = 0; i < owned->n; i++) {
		const struct cthelper_owned_entry *e = &owned->h[i];

		if (!e->left &&
		    (rc = record_add(out, e->name, e->family, e->proto, e->queue)) < 0)
			return rc;
	}
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		for_each_tuple(in, t)
			if ((rc = record_add(out, in->name, t->family, t->proto, in->queue)) < 0)
				return rc;
	}
	return 0;
}
