/* SPDX-License-Identifier: MIT */
/* The worker's expectations (worker_expect.c, worker_detach.c, worker_kreq.c)
 * against nlfake.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "kernel/expect.h"
#include "kernel/nlreq.h"
#include "base/log.h"
#include "nlfake.h"
#include "worker/worker_detach.h"
#include "worker/worker_expect.h"
#include "worker/worker_kreq.h"
#include "runtime/stats.h"

static struct stats_block st;
static struct nlreq ctnl;               /* nlfake.c answers for the kernel */
static struct worker_verdict verdict;   /* none collected: none go first */
static struct worker_kreq kq;
static struct worker_detach wd;
static struct runtime rt;
static struct runtime *_Atomic rt_now = &rt;
static struct worker_expect_pkt wp;
static struct pkt_call c;

static uint64_t cnt(enum stats_helper_counter k)
{
	return st.h[0][k];
}

/* A fresh worker and table; a master 10.0.0.1:5060 -> 10.0.0.2:5060
 * (TCP), known to the table when confirmed. */
static void setup(bool confirmed)
{
	memset(&st, 0, sizeof(st));
	if (!kq.list && worker_kreq_init(&kq, &ctnl, &verdict, &st) < 0)
		abort();
	memset(&wd, 0, sizeof(wd));
	worker_detach_init(&wd, &kq, &st, &rt_now);
	memset(&rt, 0, sizeof(rt));
	rt.n_inst = 1;
	strcpy(rt.inst[0].name, "sip");
	rt.inst[0].n_classes = 4;
	nlfake_reset();
	memset(&c, 0, sizeof(c));
	c.inst = &rt.inst[0];
	c.backend = &wp;
	c.pkt.ct_id = 7;
	c.pkt.tuple[0] = (struct cth_tuple){ .family = AF_INET, .proto = IPPROTO_TCP,
					     .sport = 5060, .dport = 5060 };
	c.pkt.tuple[0].src.ip = htonl(0x0a000001);
	c.pkt.tuple[0].dst.ip = htonl(0x0a000002);
	c.pkt.tuple[1] = c.pkt.tuple[0];
	if (confirmed) {
		c.pkt.ct_status = CTH_CT_CONFIRMED;
		nlfake_master_add(&c.pkt.tuple[0]);
	}
	worker_expect_pkt_init(&wp, &kq, &st);
	worker_kreq_begin(&kq, c.inst);
}

/* The next packet of the same connection. */
static void next_packet(void)
{
	worker_kreq_end(&kq);
	memset(&wp, 0, sizeof(wp));
	worker_expect_pkt_init(&wp, &kq, &st);
	c.n_expect = 0;
	worker_kreq_begin(&kq, c.inst);
}

static struct cth_expect media(unsigned int class, uint16_t port)
{
	struct cth_expect e = { .class = class, .family = AF_INET, .proto = IPPROTO_UDP,
				.dport = port };

	e.src.ip = htonl(0x0a000002);
	e.dst.ip = htonl(0x0a000001);
	return e;
}

static void test_flush_one_dump(void)
{
	int sum = 0;

	setup(true);
	for (unsigned int k = 1; k <= 3; k++) {
		struct cth_expect e = media(k, (uint16_t)(20000 + 2 * k));

		worker_expect(&c, &e, CTH_EXPECT_SYNC);
	}
	CHECK("wexpect/setup-three", nlfake_count(&c.pkt.tuple[0]) == 3, "%u in table",
	      nlfake_count(&c.pkt.tuple[0]));
	next_packet();
	/* one segment of 100 BYEs, each flushing the three media classes */
	for (unsigned int m = 0; m < 100; m++)
		for (unsigned int k = 1; k <= 3; k++) {
			struct cth_expect sel = { .class = k };
			int rc = worker_expect_ctl(&c, CTH_EXPECT_OP_FLUSH, &sel);

			sum += rc > 0 ? rc : 0;
		}
	CHECK("wexpect/flush-one-dump", nlfake.dumps == 1 && cnt(STATS_H_EXPECT_DUMPS) == 1,
	      "%u dumps, counted %llu", nlfake.dumps,
	      (unsigned long long)cnt(STATS_H_EXPECT_DUMPS));
	CHECK("wexpect/flush-removes-all", sum == 3 && nlfake_count(&c.pkt.tuple[0]) == 0 &&
	      nlfake.dels == 3, "removed %d, %u left, %u deletes", sum,
	      nlfake_count(&c.pkt.tuple[0]), nlfake.dels);
	/* created in the packet after the dump: a later flush finds it */
	{
		struct cth_expect e = media(1, 30000), sel = { .class = 1 };

		worker_expect(&c, &e, CTH_EXPECT_SYNC);
		CHECK("wexpect/flush-sees-new", worker_expect_ctl(&c, CTH_EXPECT_OP_FLUSH, &sel) == 1 &&
		      nlfake.dumps == 1 && nlfake_count(&c.pkt.tuple[0]) == 0,
		      "%u dumps, %u left", nlfake.dumps, nlfake_count(&c.pkt.tuple[0]));
	}
	next_packet();
	worker_expect_ctl(&c, CTH_EXPECT_OP_FLUSH, NULL);
	CHECK("wexpect/dump-per-packet", nlfake.dumps == 2, "%u dumps", nlfake.dumps);
}

