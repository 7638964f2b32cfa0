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
#include <string.h>
#include <sys/socket.h>

#include "qmsg.h"

/*
 * NFQA_CT is read here, attribute by attribute, with libmnl's walker and
 * validators, not through libnetfilter_conntrack: the library allocates
 * an object per packet (nfct_new()), and 1.0.9 calls exit() ("ctnetlink
 * kernel ABI is broken") when an attribute fails its validation (found by
 * fuzz_qmsg), so it could only ever be given a checked copy of the nest.
 * Each level has a table of the types we read, indexed by type: their
 * kind and exact length.  The first attribute of a type that validates
 * is the one used (a later copy is ignored); a type not in the table,
 * or one that does not validate, is skipped.
 */
struct qmsg_rule {
	enum mnl_attr_data_type kind;   /* MNL_TYPE_UNSPEC: not read */
	size_t len;                     /* exact payload length, 0: by kind */
};

#define QMSG_NRULES(r) (sizeof(r) / sizeof((r)[0]))

static const struct qmsg_rule qmsg_ip_rules[CTA_IP_V6_DST + 1] = {
	[CTA_IP_V4_SRC] = { MNL_TYPE_U32, 0 },
	[CTA_IP_V4_DST] = { MNL_TYPE_U32, 0 },
	[CTA_IP_V6_SRC] = { MNL_TYPE_BINARY, 16 },
	[CTA_IP_V6_DST] = { MNL_TYPE_BINARY, 16 },
}, qmsg_proto_rules[CTA_PROTO_DST_PORT + 1] = {
	[CTA_PROTO_NUM] = { MNL_TYPE_U8, 0 },
	[CTA_PROTO_SRC_PORT] = { MNL_TYPE_U16, 0 },
	[CTA_PROTO_DST_PORT] = { MNL_TYPE_U16, 0 },
}, qmsg_tuple_rules[CTA_TUPLE_PROTO + 1] = {
	[CTA_TUPLE_IP] = { MNL_TYPE_NESTED, 0 },
	[CTA_TUPLE_PROTO] = { MNL_TYPE_NESTED, 0 },
}, qmsg_ct_rules[CTA_ZONE + 1] = {
	[CTA_TUPLE_ORIG] = { MNL_TYPE_NESTED, 0 },
	[CTA_TUPLE_REPLY] = { MNL_TYPE_NESTED, 0 },
	[CTA_TUPLE_MASTER] = { MNL_TYPE_NESTED, 0 },
	[CTA_STATUS] = { MNL_TYPE_U32, 0 },
	[CTA_MARK] = { MNL_TYPE_U32, 0 },
	[CTA_ID] = { MNL_TYPE_U32, 0 },
	[CTA_ZONE] = { MNL_TYPE_U16, 0 },
};

static int qmsg_family(const struct nfqnl_msg_packet_hdr *ph);
static void qmsg_flags(struct qmsg *m);
static int qmsg_conn_get(const struct nlattr *ct, int family, uint32_t ctinfo,
			 struct cth_packet *p);
static int qmsg_tuple_read(const struct nlattr *nest, int family,
			   struct cth_tuple *t);
static void qmsg_nest_read(const struct nlattr *nest, const struct qmsg_rule *rules,
			   const struct nlattr **tb, size_t n);
static unsigned int qmsg_ct_status(uint32_t ips);
static uint32_t qmsg_u32(const struct nlattr *a);
static void qmsg_help_read(struct qmsg *m);

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

	if (m->attr[NFQA_CT_INFO])
		ctinfo = ntohl(mnl_attr_get_u32(m->attr[NFQA_CT_INFO]));
	if (qmsg_conn_get(m->attr[NFQA_CT], m->family, ctinfo, &m->view) < 0)
		return -EINVAL;
	qmsg_help_read(m);
	return 0;
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
	/* the interfaces, for the link view (cth_link()): the kernel sends
	 * each only when the packet has it (no indev for a packet this host
	 * sends, no outdev at LOCAL_IN); nfq_nlmsg_parse() checked both as
	 * u32; a bridge port (PHYSINDEV) is not the link the addresses are on */
	m->in_ifindex = qmsg_u32(attr[NFQA_IFINDEX_INDEV]);
	m->out_ifindex = qmsg_u32(attr[NFQA_IFINDEX_OUTDEV]);
}

/* Everything the plugin sees about the connection, from NFQA_CT. */
static int qmsg_conn_get(const struct nlattr *ct, int family, uint32_t ctinfo,
			 struct cth_packet *p)
{
	const struct nlattr *tb[QMSG_NRULES(qmsg_ct_rules)] = { 0 };
	uint32_t status;

