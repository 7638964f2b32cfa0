/* SPDX-License-Identifier: MIT */
/*
 * Reading one NFQUEUE packet message: packet id, the packet view and what
 * NFQA_CT says about its connection.  Every attribute is checked before
 * use; nothing here talks to the kernel, so tests and fuzzers drive it
 * with arbitrary messages.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "qmsg.h"

/* NFQA_CT of a real conntrack is a few hundred bytes */
#define QMSG_CT_COPY_MAX 4096u

/* The attributes a tuple needs, per direction and family: the conntrack
 * glue always sends them, but a message that lacks one must not crash us. */
static const enum nf_conntrack_attr qmsg_tuple_attrs[2][2][4] = {
	/* [reply][v6] = { src, dst, sport, dport } */
	[0][0] = { ATTR_ORIG_IPV4_SRC, ATTR_ORIG_IPV4_DST, ATTR_ORIG_PORT_SRC, ATTR_ORIG_PORT_DST },
	[0][1] = { ATTR_ORIG_IPV6_SRC, ATTR_ORIG_IPV6_DST, ATTR_ORIG_PORT_SRC, ATTR_ORIG_PORT_DST },
	[1][0] = { ATTR_REPL_IPV4_SRC, ATTR_REPL_IPV4_DST, ATTR_REPL_PORT_SRC, ATTR_REPL_PORT_DST },
	[1][1] = { ATTR_REPL_IPV6_SRC, ATTR_REPL_IPV6_DST, ATTR_REPL_PORT_SRC, ATTR_REPL_PORT_DST },
};

static int qmsg_tuple_get(const struct nf_conntrack *ct, int reply,
			    struct cth_tuple *t)
{
	const enum nf_conntrack_attr *a;

	if (!nfct_attr_is_set(ct, ATTR_ORIG_L3PROTO) ||
	    !nfct_attr_is_set(ct, reply ? ATTR_REPL_L4PROTO : ATTR_ORIG_L4PROTO))
		return -EINVAL;
	t->family = nfct_get_attr_u8(ct, ATTR_ORIG_L3PROTO);
	if (t->family != AF_INET && t->family != AF_INET6)
		return -EINVAL;
	a = qmsg_tuple_attrs[reply][t->family == AF_INET6];
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
static bool qmsg_master_get(const struct nf_conntrack *ct, struct cth_tuple *t)
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

static unsigned int qmsg_ct_status(uint32_t ips)
{
	return ((ips & IPS_EXPECTED) ? CTH_CT_EXPECTED : 0) |
	       ((ips & IPS_SEEN_REPLY) ? CTH_CT_SEEN_REPLY : 0) |
	       ((ips & IPS_ASSURED) ? CTH_CT_ASSURED : 0) |
	       ((ips & IPS_CONFIRMED) ? CTH_CT_CONFIRMED : 0);
}

/* Everything the plugin sees about the connection, from NFQA_CT. */
static int qmsg_conn_get(const struct nf_conntrack *ct, uint32_t ctinfo,
			   struct cth_packet *p)
{
	uint32_t status;

