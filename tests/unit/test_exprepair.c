/* SPDX-License-Identifier: MIT */
/*
 * server/kernel/exprepair.c's mapping for an expectation a failover peer's
 * conntrackd committed without its NAT: derived from the master's own
 * NAT, only for the address that NAT made or hid; and its event path
 * against the emulated kernel (nlfake.c): only expectations another
 * program created are repaired (issue 27), ours made on a verdict are
 * counted created.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "check.h"
#include "kernel/expect.h"
#include "kernel/exprepair.h"
#include "nlfake.h"
#include "kernel/portids.h"

static struct cth_tuple tup(const char *s, uint16_t sp, const char *d, uint16_t dp)
{
	struct cth_tuple t = { .family = AF_INET, .proto = IPPROTO_UDP,
			       .sport = sp, .dport = dp };

	inet_pton(AF_INET, s, &t.src.ip);
	inet_pton(AF_INET, d, &t.dst.ip);
	return t;
}

static bool addr_is(const union cth_addr *a, const char *s)
{
	uint32_t ip;

	inet_pton(AF_INET, s, &ip);
	return a->ip == ip;
}

static void test_derive(void)
{
	struct exprepair_nat nat;
	/* phone 10.0.1.2 SNATed to 10.0.2.100, registrar 10.0.2.2 */
	struct cth_tuple o = tup("10.0.1.2", 5060, "10.0.2.2", 5060);
	struct cth_tuple r = tup("10.0.2.2", 5060, "10.0.2.100", 5060);
	struct cth_tuple e = tup("10.0.2.2", 0, "10.0.2.100", 5060);
	struct cth_tuple routed = tup("10.0.2.2", 5060, "10.0.1.2", 5060);
	/* client 10.0.1.2 dials 10.0.1.1, DNATed to the server 10.0.2.2 */
	struct cth_tuple dno = tup("10.0.1.2", 40000, "10.0.1.1", 21);
	struct cth_tuple dnr = tup("10.0.2.2", 21, "10.0.1.2", 40000);
	struct cth_tuple dne = tup("10.0.1.2", 0, "10.0.1.1", 50000);

	CHECK("exprepair/snat", exprepair_derive(&o, &r, &e, &nat) &&
	      nat.dir == CTH_DIR_REPLY && addr_is(&nat.addr, "10.0.1.2") && nat.port == 5060,
	      "no or a wrong mapping");
	e.dport = 40002;
	CHECK("exprepair/snat-port-kept", exprepair_derive(&o, &r, &e, &nat) &&
	      nat.port == 40002, "port %u", nat.port);
	e = tup("10.0.2.2", 0, "10.0.2.7", 5060);
	CHECK("exprepair/snat-other-address", !exprepair_derive(&o, &r, &e, &nat),
	      "an address the master's NAT did not make was mapped");
	e = tup("10.0.2.2", 0, "10.0.1.2", 5060);
	CHECK("exprepair/routed", !exprepair_derive(&o, &routed, &e, &nat),
	      "a master without NAT gave a mapping");
	CHECK("exprepair/dnat", exprepair_derive(&dno, &dnr, &dne, &nat) &&
	      nat.dir == CTH_DIR_ORIGINAL && addr_is(&nat.addr, "10.0.2.2") &&
	      nat.port == 50000, "no or a wrong mapping");
	dne.family = AF_INET6;
	CHECK("exprepair/family", !exprepair_derive(&dno, &dnr, &dne, &nat),
	      "an IPv6 expectation of an IPv4 master was mapped");
}

#define OUR_QUEUE 1001u
#define OUR_REQUEST 1002u
#define CONNTRACKD 4242u

static struct runtime rt;
static struct runtime *_Atomic rtp = &rt;
static struct stats_block host;
static struct nlreq req;
static struct exprepair x = { .req = &req, .rtp = &rtp, .stats = &host };

/* The kernel's EXP_NEW event for e of master pkt, sent on behalf of pid. */
static void event(const struct cth_expect *e, const struct cth_packet *pkt,
		  const char *helper, uint32_t pid)
{
	char buf[NLREQ_BUF];
	struct nlmsghdr *nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP,
					     IPCTNL_MSG_EXP_NEW, NLM_F_CREATE, e->family);

	if (expect_put(nlh, e, pkt, helper, true) < 0) {
		CHECK("exprepair/event-build", 0, "expect_put failed");
		return;
	}
	/* an event names the master's helper (Linux 6.1
	 * ctnetlink_exp_dump_expect()); a request names it only for a helped
	 * expected connection */
	mnl_attr_put_strz(nlh, CTA_EXPECT_HELP_NAME, helper);
	nlh->nlmsg_pid = pid;
	mnl_cb_run(buf, nlh->nlmsg_len, 0, 0, exprepair_event, &x);
}

static uint64_t created(void)
{
	return host.h[0][STATS_H_EXPECT_CREATED];
}