static void test_kernel_cap(void)
{
	unsigned int refused = 0;

	setup(true);
	for (unsigned int i = 0; i < WORKER_KREQ_MAX + 6; i++) {
		struct cth_expect e = media(1, (uint16_t)(40000 + i));

		if (worker_expect_ctl(&c, CTH_EXPECT_OP_REMOVE, &e) == -ENOSPC)
			refused++;
	}
	CHECK("wexpect/cap-bounds-requests", nlfake.requests == WORKER_KREQ_MAX && refused == 6 &&
	      cnt(STATS_H_KERNEL_CAPPED) == 6, "%u requests, %u refused, %llu counted",
	      nlfake.requests, refused, (unsigned long long)cnt(STATS_H_KERNEL_CAPPED));
	next_packet();
	{
		struct cth_expect e = media(1, 40000);

		CHECK("wexpect/cap-per-packet", worker_expect(&c, &e, CTH_EXPECT_SYNC) == 0 &&
		      nlfake_count(&c.pkt.tuple[0]) == 1, "next packet refused");
	}
}

static void test_over_limit(void)
{
	unsigned int ok = 0;

	setup(true);
	for (unsigned int i = 0; i < 20; i++) {
		struct cth_expect e = media(1, (uint16_t)(50000 + 2 * i));

		ok += worker_expect(&c, &e, CTH_EXPECT_SYNC) == 0;
	}
	CHECK("wexpect/over-limit-not-fatal", ok == 20, "%u of 20 answered 0", ok);
	CHECK("wexpect/over-limit-keeps-16", nlfake_count(&c.pkt.tuple[0]) == 16 &&
	      cnt(STATS_H_EXPECT_CREATED) == 16 && cnt(STATS_H_EXPECT_OVER_LIMIT) == 4 &&
	      cnt(STATS_H_EXPECT_FAILED) == 0, "%u made, created %llu, over %llu, failed %llu",
	      nlfake_count(&c.pkt.tuple[0]), (unsigned long long)cnt(STATS_H_EXPECT_CREATED),
	      (unsigned long long)cnt(STATS_H_EXPECT_OVER_LIMIT),
	      (unsigned long long)cnt(STATS_H_EXPECT_FAILED));
	/* an unconfirmed master: the deferred list is the limit */
	setup(false);
	ok = 0;
	for (unsigned int i = 0; i < 20; i++) {
		struct cth_expect e = media(1, (uint16_t)(50000 + 2 * i));

		ok += worker_expect(&c, &e, CTH_EXPECT_SYNC) == 0;
	}
	CHECK("wexpect/over-limit-unconfirmed", ok == 20 && wp.n_later == 16 &&
	      cnt(STATS_H_EXPECT_OVER_LIMIT) == 4, "%u ok, %u deferred", ok, wp.n_later);
}

static void test_forget_last(void)
{
	struct cth_expect rtp = media(1, 20000), rtcp = media(1, 20001);

	setup(false);
	rtp.fn = rtcp.fn = "nat-follow-master";
	worker_expect(&c, &rtp, CTH_EXPECT_SYNC);
	worker_expect(&c, &rtcp, CTH_EXPECT_SYNC);
	/* RTCP taken back: the last deferred slot (i == n_later after the
	 * decrement; ASan flagged strcpy-param-overlap there) */
	CHECK("wexpect/forget-last", wp.n_later == 2 &&
	      worker_expect_ctl(&c, CTH_EXPECT_OP_REMOVE, &rtcp) == 1 && wp.n_later == 1 &&
	      wp.later[0].dport == 20000 && strcmp(wp.later[0].fn, "nat-follow-master") == 0,
	      "%u deferred", wp.n_later);
	worker_expect(&c, &rtcp, CTH_EXPECT_SYNC);
	CHECK("wexpect/forget-first-moves-last",
	      worker_expect_ctl(&c, CTH_EXPECT_OP_REMOVE, &rtp) == 1 && wp.n_later == 1 &&
	      wp.later[0].dport == 20001 && wp.later[0].fn == wp.later_fn[0] &&
	      strcmp(wp.later[0].fn, "nat-follow-master") == 0, "%u deferred", wp.n_later);
}