	if (qmsg_tuple_get(ct, 0, &p->tuple[CTH_DIR_ORIGINAL]) < 0 ||
	    qmsg_tuple_get(ct, 1, &p->tuple[CTH_DIR_REPLY]) < 0)
		return -EINVAL;
	status = nfct_attr_is_set(ct, ATTR_STATUS) ? nfct_get_attr_u32(ct, ATTR_STATUS) : 0;
	p->nat = ((status & IPS_SRC_NAT) ? CTH_NAT_SRC : 0) |
		 ((status & IPS_DST_NAT) ? CTH_NAT_DST : 0);
	p->ct_status = qmsg_ct_status(status);
	if (qmsg_master_get(ct, &p->master))
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
 * CTA_HELP as the kernel sent it: the library keeps CTA_HELP_INFO's length
 * to itself and silently cuts a long helper name, so both are read here.
 * A shorter state blob is zero-extended by pkt_call_run(), never read
 * past; a name of 16 bytes or more (NF_CT_HELPER_NAME_LEN) is nobody's
 * we know, never a truncated match.
 */
static void qmsg_help_read(struct qmsg *m)
{
	const struct nlattr *a, *h;

	mnl_attr_for_each_nested(a, m->attr[NFQA_CT]) {
		if (mnl_attr_get_type(a) != CTA_HELP)
			continue;
		mnl_attr_for_each_nested(h, a) {
			const char *name = mnl_attr_get_payload(h);
			size_t n = mnl_attr_get_payload_len(h);

			if (mnl_attr_get_type(h) == CTA_HELP_INFO) {
				m->klen = n;
				m->kpriv = mnl_attr_get_payload(h);
			} else if (mnl_attr_get_type(h) == CTA_HELP_NAME &&
				   strnlen(name, n) < n && strnlen(name, n) < sizeof(m->helper)) {
				strcpy(m->helper, name);
			}
		}
	}
}

static int qmsg_family(const struct nfqnl_msg_packet_hdr *ph)
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

/* The bits of the queue message the plugin's edits depend on. */
static void qmsg_flags(struct qmsg *m)
{
	struct nlattr **attr = m->attr;
	uint32_t skbinfo = attr[NFQA_SKB_INFO] ? ntohl(mnl_attr_get_u32(attr[NFQA_SKB_INFO])) : 0;

	/* NFQA_CAP_LEN is only sent when the copy was cut short */
	m->truncated = attr[NFQA_CAP_LEN] &&
		       ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN])) >
		       mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	m->gso = skbinfo & NFQA_SKB_GSO;
}

/*
 * libnetfilter_conntrack 1.0.9 calls exit() ("ctnetlink kernel ABI is
 * broken") when an attribute fails its validation (found by fuzz_qmsg),
 * so the library only ever sees a copy of NFQA_CT holding the attributes
 * the view needs, each checked here first.  CTA_HELP is read by
 * qmsg_help_read() and not copied.
 */
struct qmsg_rule {
	uint16_t type;
	enum mnl_attr_data_type kind;   /* MNL_TYPE_NESTED: rules below */
	size_t len;                     /* exact payload length, 0: by kind */
	const struct qmsg_rule *nested;
};

static const struct qmsg_rule qmsg_ip_rules[] = {
	{ .type = CTA_IP_V4_SRC, .kind = MNL_TYPE_U32 },
	{ .type = CTA_IP_V4_DST, .kind = MNL_TYPE_U32 },
	{ .type = CTA_IP_V6_SRC, .kind = MNL_TYPE_BINARY, .len = 16 },
	{ .type = CTA_IP_V6_DST, .kind = MNL_TYPE_BINARY, .len = 16 },
	{ 0 },
}, qmsg_proto_rules[] = {
	{ .type = CTA_PROTO_NUM, .kind = MNL_TYPE_U8 },
	{ .type = CTA_PROTO_SRC_PORT, .kind = MNL_TYPE_U16 },
	{ .type = CTA_PROTO_DST_PORT, .kind = MNL_TYPE_U16 },
	{ 0 },
}, qmsg_tuple_rules[] = {
	{ .type = CTA_TUPLE_IP, .kind = MNL_TYPE_NESTED, .nested = qmsg_ip_rules },
	{ .type = CTA_TUPLE_PROTO, .kind = MNL_TYPE_NESTED, .nested = qmsg_proto_rules },
	{ 0 },
}, qmsg_ct_rules[] = {
	{ .type = CTA_TUPLE_ORIG, .kind = MNL_TYPE_NESTED, .nested = qmsg_tuple_rules },
	{ .type = CTA_TUPLE_REPLY, .kind = MNL_TYPE_NESTED, .nested = qmsg_tuple_rules },
	{ .type = CTA_TUPLE_MASTER, .kind = MNL_TYPE_NESTED, .nested = qmsg_tuple_rules },
	{ .type = CTA_STATUS, .kind = MNL_TYPE_U32 },
	{ .type = CTA_MARK, .kind = MNL_TYPE_U32 },
	{ .type = CTA_ID, .kind = MNL_TYPE_U32 },
	{ .type = CTA_ZONE, .kind = MNL_TYPE_U16 },
	{ 0 },
};