static void test_events(void)
{
	/* sip_direct_media = no behind SNAT: the callee's answer names the
	 * router's public address; the plugin expects any -> 10.0.2.100:3306
	 * without NAT (issue 27's hole) */
	struct cth_packet pkt = { 0 };
	struct cth_expect e = { .family = AF_INET, .proto = IPPROTO_UDP, .dport = 3306,
				.flags = CTH_EXPECT_ANY_SRC };

	rt.n_inst = 1;
	snprintf(rt.inst[0].name, sizeof(rt.inst[0].name), "sip");
	rt.inst[0].families = CTH_FAMILY_IPV4;
	rt.inst[0].protocols = CTH_PROTO_UDP;
	rt.inst[0].guard = GUARD_DEFAULT;
	pkt.tuple[0] = tup("10.0.1.2", 5060, "10.0.2.2", 5060);
	pkt.tuple[1] = tup("10.0.2.2", 5060, "10.0.2.100", 5060);
	inet_pton(AF_INET, "10.0.2.100", &e.dst.ip);
	portids_add(OUR_QUEUE, PORTID_QUEUE);
	portids_add(OUR_REQUEST, PORTID_REQUEST);

	nlfake_reset();
	nlfake_master_add_nat(&pkt.tuple[0], &pkt.tuple[1]);
	/* 6.1 reports a verdict's NFQA_EXP with port id 0 (tests/host
	 * verdict-expectations-counted) */
	event(&e, &pkt, "sip", 0);
	CHECK("exprepair/ours-verdict-not-repaired", nlfake.requests == 0 && nlfake.n == 0,
	      "%u kernel requests, %u expectations made for our own NAT-less expectation",
	      nlfake.requests, nlfake.n);
	CHECK("exprepair/ours-verdict-counted-created", created() == 1,
	      "created %llu, want 1", (unsigned long long)created());
	event(&e, &pkt, "sip", OUR_QUEUE);
	CHECK("exprepair/ours-queue-portid-not-repaired", nlfake.requests == 0,
	      "%u kernel requests", nlfake.requests);
	CHECK("exprepair/ours-queue-portid-counted", created() == 2,
	      "created %llu, want 2", (unsigned long long)created());
	event(&e, &pkt, "sip", OUR_REQUEST);
	CHECK("exprepair/ours-ctnetlink-not-repaired", nlfake.requests == 0,
	      "%u kernel requests", nlfake.requests);
	CHECK("exprepair/ours-ctnetlink-not-counted", created() == 2,
	      "created %llu: counted twice (the ack counted it)", (unsigned long long)created());

	event(&e, &pkt, "sip", CONNTRACKD);
	CHECK("exprepair/foreign-repaired", nlfake.gets == 1 && nlfake.dels == 1 &&
	      nlfake.news == 1 && nlfake.n == 1,
	      "gets %u dels %u news %u, table %u", nlfake.gets, nlfake.dels, nlfake.news, nlfake.n);
	CHECK("exprepair/foreign-not-counted", created() == 2, "created %llu",
	      (unsigned long long)created());

	nlfake_reset();
	nlfake_master_add_nat(&pkt.tuple[0], &pkt.tuple[1]);
	event(&e, &pkt, "other", CONNTRACKD);
	CHECK("exprepair/foreign-helper-left-alone", nlfake.requests == 0, "%u requests",
	      nlfake.requests);
	/* a kernel helper's own (port id 0, a master that is not ours) */
	event(&e, &pkt, "other", 0);
	CHECK("exprepair/kernel-own-left-alone", nlfake.requests == 0 && created() == 2,
	      "%u requests, created %llu", nlfake.requests, (unsigned long long)created());

	nlfake_reset();
	nlfake_master_add_nat(&pkt.tuple[0], &pkt.tuple[1]);
	e.flags |= CTH_EXPECT_NAT;
	e.nat_dir = CTH_DIR_REPLY;
	e.nat_addr = pkt.tuple[0].src;
	e.nat_port = 3306;
	e.fn = CTH_EXPECT_FN_NAT_FOLLOW_MASTER;
	event(&e, &pkt, "sip", CONNTRACKD);
	CHECK("exprepair/foreign-with-nat-left-alone", nlfake.requests == 0, "%u requests",
	      nlfake.requests);
	event(&e, &pkt, "sip", 0);
	CHECK("exprepair/ours-verdict-nat-counted", created() == 3, "created %llu",
	      (unsigned long long)created());

	/* the master is gone: nothing made, nothing counted */
	nlfake_reset();
	e.flags &= ~(unsigned)CTH_EXPECT_NAT;
	event(&e, &pkt, "sip", CONNTRACKD);
	CHECK("exprepair/foreign-master-gone", nlfake.gets == 1 && nlfake.news == 0,
	      "gets %u news %u", nlfake.gets, nlfake.news);
	portids_del(OUR_QUEUE);
	event(&e, &pkt, "sip", OUR_QUEUE);
	CHECK("exprepair/portid-forgotten", nlfake.gets == 2, "gets %u", nlfake.gets);
}

int main(void)
{
	test_derive();
	test_events();
	return check_exit();
}
