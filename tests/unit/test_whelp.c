/* SPDX-License-Identifier: MIT */
/*
 * The worker's batches (server/worker/worker_help.c) without a kernel:
 * queue messages built here go through worker_help_datagram() and
 * worker_help_flush() as one receive, the probe plugin runs in its
 * sandbox (the spawner and cthelperd-sandbox from the build), the
 * worker's ctnetlink requests meet an emulated kernel (nlfake.c), and
 * the verdicts are caught where the queue socket would send them (this
 * file's mnl_socket_sendto() takes the place of libmnl's).
 *
 * Needs root (the spawner changes user), as test_sandbox.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/if_ether.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "ctnest.h"
#include "nlfake.h"
#include "sbxrt.h"
#include "base/log.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"
#include "sandbox/describe.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "worker/qmsg.h"
#include "worker/worker_help.h"

#define QUEUE 2

static struct stats_block stats;
static struct worker_help help;
static struct nlreq nfq, ctnl;
static char rxbuf[65536];

/* The verdicts that left, in order. */
static struct {
	unsigned int n;
	uint32_t id[64], verdict[64];
} sent;

/* ctnetlink dumps of a master's expectations during a receive: one per
 * cth_expect_ctl(FLUSH) done, one per detach decided. */
static unsigned int dumps;

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;

	(void)nl;
	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		const struct nlattr *a;

		if ((nlh->nlmsg_type & 0xff) != NFQNL_MSG_VERDICT || sent.n >= 64)
			continue;
		mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
			const struct nfqnl_msg_verdict_hdr *vh;

			if (mnl_attr_get_type(a) != NFQA_VERDICT_HDR)
				continue;
			vh = mnl_attr_get_payload(a);
			sent.id[sent.n] = ntohl(vh->id);
			sent.verdict[sent.n] = ntohl(vh->verdict);
			sent.n++;
		}
	}
	return (ssize_t)len;
}

/*
 * A queue message at buf: packet id, a TCP packet 10.0.1.2:sport ->
 * 10.0.2.2:7000 carrying text, and (ct) its connection, helped by
 * "probe", conntrack id sport.  Returns its length.
 */
static size_t msg_put(char *buf, uint32_t id, uint16_t sport, const char *text, bool ct)
{
	struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_PACKET, QUEUE);
	struct nfqnl_msg_packet_hdr ph = { .packet_id = htonl(id), .hw_protocol = htons(ETH_P_IP) };
	uint8_t p[512];
	struct iphdr *ip = (void *)p;
	struct tcphdr *th = (void *)(p + sizeof(*ip));
	size_t tl = strlen(text), plen = sizeof(*ip) + sizeof(*th) + tl;

	memset(p, 0, sizeof(*ip) + sizeof(*th));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_TCP;
	ip->tot_len = htons((uint16_t)plen);
	inet_pton(AF_INET, "10.0.1.2", &ip->saddr);
	inet_pton(AF_INET, "10.0.2.2", &ip->daddr);
	th->source = htons(sport);
	th->dest = htons(7000);
	th->seq = htonl(1000);
	th->doff = 5;
	th->ack = 1;
	memcpy(p + sizeof(*ip) + sizeof(*th), text, tl);
	mnl_attr_put(nlh, NFQA_PACKET_HDR, sizeof(ph), &ph);
	mnl_attr_put(nlh, NFQA_PAYLOAD, plen, p);
	if (ct) {
		struct nlattr *nest = mnl_attr_nest_start(nlh, NFQA_CT), *h;

		ctnest_tuple_put(nlh, CTA_TUPLE_ORIG, "10.0.1.2", "10.0.2.2", sport, 7000, true);
		ctnest_tuple_put(nlh, CTA_TUPLE_REPLY, "10.0.2.2", "10.0.1.2", 7000, sport, true);
		mnl_attr_put_u32(nlh, CTA_ID, htonl(sport));
		mnl_attr_put_u32(nlh, CTA_STATUS, htonl(IPS_CONFIRMED | IPS_SEEN_REPLY));
		h = mnl_attr_nest_start(nlh, CTA_HELP);
		mnl_attr_put_strz(nlh, CTA_HELP_NAME, "probe");
		mnl_attr_nest_end(nlh, h);
		mnl_attr_nest_end(nlh, nest);
		mnl_attr_put_u32(nlh, NFQA_CT_INFO, htonl(IP_CT_ESTABLISHED));
	}
	return nlh->nlmsg_len;
}