	qmsg_nest_read(ct, qmsg_ct_rules, tb, QMSG_NRULES(tb));
	if (qmsg_tuple_read(tb[CTA_TUPLE_ORIG], family, &p->tuple[CTH_DIR_ORIGINAL]) < 0 ||
	    qmsg_tuple_read(tb[CTA_TUPLE_REPLY], family, &p->tuple[CTH_DIR_REPLY]) < 0)
		return -EINVAL;
	status = qmsg_u32(tb[CTA_STATUS]);
	p->nat = ((status & IPS_SRC_NAT) ? CTH_NAT_SRC : 0) |
		 ((status & IPS_DST_NAT) ? CTH_NAT_DST : 0);
	p->ct_status = qmsg_ct_status(status);
	/* an expected connection's master, all or nothing */
	if (qmsg_tuple_read(tb[CTA_TUPLE_MASTER], family, &p->master) == 0)
		p->ct_status |= CTH_CT_EXPECTED;
	else if (p->ct_status & CTH_CT_EXPECTED)
		memset(&p->master, 0, sizeof(p->master));
	p->mark = qmsg_u32(tb[CTA_MARK]);
	p->zone = tb[CTA_ZONE] ? ntohs(mnl_attr_get_u16(tb[CTA_ZONE])) : 0;
	p->ct_id = qmsg_u32(tb[CTA_ID]);
	if (ctinfo > IP_CT_RELATED_REPLY)
		return -EINVAL;
	p->ctinfo = (enum cth_ctinfo)ctinfo;
	p->dir = ctinfo >= IP_CT_IS_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	return 0;
}

/* A tuple nest (CTA_TUPLE_ORIG, _REPLY, _MASTER) in the packet's family:
 * addresses, protocol and both ports, all or nothing (t is only written
 * when complete).  The conntrack glue always sends them, but a message
 * that lacks one must not crash us. */
static int qmsg_tuple_read(const struct nlattr *nest, int family,
			   struct cth_tuple *t)
{
	const struct nlattr *tt[QMSG_NRULES(qmsg_tuple_rules)] = { 0 };
	const struct nlattr *ip[QMSG_NRULES(qmsg_ip_rules)] = { 0 };
	const struct nlattr *pr[QMSG_NRULES(qmsg_proto_rules)] = { 0 };
	const struct nlattr *src, *dst;
	size_t alen = family == AF_INET6 ? 16 : 4;

	if (!nest)
		return -EINVAL;
	qmsg_nest_read(nest, qmsg_tuple_rules, tt, QMSG_NRULES(tt));
	if (tt[CTA_TUPLE_IP])
		qmsg_nest_read(tt[CTA_TUPLE_IP], qmsg_ip_rules, ip, QMSG_NRULES(ip));
	if (tt[CTA_TUPLE_PROTO])
		qmsg_nest_read(tt[CTA_TUPLE_PROTO], qmsg_proto_rules, pr, QMSG_NRULES(pr));
	src = ip[family == AF_INET6 ? CTA_IP_V6_SRC : CTA_IP_V4_SRC];
	dst = ip[family == AF_INET6 ? CTA_IP_V6_DST : CTA_IP_V4_DST];
	if (!src || !dst || !pr[CTA_PROTO_NUM] || !pr[CTA_PROTO_SRC_PORT] ||
	    !pr[CTA_PROTO_DST_PORT])
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	t->family = (uint8_t)family;
	t->proto = mnl_attr_get_u8(pr[CTA_PROTO_NUM]);
	memcpy(t->src.raw, mnl_attr_get_payload(src), alen);
	memcpy(t->dst.raw, mnl_attr_get_payload(dst), alen);
	t->sport = ntohs(mnl_attr_get_u16(pr[CTA_PROTO_SRC_PORT]));
	t->dport = ntohs(mnl_attr_get_u16(pr[CTA_PROTO_DST_PORT]));
	return 0;
}

/* tb[type] (n entries, zeroed by the caller): the first attribute of each
 * type in nest that rules[type] allows and that validates. */
static void qmsg_nest_read(const struct nlattr *nest, const struct qmsg_rule *rules,
			   const struct nlattr **tb, size_t n)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		uint16_t type = mnl_attr_get_type(a);

		if (type >= n || tb[type] || rules[type].kind == MNL_TYPE_UNSPEC)
			continue;
		if (rules[type].len ? mnl_attr_validate2(a, rules[type].kind, rules[type].len) < 0
				    : mnl_attr_validate(a, rules[type].kind) < 0)
			continue;
		tb[type] = a;
	}
}

static unsigned int qmsg_ct_status(uint32_t ips)
{
	return ((ips & IPS_EXPECTED) ? CTH_CT_EXPECTED : 0) |
	       ((ips & IPS_SEEN_REPLY) ? CTH_CT_SEEN_REPLY : 0) |
	       ((ips & IPS_ASSURED) ? CTH_CT_ASSURED : 0) |
	       ((ips & IPS_CONFIRMED) ? CTH_CT_CONFIRMED : 0);
}

static uint32_t qmsg_u32(const struct nlattr *a)
{
	return a ? ntohl(mnl_attr_get_u32(a)) : 0;
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