static void test_sent_vs_created(void)
{
	struct cth_expect a = media(1, 20000), b = media(1, 20002);

	setup(true);
	worker_expect(&c, &a, 0);            /* rides on the verdict */
	worker_expect(&c, &b, CTH_EXPECT_SYNC);
	worker_expect_sent(&wp, &c);
	CHECK("wexpect/sent-not-created", cnt(STATS_H_EXPECT_SENT) == 1 &&
	      cnt(STATS_H_EXPECT_CREATED) == 1 && nlfake_count(&c.pkt.tuple[0]) == 1,
	      "sent %llu, created %llu", (unsigned long long)cnt(STATS_H_EXPECT_SENT),
	      (unsigned long long)cnt(STATS_H_EXPECT_CREATED));
	/* a helped one takes the verdict's place: the held one is made over
	 * ctnetlink and counts by that answer */
	next_packet();
	a.dport = 21000;
	b.dport = 21002;
	b.flags = CTH_EXPECT_HELPER;
	worker_expect(&c, &a, 0);
	worker_expect(&c, &b, 0);
	worker_expect_sent(&wp, &c);
	CHECK("wexpect/moved-off-verdict-created", cnt(STATS_H_EXPECT_SENT) == 2 &&
	      cnt(STATS_H_EXPECT_CREATED) == 2, "sent %llu, created %llu",
	      (unsigned long long)cnt(STATS_H_EXPECT_SENT),
	      (unsigned long long)cnt(STATS_H_EXPECT_CREATED));
}

/*
 * A master not confirmed yet: the first rides on the verdict (an answer
 * may come before anything made after it) and has a shadow made by
 * tuple after the verdict (a datagram queued behind its flow's first
 * has a conntrack the clash resolution frees, with the verdict's copy);
 * the others are made after the verdict.  The verdict's copy counts as
 * created from its event (exprepair.c), the shadow never.
 */