/* Connection sport as the kernel's conntrack knows it (the detach's
 * expectation listing must find its master). */
static void master_add(uint16_t sport)
{
	char buf[1024];
	struct qmsg m;

	msg_put(buf, 1, sport, "x\n", true);
	if (qmsg_read((struct nlmsghdr *)buf, &m) == QMSG_PAYLOAD && qmsg_conn_read(&m) == 0)
		nlfake_master_add(&m.view.tuple[CTH_DIR_ORIGINAL]);
}

struct msg {
	uint32_t id;
	uint16_t sport;
	const char *text;
	bool ct;
};

/* One receive of these messages, each its own datagram, as
 * worker_receive() runs it; the verdicts that left. */
static void receive(const struct msg *ms, unsigned int n)
{
	sent.n = 0;
	dumps = nlfake.dumps;
	for (unsigned int i = 0; i < n; i++) {
		size_t len = msg_put(rxbuf + i * 4096, ms[i].id, ms[i].sport, ms[i].text, ms[i].ct);

		worker_help_datagram(&help, rxbuf + i * 4096, len, false, 1000);
	}
	worker_help_flush(&help);
	worker_verdict_flush(&help.verdict);
	dumps = nlfake.dumps - dumps;
}

static bool ids_are(const uint32_t *want, unsigned int n)
{
	if (sent.n != n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		if (sent.id[i] != want[i] || sent.verdict[i] != NF_ACCEPT)
			return false;
	return true;
}

static uint64_t qcount(enum stats_queue_counter k)
{
	return atomic_load(&stats.q[k]);
}

static uint64_t hcount(const struct instance *in, enum stats_helper_counter k)
{
	return atomic_load(&stats.h[in->slot][k]);
}

/*
 * The detach case: packet 1 detaches connection 41000, packet 3 of the
 * same connection is in the same receive (posted before 1's result was
 * taken): it is accepted unread, as the unbatched worker accepted a
 * packet queued before its connection was detached (its flush is never
 * done: two dumps, the detach's and packet 4's flush), and counted as
 * not ours; packet 2 (no conntrack) and packet 4 (another connection)
 * keep their places.  In the next receive the connection's packet is
 * not posted at all.
 */
static void test_detach(const struct instance *pr)
{
	const struct msg ms[] = {
		{ 1, 41000, "DETACH\n", true },
		{ 2, 41000, "no conntrack\n", false },
		{ 3, 41000, "MARK 1\nFLUSH\n", true },
		{ 4, 42000, "FLUSH\n", true },
	};
	const uint32_t want[] = { 1, 2, 3, 4 };
	uint64_t not_ours = qcount(STATS_Q_NOT_OURS), payload = hcount(pr, STATS_H_PAYLOAD);

	master_add(41000);
	master_add(42000);
	receive(ms, 4);
	CHECK("whelp/detach-order", ids_are(want, 4), "%u verdicts: %u %u %u %u", sent.n,
	      sent.id[0], sent.id[1], sent.id[2], sent.id[3]);
	CHECK("whelp/detach-done", hcount(pr, STATS_H_DETACH_DONE) == 1, "detached %llu",
	      (unsigned long long)hcount(pr, STATS_H_DETACH_DONE));
	CHECK("whelp/detach-later-unread", qcount(STATS_Q_NOT_OURS) == not_ours + 1 &&
	      dumps == 2 && hcount(pr, STATS_H_PAYLOAD) == payload + 2,
	      "not ours +%llu, dumps %u, helped +%llu",
	      (unsigned long long)(qcount(STATS_Q_NOT_OURS) - not_ours), dumps,
	      (unsigned long long)(hcount(pr, STATS_H_PAYLOAD) - payload));
	{
		const struct msg again[] = { { 5, 41000, "FLUSH\n", true } };
		const uint32_t want5[] = { 5 };

		receive(again, 1);
		CHECK("whelp/detached-next-receive", ids_are(want5, 1) && dumps == 0 &&
		      qcount(STATS_Q_NOT_OURS) == not_ours + 2, "%u verdicts, dumps %u",
		      sent.n, dumps);
	}
}

/*
 * A death mid-batch: the packet that crashes the sandbox and the one
 * after it get sandbox_verdict (accept) and are counted lost; the one
 * before keeps its result; the packet without conntrack between them
 * keeps its place.
 */
static void test_death(const struct instance *pr)
{
	const struct msg ms[] = {
		{ 10, 43000, "FLUSH\n", true },
		{ 11, 44000, "CRASH\n", true },
		{ 12, 44000, "none\n", false },
		{ 13, 43000, "FLUSH\n", true },
	};
	const uint32_t want[] = { 10, 11, 12, 13 };
	uint64_t lost = hcount(pr, STATS_H_SANDBOX_LOST);

	receive(ms, 4);
	CHECK("whelp/death-order", ids_are(want, 4), "%u verdicts: %u %u %u %u", sent.n,
	      sent.id[0], sent.id[1], sent.id[2], sent.id[3]);
	CHECK("whelp/death-lost", hcount(pr, STATS_H_SANDBOX_LOST) == lost + 2 &&
	      dumps == 1 && hcount(pr, STATS_H_SANDBOX_CRASHES) == 1,
	      "lost +%llu, dumps %u, crashes %llu",
	      (unsigned long long)(hcount(pr, STATS_H_SANDBOX_LOST) - lost), dumps,
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_CRASHES));
}