/* Copy the attributes of nest that a rule allows and that validate;
 * nested ones recursively.  The copy keeps each attribute at most once. */
static void qmsg_ct_copy(struct nlmsghdr *out, const struct nlattr *nest,
			 const struct qmsg_rule *rules)
{
	const struct nlattr *a;
	uint32_t seen = 0;

	mnl_attr_for_each_nested(a, nest) {
		uint16_t type = mnl_attr_get_type(a);
		const struct qmsg_rule *r;

		for (r = rules; r->type && r->type != type; r++)
			;
		if (!r->type || type >= 32 || (seen & (1u << type)))
			continue;
		if (r->len ? mnl_attr_validate2(a, r->kind, r->len) < 0
			   : mnl_attr_validate(a, r->kind) < 0)
			continue;
		seen |= 1u << type;
		if (r->nested) {
			struct nlattr *n = mnl_attr_nest_start(out, type);

			qmsg_ct_copy(out, a, r->nested);
			mnl_attr_nest_end(out, n);
		} else {
			mnl_attr_put(out, type, mnl_attr_get_payload_len(a),
				     mnl_attr_get_payload(a));
		}
	}
}

int qmsg_read(const struct nlmsghdr *nlh, struct qmsg *m)
{
	const struct nfqnl_msg_packet_hdr *ph;
	bool parsed;

	memset(m, 0, sizeof(*m));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(struct nfgenmsg)))
		return QMSG_NO_ID;
	m->queue = ntohs(((const struct nfgenmsg *)mnl_nlmsg_get_payload(nlh))->res_id);
	/* A message that does not parse as a whole may still name its packet
	 * (NFQA_PACKET_HDR comes first, and the parser fills in what it
	 * validated before giving up): that packet gets a verdict, or the
	 * kernel would hold it until the queue overflows. */
	parsed = nfq_nlmsg_parse(nlh, m->attr) >= 0;
	if (!m->attr[NFQA_PACKET_HDR])
		return QMSG_NO_ID;
	ph = mnl_attr_get_payload(m->attr[NFQA_PACKET_HDR]);
	m->id = ntohl(ph->packet_id);
	if (!parsed)
		return QMSG_MALFORMED;
	m->family = qmsg_family(ph);
	if (m->family < 0 || !m->attr[NFQA_PAYLOAD] || !m->attr[NFQA_CT] ||
	    pkt_view_parse(&m->view, mnl_attr_get_payload(m->attr[NFQA_PAYLOAD]),
			   mnl_attr_get_payload_len(m->attr[NFQA_PAYLOAD]),
			   m->family) < 0 ||
	    m->view.payload_len == 0)
		return QMSG_ACCEPT;
	qmsg_flags(m);
	m->view.queue = m->queue;
	return QMSG_PAYLOAD;
}

int qmsg_conn_read(struct qmsg *m)
{
	uint32_t ctinfo = IP_CT_NUMBER;

	/* the copy is never larger than NFQA_CT itself */
	static __thread char copy[QMSG_CT_COPY_MAX] __attribute__((aligned(4)));
	struct nlmsghdr *out = mnl_nlmsg_put_header(copy);

	if (mnl_attr_get_payload_len(m->attr[NFQA_CT]) > QMSG_CT_COPY_MAX - 64)
		return -EINVAL;
	qmsg_ct_copy(out, m->attr[NFQA_CT], qmsg_ct_rules);
	m->ct = nfct_new();
	if (!m->ct)
		return -ENOMEM;
	if (nfct_payload_parse(mnl_nlmsg_get_payload(out),
			       mnl_nlmsg_get_payload_len(out),
			       (uint16_t)m->family, m->ct) < 0)
		return -EINVAL;
	if (m->attr[NFQA_CT_INFO])
		ctinfo = ntohl(mnl_attr_get_u32(m->attr[NFQA_CT_INFO]));
	if (qmsg_conn_get(m->ct, ctinfo, &m->view) < 0 ||
	    m->view.tuple[0].family != m->family)
		return -EINVAL;
	qmsg_help_read(m);
	return 0;
}

void qmsg_release(struct qmsg *m)
{
	if (m->ct)
		nfct_destroy(m->ct);
	m->ct = NULL;
}