static void test_unconfirmed_deferred(void)
{
	struct cth_expect rtp = media(1, 22000), rtcp = media(1, 22001);
	struct nlfake_exp verdict_copy;

	setup(false);
	worker_expect(&c, &rtp, 0);
	worker_expect(&c, &rtcp, 0);
	CHECK("wexpect/unconfirmed-verdict-and-shadow", wp.has_exp && wp.exp.dport == 22000 &&
	      wp.n_later == 2 && wp.later[0].dport == 22000 &&
	      wp.later_how[0] == WORKER_LATER_SHADOW && wp.later[1].dport == 22001 &&
	      wp.later_how[1] == WORKER_LATER_CREATE,
	      "held %d (port %u), %u deferred", wp.has_exp, wp.exp.dport, wp.n_later);
	/* the verdict's copy went with a conntrack that lost the clash */
	worker_expect_sent(&wp, &c);
	nlfake_master_add(&c.pkt.tuple[0]);
	worker_expect_later(&wp, &c, CTH_VERDICT_ACCEPT);
	CHECK("wexpect/shadow-stands-in", nlfake_count(&c.pkt.tuple[0]) == 2 &&
	      cnt(STATS_H_EXPECT_SENT) == 1 && cnt(STATS_H_EXPECT_CREATED) == 1 &&
	      cnt(STATS_H_EXPECT_FAILED) == 0, "%u made, sent %llu, created %llu, failed %llu",
	      nlfake_count(&c.pkt.tuple[0]), (unsigned long long)cnt(STATS_H_EXPECT_SENT),
	      (unsigned long long)cnt(STATS_H_EXPECT_CREATED),
	      (unsigned long long)cnt(STATS_H_EXPECT_FAILED));
	verdict_copy = nlfake.e[0];
	/* a retransmission with a conntrack of its own: the master's entry
	 * holds it, nothing rides on the verdict (it would clash) */
	next_packet();
	c.pkt.ct_status = 0;
	worker_expect(&c, &rtp, 0);
	CHECK("wexpect/unconfirmed-already-made", !wp.has_exp && wp.n_later == 0 &&
	      cnt(STATS_H_EXPECT_CREATED) == 2, "held %d, %u deferred, created %llu",
	      wp.has_exp, wp.n_later, (unsigned long long)cnt(STATS_H_EXPECT_CREATED));
	/* the verdict's copy lives: the shadow's EEXIST is it */
	setup(false);
	worker_expect(&c, &rtp, 0);
	nlfake_master_add(&c.pkt.tuple[0]);
	nlfake.e[nlfake.n++] = verdict_copy;
	worker_expect_later(&wp, &c, CTH_VERDICT_ACCEPT);
	CHECK("wexpect/shadow-finds-verdict-copy", nlfake_count(&c.pkt.tuple[0]) == 1 &&
	      cnt(STATS_H_EXPECT_CREATED) == 0 && cnt(STATS_H_EXPECT_FAILED) == 0,
	      "%u made, created %llu, failed %llu", nlfake_count(&c.pkt.tuple[0]),
	      (unsigned long long)cnt(STATS_H_EXPECT_CREATED),
	      (unsigned long long)cnt(STATS_H_EXPECT_FAILED));
	/* a helped one takes the verdict's place: the shadow is the creation */
	setup(false);
	worker_expect(&c, &rtp, 0);
	rtcp.flags = CTH_EXPECT_HELPER;
	worker_expect(&c, &rtcp, 0);
	rtcp.flags = 0;
	CHECK("wexpect/unshadowed-by-helped", wp.has_exp && wp.exp.dport == 22001 &&
	      wp.n_later == 1 && wp.later_how[0] == WORKER_LATER_CREATE &&
	      wp.later[0].dport == 22000, "held port %u, %u deferred", wp.exp.dport, wp.n_later);
	/* dropped: the shadow of a copy never made is no failure */
	setup(false);
	worker_expect(&c, &rtp, 0);
	worker_expect_later(&wp, &c, CTH_VERDICT_DROP);
	CHECK("wexpect/shadow-dropped", cnt(STATS_H_EXPECT_FAILED) == 0 &&
	      nlfake_count(&c.pkt.tuple[0]) == 0, "failed %llu",
	      (unsigned long long)cnt(STATS_H_EXPECT_FAILED));
	/* confirmed: the first rides on the verdict, no shadow */
	setup(true);
	worker_expect(&c, &rtp, 0);
	worker_expect(&c, &rtcp, 0);
	CHECK("wexpect/confirmed-on-verdict", wp.has_exp && wp.exp.dport == 22000 &&
	      wp.n_later == 0 && nlfake_count(&c.pkt.tuple[0]) == 1,
	      "held %d, %u deferred", wp.has_exp, wp.n_later);
}

static void test_detach(void)
{
	struct cth_packet other;
	struct cth_expect e = media(1, 20000);

	/* nothing pending: detached on the verdict, one dump */
	setup(true);
	c.detach = true;
	CHECK("wexpect/detach-now", !worker_detach_decide(&wd, &wp, &c, 0) && c.detach &&
	      nlfake.dumps == 1 && cnt(STATS_H_DETACH_DONE) == 1, "dumps %u", nlfake.dumps);
	/* an expectation pending: waits, then the poll detaches once it is gone */
	setup(true);
	worker_expect(&c, &e, CTH_EXPECT_SYNC);
	next_packet();
	c.detach = true;
	CHECK("wexpect/detach-waits", worker_detach_decide(&wd, &wp, &c, 0) && !c.detach &&
	      wd.table.waiting == 1, "waiting %u", wd.table.waiting);
	worker_kreq_end(&kq);
	worker_detach_poll(&wd, 10);
	CHECK("wexpect/detach-poll-keeps", wd.table.waiting == 1 && nlfake.ct_updates == 0,
	      "waiting %u", wd.table.waiting);
	nlfake.n = 0;                        /* the expected connection came */
	worker_detach_poll(&wd, 30);
	CHECK("wexpect/detach-poll-done", wd.table.waiting == 0 && nlfake.detaches == 1 &&
	      cnt(STATS_H_DETACH_DONE) == 1, "waiting %u, detaches %u", wd.table.waiting,
	      nlfake.detaches);
	/* table full of waiting connections: this one stays helped */
	setup(true);
	other = c.pkt;
	for (unsigned int i = 0; i < DETACH_ENTRIES; i++) {
		other.ct_id = 1000 + i;
		detach_add(&wd.table, &other, "sip", DETACH_WAIT, 0);
	}
	worker_expect(&c, &e, CTH_EXPECT_SYNC);
	c.detach = true;
	CHECK("wexpect/detach-table-full", !worker_detach_decide(&wd, &wp, &c, 0) && !c.detach &&
	      cnt(STATS_H_DETACH_DEFERRED) == 0 && wd.table.refused == 1,
	      "refused %lu", wd.table.refused);
}