int main(void)
{
	const char *b = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	char text[2048], prog[2200], cwd[1024], cmd[4400], dir[] = "/tmp/cth-test-whelp-XXXXXX";
	struct runtime *_Atomic rtp;
	const struct instance *pr;
	struct runtime *rt;

	signal(SIGPIPE, SIG_IGN);
	log_init(LOG_L_ERR, 0);
	nlfake_reset();
	if (!getcwd(cwd, sizeof(cwd)) || !mkdtemp(dir) || chmod(dir, 0755) < 0)
		return 1;
	snprintf(cmd, sizeof(cmd), "cp '%s/tests/plugins/probe.so' '%s/probe.so' && "
		 "chmod 0644 '%s/probe.so'", b, dir, dir);
	if (system(cmd) != 0)
		return 1;
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n"
		 "[helper probe]\nplugin = probe\nqueue = %d\n", dir, QUEUE);
	snprintf(prog, sizeof(prog), "%s/%s/" SPAWN_PROGRAM_NAME, cwd, b);
	spawn_program_set(prog);
	rt = sbxrt_build(text);
	CHECK("whelp/runtime", rt != NULL, "runtime_build failed");
	if (!rt)
		return check_exit();
	CHECK("whelp/start", sandbox_start_all(rt, &stats) == 0, "sandbox_start_all failed");
	pr = &rt->inst[0];
	atomic_store(&rtp, rt);
	if (worker_help_init(&help, QUEUE, CFG_INFLIGHT_ENTRIES, &rtp, &stats, &nfq, &ctnl) < 0)
		return 1;
	if (pr->sb_status.up) {
		test_detach(pr);
		test_death(pr);
	}
	worker_help_free(&help);
	sandbox_stop_all(rt);
	runtime_free(rt);
	spawn_close();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return 1;
	return check_exit();
}
