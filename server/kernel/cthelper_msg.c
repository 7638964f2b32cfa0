/* SPDX-License-Identifier: MIT */
/*
 * The nfnetlink_cthelper wire, built and read with libmnl (there is no
 * libnetfilter_cthelper in our dependency set, by choice): NEW, status,
 * DEL and GET requests, and the parser of a GET's answer.  No decision
 * is taken here: what to send is cthelper_decide.c's and cthelper.c's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include "cthelper_msg.h"
#include "../../kmod/cthd_match.h"

/* An attribute table: the type each attribute must have (UNSPEC: not
 * read, e.g. one a newer kernel added) and where the parser puts it. */
struct cthelper_msg_attrs {
	const enum mnl_attr_data_type *types;
	unsigned int max;
	const struct nlattr **tb;
};

static const enum mnl_attr_data_type cthelper_msg_top_types[NFCTH_MAX + 1] = {
	[NFCTH_NAME] = MNL_TYPE_NUL_STRING,
	[NFCTH_TUPLE] = MNL_TYPE_NESTED,
	[NFCTH_QUEUE_NUM] = MNL_TYPE_U32,
	[NFCTH_POLICY] = MNL_TYPE_NESTED,
	[NFCTH_PRIV_DATA_LEN] = MNL_TYPE_U32,
	[NFCTH_STATUS] = MNL_TYPE_U32,
};
static const enum mnl_attr_data_type cthelper_msg_tuple_types[NFCTH_TUPLE_MAX + 1] = {
	[NFCTH_TUPLE_L3PROTONUM] = MNL_TYPE_U16,
	[NFCTH_TUPLE_L4PROTONUM] = MNL_TYPE_U8,
};
static const enum mnl_attr_data_type cthelper_msg_set_types[NFCTH_POLICY_SET_MAX + 1] = {
	[NFCTH_POLICY_SET_NUM] = MNL_TYPE_U32,
	[NFCTH_POLICY_SET1] = MNL_TYPE_NESTED,
	[NFCTH_POLICY_SET2] = MNL_TYPE_NESTED,
	[NFCTH_POLICY_SET3] = MNL_TYPE_NESTED,
	[NFCTH_POLICY_SET4] = MNL_TYPE_NESTED,
};
static const enum mnl_attr_data_type cthelper_msg_class_types[NFCTH_POLICY_MAX + 1] = {
	[NFCTH_POLICY_NAME] = MNL_TYPE_NUL_STRING,
	[NFCTH_POLICY_EXPECT_MAX] = MNL_TYPE_U32,
	[NFCTH_POLICY_EXPECT_TIMEOUT] = MNL_TYPE_U32,
};

/* What a GET looks for, and what it found. */
struct cthelper_msg_get_ctx {
	const char *name;
	int family, proto;
	struct cthelper_state *out;
	bool found;
};

static void cthelper_msg_put_tuple(struct nlmsghdr *nlh, int family, int proto);
static void cthelper_msg_put_policy(struct nlmsghdr *nlh, const struct instance *in);
static void cthelper_msg_put_match(struct nlmsghdr *nlh, const struct cth_plugin_desc *d);
static int cthelper_msg_get_cb(const struct nlmsghdr *nlh, void *data);
static int cthelper_msg_attr_cb(const struct nlattr *a, void *data);
static int cthelper_msg_nest_parse(const struct nlattr *nest,
				   const enum mnl_attr_data_type *types,
				   unsigned int max, const struct nlattr **tb);
static int cthelper_msg_name_get(const struct nlattr *a, char *dst);
static int cthelper_msg_policy_parse(const struct nlattr *nest,
				     struct cthelper_state *st);
static int cthelper_msg_class_parse(const struct nlattr *nest,
				    struct cthelper_class *c);

int cthelper_msg_new(struct nlreq *r, const struct instance *in, int family,
		     int proto, uint32_t status)
{
	char buf[NLREQ_BUF];

	return nlreq_talk(r, cthelper_msg_new_put(buf, in, family, proto, status));
}

struct nlmsghdr *cthelper_msg_new_put(char *buf, const struct instance *in, int family,
				      int proto, uint32_t status)
{
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_NEW, NLM_F_CREATE, AF_UNSPEC);

	mnl_attr_put_strz(nlh, NFCTH_NAME, in->name);
	cthelper_msg_put_tuple(nlh, family, proto);
	cthelper_msg_put_policy(nlh, in);
	mnl_attr_put_u32(nlh, NFCTH_PRIV_DATA_LEN, htonl((uint32_t)in->pl->desc->priv_size));
	mnl_attr_put_u32(nlh, NFCTH_QUEUE_NUM, htonl(in->queue));
	mnl_attr_put_u32(nlh, NFCTH_STATUS, htonl(status));
	cthelper_msg_put_match(nlh, in->pl->desc);
	return nlh;
}

