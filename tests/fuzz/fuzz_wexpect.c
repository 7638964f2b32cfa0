/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the worker's expectation backend
 * (server/worker/worker_expect.c) and detach glue
 * (server/worker/worker_detach.c) against the emulated kernel table
 * of tests/unit/nlfake.c.  The input is a sequence of operations, two
 * bytes each (op, argument): a new packet (confirmed master or not),
 * cth_expect() with or without CTH_EXPECT_SYNC, helped, with a function
 * name, FLUSH of a class or all, REMOVE, REFRESH, the verdict (what waits
 * for it runs, accepted or dropped), a detach decision, a detach poll,
 * and a kernel that fails every request.
 *
 * Checked after every operation, abort on violation: at most one
 * expectation dump per packet, at most WORKER_KREQ_MAX kernel requests
 * per packet, at most WORKER_EXPECT_MAX expectations made per packet and
 * no negative answer for the limit, the deferred list within its bound
 * with every function name its own slot's.
 */
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "fuzz_common.h"
#include "../unit/nlfake.h"
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
static unsigned int dumps0, req0;
static uint64_t now;

static void fz_packet(bool confirmed)
{
	worker_kreq_end(&kq);
	memset(&wp, 0, sizeof(wp));
	worker_expect_pkt_init(&wp, &kq, &st);
	c.n_expect = 0;
	c.detach = false;
	c.pkt.ct_status = confirmed ? CTH_CT_CONFIRMED : 0;
	if (confirmed && nlfake.n_master == 0)
		nlfake_master_add(&c.pkt.tuple[0]);
	dumps0 = nlfake.dumps;
	req0 = nlfake.requests;
	worker_kreq_begin(&kq, c.inst);
}

static void fz_setup(void)
{
	memset(&st, 0, sizeof(st));
	if (!kq.list && worker_kreq_init(&kq, &ctnl, &verdict, &st) < 0)
		abort();
	memset(&wd, 0, sizeof(wd));
	worker_detach_init(&wd, &kq, &st, &rt_now);
	memset(&rt, 0, sizeof(rt));
	rt.n_inst = 1;
	strcpy(rt.inst[0].name, "fz");
	rt.inst[0].n_classes = 4;
	nlfake_reset();
	memset(&c, 0, sizeof(c));
	c.inst = &rt.inst[0];
	c.backend = &wp;
	c.pkt.ct_id = 1;
	c.pkt.tuple[0] = (struct cth_tuple){ .family = AF_INET, .proto = IPPROTO_TCP,
					     .sport = 5060, .dport = 5060 };
	c.pkt.tuple[0].src.ip = htonl(0x0a000001);
	c.pkt.tuple[0].dst.ip = htonl(0x0a000002);
	c.pkt.tuple[1] = c.pkt.tuple[0];
	now = 0;
	fz_packet(true);
}

/* An expectation from one argument byte: class, port, flags. */
static struct cth_expect fz_exp(uint8_t a)
{
	struct cth_expect e = { .class = a & 3u, .family = AF_INET, .proto = IPPROTO_UDP,
				.dport = (uint16_t)(20000 + ((a >> 2) & 7u)) };

	e.src.ip = htonl(0x0a000002);
	e.dst.ip = htonl(0x0a000001);
	if (a & 0x20)
		e.flags |= CTH_EXPECT_HELPER;
	if (a & 0x40)
		e.fn = "nat-follow-master";
	return e;
}

static void fz_check(void)
{
	FZ_ASSERT(nlfake.dumps - dumps0 <= 1, "more than one dump in a packet");
	FZ_ASSERT(nlfake.requests - req0 <= WORKER_KREQ_MAX, "kernel requests past the bound");
	FZ_ASSERT(c.n_expect <= WORKER_EXPECT_MAX, "expectations past the limit");
	FZ_ASSERT(wp.n_later <= WORKER_EXPECT_MAX, "deferred list past its bound");
	for (unsigned int i = 0; i < wp.n_later; i++)
		FZ_ASSERT(!wp.later[i].fn || wp.later[i].fn == wp.later_fn[i],
			 "a deferred function name outside its slot");
	FZ_ASSERT(!wp.has_exp || !wp.exp.fn || wp.exp.fn == wp.fn,
		 "the verdict's function name outside its slot");
}

static void fz_op(uint8_t op, uint8_t a)
{
	struct cth_expect e = fz_exp(a);
	int rc;

	switch (op % 10u) {
	case 0:
		fz_packet(a & 1);
		break;
	case 1:
		rc = worker_expect(&c, &e, (a & 0x80) ? CTH_EXPECT_SYNC : 0);
		FZ_ASSERT(rc != -ENOSPC || nlfake.requests - req0 == WORKER_KREQ_MAX,
			 "-ENOSPC for the expectation limit");
		break;
	case 2:
		worker_expect_ctl(&c, CTH_EXPECT_OP_FLUSH, (a & 0x80) ? NULL : &e);
		break;
	case 3:
		worker_expect_ctl(&c, CTH_EXPECT_OP_REMOVE, &e);
		break;
	case 4:
		e.timeout = a & 0x80 ? 30 : 0;
		worker_expect_ctl(&c, CTH_EXPECT_OP_REFRESH, &e);
		break;
	case 5:
		worker_expect_sent(&wp, &c);
		worker_expect_later(&wp, &c, (a & 1) ? CTH_VERDICT_DROP : CTH_VERDICT_ACCEPT);
		fz_packet(true);
		break;
	case 6:
		c.detach = true;
		worker_detach_decide(&wd, &wp, &c, now);
		break;
	case 7:
		worker_kreq_end(&kq);
		now += a;
		worker_detach_poll(&wd, now);
		fz_packet(c.pkt.ct_status & CTH_CT_CONFIRMED);
		break;
	case 8:
		nlfake.fail_errno = (a & 1) ? (a & 2 ? EINTR : ENOBUFS) : 0;
		break;
	case 9:
		/* the expected connection came, or another packet's flush */
		if (nlfake.n)
			nlfake.n--;
		c.pkt.ct_id = 1u + (a & 3u);   /* another connection for the detach table */
		break;
	}
	fz_check();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool quiet;

	if (!quiet) {
		log_init(LOG_L_ERR, 0);
		quiet = true;
	}
	fz_setup();
	for (size_t i = 0; i + 1 < size && i < 2 * 512; i += 2)
		fz_op(data[i], data[i + 1]);
	worker_kreq_end(&kq);
	return 0;
}
