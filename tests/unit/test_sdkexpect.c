/* SPDX-License-Identifier: MIT */
/*
 * cth_expect_back() and cth_expect_to() on the shapes of plugin.h's table:
 * routed, client behind SNAT, server behind DNAT, a third host, IPv6.
 * Each row gives the master's two tuples as the kernel shows them and the
 * expectation (tuple and NAT) Linux needs for the expected connection to
 * reach the sender's real address (nf_nat_follow_master(): source to the
 * master's tuple[nat_dir].dst, destination to tuple[!nat_dir].src with
 * the saved port).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "check.h"

struct row {
	const char *name;
	int family;
	enum cth_dir dir;            /* the announcing packet's */
	unsigned int nat;            /* cth_packet::nat */
	/* master tuples: orig src:sport > dst:dport, reply src:sport > dst:dport */
	const char *o_src, *o_dst, *r_src, *r_dst;
	uint16_t o_sport, o_dport, r_sport, r_dport;
	bool back;                   /* cth_expect_back() else cth_expect_to() */
	const char *ann;             /* cth_expect_to(): announced address */
	uint16_t ann_port;
	/* wanted */
	bool own;                    /* cth_expect_to()'s return */
	const char *src, *dst;
	uint16_t dport;
	bool has_nat;
	enum cth_dir nat_dir;
	uint16_t nat_port;
	const char *deliver;         /* where follow-master sends it: tuple[!nat_dir].src */
};

static const struct row rows[] = {
	{ "back_routed", AF_INET, CTH_DIR_ORIGINAL, 0,
	  "10.0.0.2", "10.0.1.2", "10.0.1.2", "10.0.0.2", 4000, 69, 69, 4000,
	  true, NULL, 0, true, "10.0.1.2", "10.0.0.2", 4000, false, 0, 0, NULL },
	{ "back_snat_client", AF_INET, CTH_DIR_ORIGINAL, CTH_NAT_SRC,
	  "192.168.1.2", "10.0.1.2", "10.0.1.2", "10.0.0.1", 4000, 69, 69, 61000,
	  true, NULL, 0, true, "10.0.1.2", "10.0.0.1", 61000, true,
	  CTH_DIR_REPLY, 4000, "192.168.1.2" },
	{ "back_dnat_server", AF_INET, CTH_DIR_ORIGINAL, CTH_NAT_DST,
	  "10.0.0.2", "203.0.113.1", "192.168.2.2", "10.0.0.2", 4000, 69, 69, 4000,
	  true, NULL, 0, true, "192.168.2.2", "10.0.0.2", 4000, true,
	  CTH_DIR_REPLY, 4000, "10.0.0.2" },
	{ "back_v6", AF_INET6, CTH_DIR_ORIGINAL, 0,
	  "2001:db8::2", "2001:db8:1::2", "2001:db8:1::2", "2001:db8::2", 4000, 69, 69, 4000,
	  true, NULL, 0, true, "2001:db8:1::2", "2001:db8::2", 4000, false, 0, 0, NULL },
	/* FTP PORT from a client behind SNAT: server connects to the NAT
	 * address, announced port; delivered to the client's real address */
	{ "to_port_snat_client", AF_INET, CTH_DIR_ORIGINAL, CTH_NAT_SRC,
	  "192.168.1.2", "10.0.1.2", "10.0.1.2", "10.0.0.1", 40000, 21, 21, 61000,
	  false, "192.168.1.2", 5000, true, "10.0.1.2", "10.0.0.1", 5000, true,
	  CTH_DIR_REPLY, 5000, "192.168.1.2" },
	/* FTP 227 from a server behind DNAT: the client connects to the
	 * public address, delivered to the server's real one */
	{ "to_227_dnat_server", AF_INET, CTH_DIR_REPLY, CTH_NAT_DST,
	  "10.0.0.2", "203.0.113.1", "192.168.2.2", "10.0.0.2", 40000, 21, 21, 40000,
	  false, "192.168.2.2", 6000, true, "10.0.0.2", "203.0.113.1", 6000, true,
	  CTH_DIR_ORIGINAL, 6000, "192.168.2.2" },
	/* a client behind SNAT announcing its public address (STUN) */
	{ "to_public_addr", AF_INET, CTH_DIR_ORIGINAL, CTH_NAT_SRC,
	  "192.168.1.2", "10.0.1.2", "10.0.1.2", "10.0.0.1", 40000, 21, 21, 61000,
	  false, "10.0.0.1", 5000, true, "10.0.1.2", "10.0.0.1", 5000, true,
	  CTH_DIR_REPLY, 5000, "192.168.1.2" },
	/* a redirect to a third host: as announced, no NAT */
	{ "to_third_host", AF_INET, CTH_DIR_REPLY, CTH_NAT_DST,
	  "10.0.0.2", "203.0.113.1", "192.168.2.2", "10.0.0.2", 40000, 1521, 1521, 40000,
	  false, "192.168.2.9", 1522, false, "10.0.0.2", "192.168.2.9", 1522, false,
	  0, 0, NULL },
	{ "to_routed_v6", AF_INET6, CTH_DIR_REPLY, 0,
	  "2001:db8::2", "2001:db8:1::2", "2001:db8:1::2", "2001:db8::2", 40000, 21, 21, 40000,
	  false, "2001:db8:1::2", 6000, true, "2001:db8::2", "2001:db8:1::2", 6000, false,
	  0, 0, NULL },
};

static void addr_of(int family, const char *text, union cth_addr *a)
{
	memset(a, 0, sizeof(*a));
	inet_pton(family, text, a->raw);
}

