// SPDX-License-Identifier: MIT
/* guard.c: the master rule, expect_networks and mark_mask (issue 27). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "runtime/guard.h"

static union cth_addr a4(const char *s)
{
	union cth_addr a = { 0 };

	inet_pton(AF_INET, s, a.raw);
	return a;
}

static union cth_addr a6(const char *s)
{
	union cth_addr a = { 0 };

	inet_pton(AF_INET6, s, a.raw);
	return a;
}

/* phone 192.168.1.10 behind SNAT 203.0.113.1 calling 198.51.100.5 */
static struct cth_tuple orig, reply;

static void tuples_snat(void)
{
	memset(&orig, 0, sizeof(orig));
	memset(&reply, 0, sizeof(reply));
	orig.family = reply.family = AF_INET;
	orig.proto = reply.proto = IPPROTO_UDP;
	orig.src = a4("192.168.1.10");
	orig.dst = a4("198.51.100.5");
	reply.src = a4("198.51.100.5");
	reply.dst = a4("203.0.113.1");
	orig.sport = reply.dport = 5060;
	orig.dport = reply.sport = 5060;
}

static struct cth_expect exp_to(const char *dst, const char *src)
{
	struct cth_expect e = { .family = AF_INET, .proto = IPPROTO_UDP, .dport = 3306 };

	e.dst = a4(dst);
	if (src)
		e.src = a4(src);
	else
		e.flags = CTH_EXPECT_ANY_SRC;
	return e;
}

static void test_master_rule(void)
{
	struct guard g = GUARD_DEFAULT;
	struct cth_expect e;

	tuples_snat();
	e = exp_to("198.51.100.5", "192.168.1.10");
	CHECK("guard/master-both-ends", guard_expect_check(&g, &orig, &reply, &e) == 0, "refused");
	e = exp_to("203.0.113.1", NULL);
	CHECK("guard/master-nat-address-any-src", guard_expect_check(&g, &orig, &reply, &e) == 0,
	      "refused");
	e = exp_to("10.9.9.9", "192.168.1.10");
	CHECK("guard/master-src-only (a TNS redirect to another node)",
	      guard_expect_check(&g, &orig, &reply, &e) == 0, "refused");
	e = exp_to("10.9.9.9", NULL);
	CHECK("guard/third-party-any-src", guard_expect_check(&g, &orig, &reply, &e) == -EPERM,
	      "allowed");
	e = exp_to("10.9.9.9", "10.8.8.8");
	CHECK("guard/third-party-both", guard_expect_check(&g, &orig, &reply, &e) == -EPERM,
	      "allowed");
	/* an any-source expectation does not count its zero source */
	e = exp_to("10.9.9.9", NULL);
	e.src = orig.src;
	CHECK("guard/any-src-ignores-src", guard_expect_check(&g, &orig, &reply, &e) == -EPERM,
	      "allowed");
	e = exp_to("198.51.100.5", NULL);
	e.family = AF_INET6;
	CHECK("guard/other-family", guard_expect_check(&g, &orig, &reply, &e) == -EPERM, "allowed");
}

static void test_nat_target(void)
{
	struct guard g = GUARD_DEFAULT;
	struct cth_expect e = exp_to("203.0.113.1", NULL);

	tuples_snat();
	e.flags |= CTH_EXPECT_NAT;
	e.nat_dir = CTH_DIR_REPLY;
	e.nat_addr = a4("10.7.7.7");
	e.fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
	CHECK("guard/nat-follow-master-ignores-nat-addr",
	      guard_expect_check(&g, &orig, &reply, &e) == 0, "refused");
	e.fn = "sip";
	CHECK("guard/nat-other-fn-third-party", guard_expect_check(&g, &orig, &reply, &e) == -EPERM,
	      "allowed a forward to 10.7.7.7");
	e.fn = NULL;
	CHECK("guard/nat-no-fn-third-party", guard_expect_check(&g, &orig, &reply, &e) == -EPERM,
	      "allowed");
	e.nat_addr = orig.src;
	e.fn = "sip";
	CHECK("guard/nat-other-fn-master", guard_expect_check(&g, &orig, &reply, &e) == 0,
	      "refused");
	e.nat_addr = a4("10.7.7.7");
	CHECK("guard/networks-parse", guard_networks_parse(&g, "10.7.0.0/16") == 0, "refused");
	CHECK("guard/nat-other-fn-in-networks", guard_expect_check(&g, &orig, &reply, &e) == 0,
	      "refused");
}