/* A source network (CTH_EXPECT_SRC_PREFIX) as the kernel gets it: the
 * network as the tuple's source, its prefix as CTA_EXPECT_MASK's source
 * (the only half of the mask Linux keeps), the destination exact. */
static void test_src_prefix_mask(void)
{
	static const char *const nets[2] = { "10.0.1.0", "fd00:1::" };
	static const unsigned int bits[2] = { 24, 61 };
	char buf[NLREQ_BUF];
	struct check ck;

	check_start(&ck, "wexpect/src-prefix-mask");
	for (int v6 = 0; v6 < 2; v6++) {
		int f = v6 ? AF_INET6 : AF_INET;
		struct cth_expect e = { .family = (uint8_t)f, .proto = IPPROTO_UDP, .dport = 40000,
					.flags = CTH_EXPECT_SRC_PREFIX | CTH_EXPECT_PERMANENT,
					.src_prefix = (uint8_t)bits[v6] };
		struct cth_packet pkt = { .tuple = { { .family = (uint8_t)f, .proto = IPPROTO_UDP,
						      .sport = 40000, .dport = 1900 } } };
		struct nlmsghdr *nlh;
		struct nf_expect *exp = nfexp_new();
		const struct nf_conntrack *mask, *tuple;
		struct cth_tuple m = { 0 }, t = { 0 };
		union cth_addr net = { 0 };

		inet_pton(f, nets[v6], e.src.raw);
		inet_pton(f, v6 ? "fd00:1::2" : "10.0.1.2", e.dst.raw);
		net = e.src;
		pkt.tuple[1] = pkt.tuple[0];
		nlh = nlreq_msg_put(buf, NFNL_SUBSYS_CTNETLINK_EXP, IPCTNL_MSG_EXP_NEW, 0,
				    (uint8_t)f);
		check_ret(&ck, expect_put(nlh, &e, &pkt, "ssdp", true), 0);
		check_that(&ck, exp && nfexp_nlmsg_parse(nlh, exp) == 0, "does not parse");
		mask = exp ? nfexp_get_attr(exp, ATTR_EXP_MASK) : NULL;
		tuple = exp ? nfexp_get_attr(exp, ATTR_EXP_EXPECTED) : NULL;
		check_that(&ck, mask && tuple, "no mask or tuple");
		if (mask && tuple) {
			expect_ct_get_tuple(mask, false, &m);
			expect_ct_get_tuple(tuple, false, &t);
			check_that(&ck, expect_mask_bits(f, &m.src) == (int)bits[v6],
				   "family %d: mask of %d bits", f, expect_mask_bits(f, &m.src));
			check_that(&ck, expect_mask_bits(f, &m.dst) == (v6 ? 128 : 32),
				   "family %d: destination not exact", f);
			check_that(&ck, memcmp(&t.src, &net, sizeof(net)) == 0 && m.sport == 0 &&
				   m.dport == 0xffff, "family %d: tuple", f);
		}
		if (exp)
			nfexp_destroy(exp);
	}
	{
		union cth_addr x = { .raw = { 0xff, 0xfe } };

		check_that(&ck, expect_mask_bits(AF_INET, &x) == 15, "ff.fe.0.0");
		x.raw[3] = 1;
		check_that(&ck, expect_mask_bits(AF_INET, &x) == -1, "ff.fe.0.1 is no prefix");
	}
	check_end(&ck);
}

int main(void)
{
	log_init(LOG_L_ERR, 0);
	test_src_prefix_mask();
	test_flush_one_dump();
	test_kernel_cap();
	test_over_limit();
	test_forget_last();
	test_sent_vs_created();
	test_unconfirmed_deferred();
	test_detach();
	worker_kreq_free(&kq);
	return check_exit();
}
