/* SPDX-License-Identifier: MIT */
/*
 * cth_expect_answers() (sdk/lib/util.c), the shape of the answers to a
 * query sent to a group or broadcast address: a query from 10.0.1.1:40000
 * to 224.0.0.251:5353 (and its IPv6 and NATed variants) with a link view
 * that names a network, none, or no link at all (answers from anywhere).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/util.h>

#include "check.h"

static union cth_addr addr(int family, const char *text)
{
	union cth_addr a;

	memset(&a, 0, sizeof(a));
	if (inet_pton(family, text, a.raw) != 1)
		abort();
	return a;
}

/* A query's packet view: src:sport > group:dport, its reply tuple the
 * other way (NAT: the querier seen as pub:pport). */
static struct cth_packet query(int family, const char *src, const char *group, const char *pub)
{
	struct cth_packet p;

	memset(&p, 0, sizeof(p));
	p.dir = CTH_DIR_ORIGINAL;
	for (int d = 0; d < 2; d++) {
		p.tuple[d].family = (uint8_t)family;
		p.tuple[d].proto = IPPROTO_UDP;
	}
	p.tuple[0].src = addr(family, src);
	p.tuple[0].dst = addr(family, group);
	p.tuple[0].sport = 40000;
	p.tuple[0].dport = 5353;
	p.tuple[1].src = addr(family, group);
	p.tuple[1].dst = addr(family, pub ? pub : src);
	p.tuple[1].sport = 5353;
	p.tuple[1].dport = pub ? 41000 : 40000;
	p.nat = pub ? CTH_NAT_SRC : 0;
	return p;
}

int main(void)
{
	struct cth_link lan = { .net_prefix = 24, .net = addr(AF_INET, "10.0.1.0") };
	struct cth_link lan6 = { .net_prefix = 64, .net = addr(AF_INET6, "fe80::") };
	struct cth_link none = { .in_ifindex = 0, .out_ifindex = 2 };
	struct cth_packet p = query(AF_INET, "10.0.1.1", "224.0.0.251", NULL);
	struct cth_expect e;
	struct check c;
	int ret;

	check_start(&c, "sdk/answers-link-v4");
	ret = cth_expect_answers(&e, &p, &lan, 2, 5353);
	check_ret(&c, ret, 0);
	check_that(&c, e.flags == (CTH_EXPECT_PERMANENT | CTH_EXPECT_SRC_PREFIX), "flags %#x",
		   e.flags);
	check_that(&c, e.class == 2 && e.proto == IPPROTO_UDP && e.family == AF_INET,
		   "class %u proto %u family %u", e.class, e.proto, e.family);
	check_that(&c, e.src_prefix == 24 && cth_addr_equal(AF_INET, &e.src, &lan.net) &&
		   e.sport == 5353, "from /%u port %u", e.src_prefix, e.sport);
	check_that(&c, cth_addr_equal(AF_INET, &e.dst, &p.tuple[0].src) && e.dport == 40000,
		   "to port %u", e.dport);
	check_end(&c);

	check_start(&c, "sdk/answers-anywhere");
	ret = cth_expect_answers(&e, &p, NULL, 0, 0);
	check_ret(&c, ret, 0);
	check_that(&c, e.flags == (CTH_EXPECT_PERMANENT | CTH_EXPECT_ANY_SRC) && e.sport == 0 &&
		   e.dport == 40000, "flags %#x sport %u", e.flags, e.sport);
	check_end(&c);

	check_start(&c, "sdk/answers-no-network");
	check_ret(&c, cth_expect_answers(&e, &p, &none, 0, 5353), -ENOENT);
	check_end(&c);

	check_start(&c, "sdk/answers-link-v6");
	p = query(AF_INET6, "fe80::1", "ff02::fb", NULL);
	ret = cth_expect_answers(&e, &p, &lan6, 0, 5353);
	check_ret(&c, ret, 0);
	check_that(&c, e.family == AF_INET6 && e.src_prefix == 64 &&
		   cth_addr_equal(AF_INET6, &e.src, &lan6.net) &&
		   cth_addr_equal(AF_INET6, &e.dst, &p.tuple[0].src), "family %u /%u", e.family,
		   e.src_prefix);
	check_end(&c);

	/* a NATed query: to the querier as the answerers see it, following
	 * the master back (cth_expect_back()'s part) */
	check_start(&c, "sdk/answers-nat-follows");
	p = query(AF_INET, "10.0.1.1", "224.0.0.251", "10.0.2.1");
	ret = cth_expect_answers(&e, &p, &lan, 0, 5353);
	check_ret(&c, ret, 0);
	check_that(&c, (e.flags & CTH_EXPECT_NAT) && (e.flags & CTH_EXPECT_PERMANENT) &&
		   e.dport == 41000 && e.nat_port == 40000 && e.nat_dir == CTH_DIR_REPLY &&
		   cth_addr_equal(AF_INET, &e.dst, &p.tuple[1].dst), "flags %#x dport %u nat %u",
		   e.flags, e.dport, e.nat_port);
	check_end(&c);
	return check_exit();
}
