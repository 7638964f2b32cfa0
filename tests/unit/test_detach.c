/* SPDX-License-Identifier: MIT */
/*
 * The table of detaches (server/worker/detach.c): lookup by conntrack id *and*
 * original tuple (ids get reused), waiting entries never evicted, a full
 * table refusing a further wait, detached entries aging out after
 * DETACH_DONE_MS, round-robin polling, and the IPCTNL_MSG_CT_NEW body,
 * read back with libnetfilter_conntrack (expect_ct_put_conn(), as the
 * worker sends it): the tuple, the zone and an empty helper name, nothing
 * else that the kernel would apply.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "worker/detach.h"
#include "base/log.h"
#include "kernel/expect.h"
#include "worker/seqsync.h"
#include "runtime/stats.h"

static struct cth_packet pkt_make(uint32_t id, uint16_t sport)
{
	struct cth_packet p = { 0 };
	struct cth_tuple *t = &p.tuple[CTH_DIR_ORIGINAL];

	p.ct_id = id;
	p.zone = 3;
	t->family = AF_INET;
	t->proto = IPPROTO_TCP;
	t->src.ip = htonl(0x0a000102);
	t->dst.ip = htonl(0x0a000202);
	t->sport = sport;
	t->dport = 1521;
	return p;
}

static void test_lookup(void)
{
	struct detach *d = calloc(1, sizeof(*d));
	struct cth_packet a = pkt_make(7, 40000), reused = pkt_make(7, 40001);

	CHECK("detach/empty", detach_lookup(d, &a, 0) == DETACH_NONE, "found");
	CHECK("detach/add-wait", detach_add(d, &a, "tns", DETACH_WAIT, 100) == 0 &&
	      d->waiting == 1 && d->used == 1, "waiting %u used %u", d->waiting, d->used);
	CHECK("detach/lookup-wait", detach_lookup(d, &a, 200) == DETACH_WAIT, "not waiting");
	CHECK("detach/id-reused-other-tuple", detach_lookup(d, &reused, 200) == DETACH_NONE,
	      "a reused id matched");
	a.zone = 4;
	CHECK("detach/other-zone", detach_lookup(d, &a, 200) == DETACH_NONE, "zone ignored");
	a.zone = 3;
	/* asking again replaces, never duplicates */
	CHECK("detach/add-again", detach_add(d, &a, "tns", DETACH_WAIT, 300) == 0 &&
	      d->used == 1 && d->waiting == 1, "used %u waiting %u", d->used, d->waiting);
	CHECK("detach/next-waiting", detach_next_waiting(d) == &d->e[0], "wrong entry");
	detach_settle(d, &d->e[0], true, 1000);
	CHECK("detach/settled-done", detach_lookup(d, &a, 1000 + DETACH_DONE_MS - 1) == DETACH_DONE &&
	      d->waiting == 0, "state %d waiting %u", detach_lookup(d, &a, 1001), d->waiting);
	CHECK("detach/no-waiting", detach_next_waiting(d) == NULL, "an entry");
	CHECK("detach/done-ages-out", detach_lookup(d, &a, 1000 + DETACH_DONE_MS) == DETACH_NONE &&
	      d->used == 0, "used %u", d->used);
	detach_add(d, &a, "tns", DETACH_WAIT, 5000);
	detach_settle(d, &d->e[0], false, 5001);
	CHECK("detach/settled-gone", detach_lookup(d, &a, 5002) == DETACH_NONE && d->used == 0 &&
	      d->waiting == 0, "used %u waiting %u", d->used, d->waiting);
	free(d);
}

static void test_bound(void)
{
	struct detach *d = calloc(1, sizeof(*d));
	static struct stats_block st;
	struct cth_packet p;
	unsigned int i, rr = 0;

	d->stats = &st;

	for (i = 0; i < DETACH_ENTRIES; i++) {
		p = pkt_make(100 + i, (uint16_t)(30000 + i));
		if (detach_add(d, &p, "tns", DETACH_WAIT, i) < 0)
			break;
	}
	CHECK("detach/fill", i == DETACH_ENTRIES && d->waiting == DETACH_ENTRIES, "%u", i);
	p = pkt_make(9999, 9999);
	CHECK("detach/full-refuses-wait", detach_add(d, &p, "tns", DETACH_WAIT, 500) == -ENOSPC &&
	      d->refused == 1, "not refused");
	/* a flood of refusals: each counted, the lines beyond the burst not logged */
	for (i = 0; i < 2 * LOG_RL_BURST; i++)
		detach_add(d, &p, "tns", DETACH_WAIT, 500);
	CHECK("detach/full-counted", st.q[STATS_Q_DETACH_FULL] == 1 + 2 * LOG_RL_BURST &&
	      st.q[STATS_Q_LOG_SUPPRESSED] >= LOG_RL_BURST, "full %llu suppressed %llu",
	      (unsigned long long)st.q[STATS_Q_DETACH_FULL],
	      (unsigned long long)st.q[STATS_Q_LOG_SUPPRESSED]);
	/* a waiting entry is never evicted, not even for a done one */
	CHECK("detach/full-refuses-done", detach_add(d, &p, "tns", DETACH_DONE, 500) == -ENOSPC,
	      "a waiting entry was evicted");
	/* round robin: every waiting entry comes up once per table */
	for (i = 0; i < DETACH_ENTRIES; i++)
		if (detach_next_waiting(d) == &d->e[i])
			rr++;
	CHECK("detach/round-robin", rr == DETACH_ENTRIES, "%u in order", rr);
	/* done entries: the oldest makes room for a new done one */
	for (i = 0; i < DETACH_ENTRIES; i++)
		detach_settle(d, &d->e[i], true, 1000 + i);
	CHECK("detach/done-evicts-oldest", detach_add(d, &p, "tns", DETACH_DONE, 1500) == 0 &&
	      d->e[0].id == 9999, "entry 0 has id %u", d->e[0].id);
	p = pkt_make(8888, 8888);
	CHECK("detach/wait-takes-no-done-slot",
	      detach_add(d, &p, "tns", DETACH_WAIT, 1600) == -ENOSPC, "evicted a done entry");
	CHECK("detach/wait-takes-expired-slot",
	      detach_add(d, &p, "tns", DETACH_WAIT, 1001 + DETACH_DONE_MS) == 0, "refused");
	free(d);
}