static void tuple_of(struct cth_tuple *t, int family, const char *src,
		     uint16_t sport, const char *dst, uint16_t dport)
{
	memset(t, 0, sizeof(*t));
	t->family = (uint8_t)family;
	t->proto = IPPROTO_UDP;
	addr_of(family, src, &t->src);
	addr_of(family, dst, &t->dst);
	t->sport = sport;
	t->dport = dport;
}

static bool addr_is(int family, const union cth_addr *a, const char *text)
{
	union cth_addr want;

	addr_of(family, text, &want);
	return cth_addr_equal(family, a, &want);
}

static void row_check(const struct row *r)
{
	struct cth_packet pkt = { .dir = r->dir, .nat = r->nat };
	struct cth_expect exp;
	struct check c;
	bool own = true;

	tuple_of(&pkt.tuple[0], r->family, r->o_src, r->o_sport, r->o_dst, r->o_dport);
	tuple_of(&pkt.tuple[1], r->family, r->r_src, r->r_sport, r->r_dst, r->r_dport);
	if (r->back) {
		cth_expect_back(&exp, &pkt, 1, IPPROTO_UDP);
	} else {
		union cth_addr ann;

		addr_of(r->family, r->ann, &ann);
		own = cth_expect_to(&exp, &pkt, 1, IPPROTO_UDP, &ann, r->ann_port);
	}
	check_start(&c, "sdkexpect_%s", r->name);
	check_that(&c, own == r->own, "own %d", own);
	check_that(&c, exp.class == 1 && exp.proto == IPPROTO_UDP &&
		   exp.family == r->family, "class/proto/family");
	check_that(&c, addr_is(r->family, &exp.src, r->src), "src");
	check_that(&c, addr_is(r->family, &exp.dst, r->dst), "dst");
	check_that(&c, exp.sport == 0, "sport %u, want any", exp.sport);
	check_that(&c, exp.dport == r->dport, "dport %u, want %u", exp.dport, r->dport);
	check_that(&c, !!(exp.flags & CTH_EXPECT_NAT) == r->has_nat, "NAT flag");
	if (r->has_nat) {
		const struct cth_tuple *to = &pkt.tuple[!exp.nat_dir];

		check_that(&c, exp.nat_dir == r->nat_dir, "nat_dir %d", exp.nat_dir);
		check_that(&c, exp.nat_port == r->nat_port, "nat_port %u", exp.nat_port);
		check_that(&c, exp.fn && strcmp(exp.fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0,
			   "fn");
		/* what the kernel does with it: delivered to the sender */
		check_that(&c, addr_is(r->family, &to->src, r->deliver),
			   "follow-master delivers elsewhere");
	} else {
		check_that(&c, exp.fn == NULL, "fn set without NAT");
	}
	check_end(&c);
}

/* cth_expect_src_net(): the link's network as the source, or -ENOENT
 * with the expectation untouched. */
static void test_src_net(void)
{
	struct cth_link l = { .net_prefix = 24 };
	struct cth_expect e = { .family = AF_INET, .flags = CTH_EXPECT_ANY_SRC | CTH_EXPECT_NAT };
	struct cth_expect before;
	struct check c;

	check_start(&c, "sdkexpect/src-net");
	inet_pton(AF_INET, "10.0.1.0", l.net.raw);
	check_ret(&c, cth_expect_src_net(&e, &l), 0);
	check_that(&c, e.flags == (CTH_EXPECT_SRC_PREFIX | CTH_EXPECT_NAT) && e.src_prefix == 24 &&
		   addr_is(AF_INET, &e.src, "10.0.1.0"), "flags %#x /%u", e.flags, e.src_prefix);
	memset(&l, 0, sizeof(l));
	l.net_prefix = 10;
	inet_pton(AF_INET6, "fe80::", l.net.raw);
	e = (struct cth_expect){ .family = AF_INET6 };
	check_ret(&c, cth_expect_src_net(&e, &l), 0);
	check_that(&c, e.flags == CTH_EXPECT_SRC_PREFIX && e.src_prefix == 10 &&
		   addr_is(AF_INET6, &e.src, "fe80::"), "IPv6: flags %#x /%u", e.flags,
		   e.src_prefix);
	check_end(&c);

	check_start(&c, "sdkexpect/src-net-none");
	e = (struct cth_expect){ .family = AF_INET, .flags = CTH_EXPECT_ANY_SRC };
	before = e;
	/* an IPv6 network for an IPv4 expectation: what tells (cth_link
	 * holds no family; the host fills it in the packet's) */
	l.net_prefix = 64;
	inet_pton(AF_INET6, "fd00:1::", l.net.raw);
	check_ret(&c, cth_expect_src_net(&e, &l), -ENOENT);
	l.net_prefix = 32;
	inet_pton(AF_INET6, "2001:db8::", l.net.raw);
	l.net.raw[15] = 1;      /* not a network: still not IPv4 */
	check_ret(&c, cth_expect_src_net(&e, &l), -ENOENT);
	l.net_prefix = 0;
	check_ret(&c, cth_expect_src_net(&e, &l), -ENOENT);
	e.family = AF_INET6;
	before.family = AF_INET6;
	check_ret(&c, cth_expect_src_net(&e, &l), -ENOENT);
	check_that(&c, memcmp(&e, &before, sizeof(e)) == 0, "changed");
	check_end(&c);
}

int main(void)
{
	test_src_net();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		row_check(&rows[i]);
	return check_exit();
}