/*
 * Status only: on an existing helper the kernel treats the private-state
 * length and the policy as optional (nfnl_cthelper_update(), Linux 6.1;
 * kmod/ does the same), so this works whatever definition the helper has.
 * On a missing one it would be a create without policy: EINVAL.
 */
int cthelper_msg_status(struct nlreq *r, const char *name, int family,
			int proto, uint32_t status)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_NEW, 0, AF_UNSPEC);

	mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	cthelper_msg_put_tuple(nlh, family, proto);
	mnl_attr_put_u32(nlh, NFCTH_STATUS, htonl(status));
	return nlreq_talk(r, nlh);
}

int cthelper_msg_del(struct nlreq *r, const char *name, int family, int proto)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_DEL, 0, AF_UNSPEC);

	mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	cthelper_msg_put_tuple(nlh, family, proto);
	return nlreq_talk(r, nlh);
}

/*
 * GET with NFCTH_NAME and NFCTH_TUPLE, not a dump: the kernel looks only
 * at user-space helpers and answers ENOENT when none matches
 * (nfnl_cthelper_get(), Linux 6.1).  Its answer is one NEW message, which
 * the in-tree module flags NLM_F_MULTI without a DONE after it, so the
 * ack we ask for is what ends the exchange.
 */
int cthelper_msg_get(struct nlreq *r, const char *name, int family, int proto,
		     struct cthelper_state *out)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTHELPER,
					     NFNL_MSG_CTHELPER_GET, 0, AF_UNSPEC);
	struct cthelper_msg_get_ctx g = { .name = name, .family = family,
					  .proto = proto, .out = out };
	int rc;

	mnl_attr_put_strz(nlh, NFCTH_NAME, name);
	cthelper_msg_put_tuple(nlh, family, proto);
	rc = nlreq_talk_cb(r, nlh, cthelper_msg_get_cb, &g);
	if (rc)
		return rc;
	return g.found ? 0 : -ENOENT;
}

int cthelper_msg_parse(const struct nlmsghdr *nlh, struct cthelper_state *out)
{
	const struct nlattr *tb[NFCTH_MAX + 1] = { 0 }, *tu[NFCTH_TUPLE_MAX + 1] = { 0 };
	struct cthelper_msg_attrs t = { .types = cthelper_msg_top_types,
					.max = NFCTH_MAX, .tb = tb };

	memset(out, 0, sizeof(*out));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct nfgenmsg)) ||
	    mnl_attr_parse(nlh, sizeof(struct nfgenmsg), cthelper_msg_attr_cb, &t) < 0)
		return -EINVAL;
	for (unsigned int i = 1; i <= NFCTH_MAX; i++)
		if (!tb[i])
			return -EINVAL;
	if (cthelper_msg_name_get(tb[NFCTH_NAME], out->name) ||
	    cthelper_msg_nest_parse(tb[NFCTH_TUPLE], cthelper_msg_tuple_types,
				    NFCTH_TUPLE_MAX, tu) ||
	    cthelper_msg_policy_parse(tb[NFCTH_POLICY], out))
		return -EINVAL;
	out->family = ntohs(mnl_attr_get_u16(tu[NFCTH_TUPLE_L3PROTONUM]));
	out->proto = mnl_attr_get_u8(tu[NFCTH_TUPLE_L4PROTONUM]);
	out->queue = ntohl(mnl_attr_get_u32(tb[NFCTH_QUEUE_NUM]));
	out->priv_len = ntohl(mnl_attr_get_u32(tb[NFCTH_PRIV_DATA_LEN]));
	out->status = ntohl(mnl_attr_get_u32(tb[NFCTH_STATUS]));
	return 0;
}

const char *cthelper_msg_explain(int err)
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

/* ---- requests ---- */

static void cthelper_msg_put_tuple(struct nlmsghdr *nlh, int family, int proto)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, NFCTH_TUPLE);

	mnl_attr_put_u16(nlh, NFCTH_TUPLE_L3PROTONUM, htons((uint16_t)family));
	mnl_attr_put_u8(nlh, NFCTH_TUPLE_L4PROTONUM, (uint8_t)proto);
	mnl_attr_nest_end(nlh, nest);
}

static void cthelper_msg_put_policy(struct nlmsghdr *nlh, const struct instance *in)
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

/*
 * The plugin's match rules, carried as they are (the daemon knows no
 * protocol): kmod/'s own attribute, always sent with a full definition so
 * that a reload whose plugin dropped its rules clears them (an empty nest:
 * queue everything).  The in-tree nfnetlink_cthelper ignores a type above
 * its NFCTH_MAX (docs/architecture.md, "The filter attribute").
 */