static int attr_cb(const struct nlattr *a, void *data)
{
	unsigned int *seen = data;

	*seen |= 1u << mnl_attr_get_type(a);
	return MNL_CB_OK;
}

static void test_update(void)
{
	char buf[8192];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct cth_packet p = pkt_make(5, 41000);
	struct detach_entry e = { .state = DETACH_WAIT, .zone = 3, .id = 5,
				  .orig = p.tuple[CTH_DIR_ORIGINAL] };
	struct nf_conntrack *ct = nfct_new();
	struct nfgenmsg *g;
	unsigned int seen = 0;
	const char *name;

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_INET;
	/* worker_detach_send()'s body: an empty helper name */
	CHECK("detach/update-built", expect_ct_put_conn(nlh, &e.orig, e.zone, "") == 0, "failed");
	mnl_attr_parse(nlh, sizeof(*g), attr_cb, &seen);
	CHECK("detach/update-attrs",
	      seen == ((1u << CTA_TUPLE_ORIG) | (1u << CTA_ZONE) | (1u << CTA_HELP)),
	      "attributes 0x%x", seen);
	nfct_nlmsg_parse(nlh, ct);
	name = nfct_get_attr(ct, ATTR_HELPER_NAME);
	CHECK("detach/update-empty-helper", name && name[0] == '\0', "helper '%s'",
	      name ? name : "(none)");
	CHECK("detach/update-tuple",
	      nfct_get_attr_u32(ct, ATTR_ORIG_IPV4_SRC) == htonl(0x0a000102) &&
	      nfct_get_attr_u16(ct, ATTR_ORIG_PORT_SRC) == htons(41000) &&
	      nfct_get_attr_u16(ct, ATTR_ORIG_PORT_DST) == htons(1521) &&
	      nfct_get_attr_u8(ct, ATTR_ORIG_L4PROTO) == IPPROTO_TCP &&
	      nfct_get_attr_u16(ct, ATTR_ZONE) == 3, "tuple or zone differs");
	nfct_destroy(ct);
}

/* seqsync.c: which verdicts announce, and the no-op update's body. */
static void test_seqsync(void)
{
	char buf[8192];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct cth_packet p = pkt_make(5, 41000);
	struct cth_packet u = p;
	struct nfgenmsg *g;
	unsigned int seen = 0;

	p.len = 80;
	p.ct_status = CTH_CT_CONFIRMED;
	CHECK("seqsync/longer", seqsync_needed(&p, 82), "not announced");
	CHECK("seqsync/shorter", seqsync_needed(&p, 79), "not announced");
	CHECK("seqsync/same-length", !seqsync_needed(&p, 80), "announced");
	CHECK("seqsync/unchanged", !seqsync_needed(&p, 0), "announced");
	u.tuple[CTH_DIR_ORIGINAL].proto = IPPROTO_UDP;
	u.len = 80;
	u.ct_status = CTH_CT_CONFIRMED;
	CHECK("seqsync/udp", !seqsync_needed(&u, 82), "announced: UDP has no sequence");
	p.ct_status = 0;
	CHECK("seqsync/unconfirmed", !seqsync_needed(&p, 82), "announced");

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->nfgen_family = AF_INET;
	/* worker_help_seqsync()'s body: no helper, nothing to change */
	CHECK("seqsync/update-built",
	      expect_ct_put_conn(nlh, &p.tuple[CTH_DIR_ORIGINAL], p.zone, NULL) == 0, "failed");
	mnl_attr_parse(nlh, sizeof(*g), attr_cb, &seen);
	/* the tuple and zone find the entry; anything more would change it */
	CHECK("seqsync/update-attrs",
	      seen == ((1u << CTA_TUPLE_ORIG) | (1u << CTA_ZONE)),
	      "attributes 0x%x", seen);
}

int main(void)
{
	test_lookup();
	test_bound();
	test_update();
	test_seqsync();
	return check_exit();
}