static void test_networks(void)
{
	struct guard g = GUARD_DEFAULT;
	struct cth_expect e;

	tuples_snat();
	CHECK("guard/networks-list",
	      guard_networks_parse(&g, "10.1.0.0/16, 2001:db8::/32 192.0.2.7") == 0 && g.n_nets == 3,
	      "n=%u", g.n_nets);
	e = exp_to("10.1.200.3", "192.168.1.10");
	CHECK("guard/networks-inside", guard_expect_check(&g, &orig, &reply, &e) == 0, "refused");
	e = exp_to("10.2.0.3", "192.168.1.10");
	CHECK("guard/networks-outside", guard_expect_check(&g, &orig, &reply, &e) == -EPERM,
	      "allowed");
	e = exp_to("192.0.2.7", "192.168.1.10");
	CHECK("guard/networks-host", guard_expect_check(&g, &orig, &reply, &e) == 0, "refused");
	e = exp_to("198.51.100.5", "192.168.1.10");
	CHECK("guard/networks-master-always", guard_expect_check(&g, &orig, &reply, &e) == 0,
	      "refused");

	struct guard h = GUARD_DEFAULT;
	const char *bad[] = { "", "10.0.0.0/33", "10.0.0.0/", "300.1.1.1", "::/129", "10.0.0.0/8x",
			      "a b", "10.0.0.0/-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "guard/networks-bad-%zu", i);
		CHECK(name, guard_networks_parse(&h, bad[i]) == -EINVAL && h.n_nets == 0,
		      "'%s' accepted", bad[i]);
	}
	char many[1024] = "";
	for (int i = 0; i <= GUARD_MAX_NETS; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "10.%d.0.0/16 ", i);
	CHECK("guard/networks-too-many", guard_networks_parse(&h, many) == -EINVAL, "accepted");

	/* IPv6: prefix bits in the middle of a byte */
	struct guard g6 = GUARD_DEFAULT;
	struct cth_tuple o6 = { .family = AF_INET6, .proto = IPPROTO_TCP }, r6;
	o6.src = a6("2001:db8:1::10");
	o6.dst = a6("2001:db8:2::20");
	r6 = o6;
	r6.src = o6.dst;
	r6.dst = o6.src;
	guard_networks_parse(&g6, "2001:db8:ff00::/36");
	struct cth_expect x = { .family = AF_INET6, .proto = IPPROTO_TCP, .dport = 1521 };
	x.src = o6.src;
	x.dst = a6("2001:db8:f000::1");
	CHECK("guard/networks-v6-inside", guard_expect_check(&g6, &o6, &r6, &x) == 0, "refused");
	x.dst = a6("2001:db8:e000::1");
	CHECK("guard/networks-v6-outside", guard_expect_check(&g6, &o6, &r6, &x) == -EPERM,
	      "allowed");
}

static void test_mark(void)
{
	struct guard g = GUARD_DEFAULT;
	bool masked;

	CHECK("guard/mark-default-none", guard_mark(&g, 77, &masked) == 0 && masked,
	      "default mask lets a mark through");
	CHECK("guard/mark-mask-parse", guard_mark_mask_parse(&g, "0xff00") == 0 &&
	      g.mark_mask == 0xff00, "mask %#x", g.mark_mask);
	CHECK("guard/mark-inside", guard_mark(&g, 0x1200, &masked) == 0x1200 && !masked, "masked");
	CHECK("guard/mark-outside", guard_mark(&g, 0x1234, &masked) == 0x1200 && masked,
	      "not masked");
	CHECK("guard/mark-mask-decimal", guard_mark_mask_parse(&g, "4294967295") == 0 &&
	      g.mark_mask == 0xffffffffu, "mask %#x", g.mark_mask);
	CHECK("guard/mark-mask-bad", guard_mark_mask_parse(&g, "0x100000000") == -EINVAL &&
	      guard_mark_mask_parse(&g, "-1") == -EINVAL && guard_mark_mask_parse(&g, "ff") == -EINVAL &&
	      guard_mark_mask_parse(&g, "") == -EINVAL, "accepted");
}

/* A source network (CTH_EXPECT_SRC_PREFIX): never the master's own
 * address; with expect_networks it must lie wholly inside one. */
static void test_src_network(void)
{
	struct guard g = GUARD_DEFAULT;
	struct cth_expect e;

	tuples_snat();
	e = exp_to("192.168.1.10", "198.51.100.0");
	e.flags = CTH_EXPECT_SRC_PREFIX;
	e.src_prefix = 24;
	CHECK("guard/src-net-to-master", guard_expect_check(&g, &orig, &reply, &e) == 0,
	      "refused");
	e = exp_to("10.9.9.9", "192.168.1.10");
	e.flags = CTH_EXPECT_SRC_PREFIX;
	e.src_prefix = 24;
	CHECK("guard/src-net-not-master (its first address is)",
	      guard_expect_check(&g, &orig, &reply, &e) == -EPERM, "allowed");
	e.src_prefix = 32;
	CHECK("guard/src-net-full-length-is-an-address",
	      guard_expect_check(&g, &orig, &reply, &e) == 0, "refused");
	guard_networks_parse(&g, "198.51.100.0/24, 10.0.0.0/8");
	e = exp_to("192.168.1.10", "198.51.100.0");
	e.flags = CTH_EXPECT_SRC_PREFIX;
	e.src_prefix = 25;
	CHECK("guard/src-net-inside-networks", guard_expect_check(&g, &orig, &reply, &e) == 0,
	      "refused");
	e.src_prefix = 23;
	CHECK("guard/src-net-wider-than-networks",
	      guard_expect_check(&g, &orig, &reply, &e) == -EPERM, "allowed");
	e = exp_to("192.168.1.10", "172.16.0.0");
	e.flags = CTH_EXPECT_SRC_PREFIX;
	e.src_prefix = 16;
	CHECK("guard/src-net-outside-networks",
	      guard_expect_check(&g, &orig, &reply, &e) == -EPERM, "allowed");
}

int main(void)
{
	test_src_network();
	test_master_rule();
	test_nat_target();
	test_networks();
	test_mark();
	return check_exit();
}