static void cthelper_msg_put_match(struct nlmsghdr *nlh, const struct cth_plugin_desc *d)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, CTHD_NFCTH_MATCH);

	if (d->match_flags)
		mnl_attr_put_u32(nlh, CTHD_MATCH_A_FLAGS, htonl(d->match_flags));
	for (unsigned int i = 0; d->match && i < d->n_match && i < CTH_MATCH_MAX; i++) {
		const struct cth_match *m = &d->match[i];
		struct nlattr *rule = mnl_attr_nest_start(nlh, CTHD_MATCH_A_RULE);

		mnl_attr_put(nlh, CTHD_RULE_A_PREFIX, strnlen(m->prefix, CTH_MATCH_LEN),
			     m->prefix);
		mnl_attr_put_u8(nlh, CTHD_RULE_A_AT, m->at);
		mnl_attr_put_u8(nlh, CTHD_RULE_A_DIRS, m->dirs);
		mnl_attr_nest_end(nlh, rule);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* The kernel answers with the helper as a NEW message; anything else, or
 * another helper, is not what we asked for and is skipped. */
static int cthelper_msg_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct cthelper_msg_get_ctx *g = data;
	struct cthelper_state st;

	if (nlh->nlmsg_type != (NFNL_SUBSYS_CTHELPER << 8 | NFNL_MSG_CTHELPER_NEW))
		return MNL_CB_OK;
	if (cthelper_msg_parse(nlh, &st) < 0)
		return MNL_CB_ERROR;
	if (strcmp(st.name, g->name) == 0 && st.family == g->family &&
	    st.proto == g->proto) {
		*g->out = st;
		g->found = true;
	}
	return MNL_CB_OK;
}

/* ---- the GET answer: what the kernel holds for a name+tuple ---- */

static int cthelper_msg_attr_cb(const struct nlattr *a, void *data)
{
	const struct cthelper_msg_attrs *t = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type > t->max || t->types[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, t->types[type]) < 0)
		return MNL_CB_ERROR;
	t->tb[type] = a;
	return MNL_CB_OK;
}

/* Parse a nest into tb; every attribute of the table is required. */
static int cthelper_msg_nest_parse(const struct nlattr *nest,
				   const enum mnl_attr_data_type *types,
				   unsigned int max, const struct nlattr **tb)
{
	struct cthelper_msg_attrs t = { .types = types, .max = max, .tb = tb };

	if (mnl_attr_parse_nested(nest, cthelper_msg_attr_cb, &t) < 0)
		return -EINVAL;
	for (unsigned int i = 1; i <= max; i++)
		if (types[i] != MNL_TYPE_UNSPEC && !tb[i])
			return -EINVAL;
	return 0;
}

/* A NUL-terminated (validated) string attribute into a name buffer. */
static int cthelper_msg_name_get(const struct nlattr *a, char *dst)
{
	const char *s = mnl_attr_get_str(a);

	if (strnlen(s, CTH_NAME_LEN) >= CTH_NAME_LEN)
		return -EINVAL;
	strcpy(dst, s);
	return 0;
}

/*
 * NFCTH_POLICY: the class count, then one nest per class.  Only the
 * classes we can hold are read; a count above that already differs from
 * any definition of ours.
 */
static int cthelper_msg_policy_parse(const struct nlattr *nest,
				     struct cthelper_state *st)
{
	const struct nlattr *tb[NFCTH_POLICY_SET_MAX + 1] = { 0 };
	struct cthelper_msg_attrs t = { .types = cthelper_msg_set_types,
					.max = NFCTH_POLICY_SET_MAX, .tb = tb };

	if (mnl_attr_parse_nested(nest, cthelper_msg_attr_cb, &t) < 0 ||
	    !tb[NFCTH_POLICY_SET_NUM])
		return -EINVAL;
	st->n_classes = ntohl(mnl_attr_get_u32(tb[NFCTH_POLICY_SET_NUM]));
	for (unsigned int i = 0; i < st->n_classes && i < CTH_CLASS_MAX; i++)
		if (!tb[NFCTH_POLICY_SET + i] ||
		    cthelper_msg_class_parse(tb[NFCTH_POLICY_SET + i], &st->classes[i]))
			return -EINVAL;
	return 0;
}

static int cthelper_msg_class_parse(const struct nlattr *nest,
				    struct cthelper_class *c)
{
	const struct nlattr *tb[NFCTH_POLICY_MAX + 1] = { 0 };

	if (cthelper_msg_nest_parse(nest, cthelper_msg_class_types, NFCTH_POLICY_MAX, tb) ||
	    cthelper_msg_name_get(tb[NFCTH_POLICY_NAME], c->name))
		return -EINVAL;
	c->max = ntohl(mnl_attr_get_u32(tb[NFCTH_POLICY_EXPECT_MAX]));
	c->timeout = ntohl(mnl_attr_get_u32(tb[NFCTH_POLICY_EXPECT_TIMEOUT]));
	return 0;
}
