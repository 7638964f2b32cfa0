/* SPDX-License-Identifier: MIT */
/*
 * Verdict messages (server/worker/verdict.c) read back attribute by attribute:
 * NFQA_CT only when something changed or an expectation rides along,
 * never CTA_HELP for an expected connection, an empty helper name for a
 * detach; the largest verdict within verdict_size_max().  And the batch
 * (server/worker/vbatch.c): messages back to back in order, a batch of several
 * within its goal, a large message alone, at most VBATCH_MAX.
 */
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <errno.h>
#include <string.h>

#include "check.h"
#include "host/packet.h"
#include "worker/vbatch.h"
#include "worker/verdict.h"

/* What a verdict message holds. */
struct seen {
	uint32_t id, verdict;
	size_t pkt_len;
	bool ct, help, mark, timeout, exp;
	char name[32];
	size_t info_len;
};

static struct seen seen_read(const struct nlmsghdr *nlh)
{
	struct seen s = { 0 };
	const struct nlattr *a, *b, *h;

	mnl_attr_for_each(a, nlh, sizeof(struct nfgenmsg)) {
		switch (mnl_attr_get_type(a)) {
		case NFQA_VERDICT_HDR: {
			const struct nfqnl_msg_verdict_hdr *v = mnl_attr_get_payload(a);

			s.id = ntohl(v->id);
			s.verdict = ntohl(v->verdict);
			break;
		}
		case NFQA_PAYLOAD:
			s.pkt_len = mnl_attr_get_payload_len(a);
			break;
		case NFQA_EXP:
			s.exp = true;
			break;
		case NFQA_CT:
			s.ct = true;
			mnl_attr_for_each_nested(b, a) {
				s.mark |= mnl_attr_get_type(b) == CTA_MARK;
				s.timeout |= mnl_attr_get_type(b) == CTA_TIMEOUT;
				if (mnl_attr_get_type(b) != CTA_HELP)
					continue;
				s.help = true;
				mnl_attr_for_each_nested(h, b) {
					if (mnl_attr_get_type(h) == CTA_HELP_NAME)
						snprintf(s.name, sizeof(s.name), "%s",
							 (const char *)mnl_attr_get_payload(h));
					if (mnl_attr_get_type(h) == CTA_HELP_INFO)
						s.info_len = mnl_attr_get_payload_len(h);
				}
			}
			break;
		}
	}
	return s;
}

static const struct cth_plugin_desc desc = { .priv_size = CTH_PRIV_MAX };
static struct plugin pl = { .desc = &desc };
/* the longest name the kernel allows (NF_CT_HELPER_NAME_LEN - 1) */
static const struct instance inst = { .name = "abcdefghijklmno", .pl = &pl,
				      .n_classes = 4 };

static void call_init(struct pkt_call *c)
{
	memset(c, 0, sizeof(*c));
	c->inst = &inst;
	for (int d = 0; d < 2; d++) {
		c->pkt.tuple[d].family = AF_INET6;
		c->pkt.tuple[d].proto = IPPROTO_TCP;
		memset(c->pkt.tuple[d].src.raw, 0xaa, 16);
		memset(c->pkt.tuple[d].dst.raw, 0xbb, 16);
		c->pkt.tuple[d].sport = 40000;
		c->pkt.tuple[d].dport = 21;
	}
	c->pkt.ct_status = CTH_CT_CONFIRMED;
}

/* The largest expectation there is: IPv6, NAT, a helper, a function. */
static void exp_init(struct cth_expect *e)
{
	memset(e, 0, sizeof(*e));
	e->family = AF_INET6;
	e->proto = IPPROTO_UDP;
	memset(e->src.raw, 0x11, 16);
	memset(e->dst.raw, 0x22, 16);
	e->sport = 1;
	e->dport = 2;
	e->class = 3;
	e->flags = CTH_EXPECT_NAT | CTH_EXPECT_HELPER | CTH_EXPECT_PERMANENT;
	e->nat_dir = CTH_DIR_REPLY;
	memset(e->nat_addr.raw, 0x33, 16);
	e->nat_port = 3;
	e->fn = "a-function-name-of-31-bytes-xyz";
}

static void test_verdict_contents(void)
{
	static char buf[128 * 1024];
	static uint8_t pkt[PKT_OUT_MAX];
	struct pkt_call c;
	struct cth_expect e;
	struct nlmsghdr *nlh;
	struct seen s;

	nlh = verdict_put(buf, 3, 77, false, NULL, NULL, 0, NULL);
	s = seen_read(nlh);
	CHECK("verdict/plain-accept", s.id == 77 && s.verdict == NF_ACCEPT && !s.ct &&
	      !s.pkt_len && nlh->nlmsg_len <= verdict_size_max(0, false),
	      "id %u verdict %u ct %d len %u", s.id, s.verdict, s.ct, nlh->nlmsg_len);

	call_init(&c);
	s = seen_read(verdict_put(buf, 3, 78, true, &c, NULL, 0, NULL));
	CHECK("verdict/drop-nothing-changed-no-ct", s.verdict == NF_DROP && !s.ct,
	      "verdict %u ct %d", s.verdict, s.ct);

	c.priv_changed = true;
	s = seen_read(verdict_put(buf, 3, 79, false, &c, NULL, 0, NULL));
	CHECK("verdict/state-written", s.ct && s.help && strcmp(s.name, inst.name) == 0 &&
	      s.info_len == CTH_PRIV_MAX, "ct %d help %d name '%s' info %zu", s.ct, s.help,
	      s.name, s.info_len);

	c.pkt.ct_status |= CTH_CT_EXPECTED;
	c.has_mark = true;
	s = seen_read(verdict_put(buf, 3, 80, false, &c, NULL, 0, NULL));
	CHECK("verdict/expected-connection-no-help", s.ct && s.mark && !s.help,
	      "ct %d mark %d help %d", s.ct, s.mark, s.help);

	call_init(&c);
	c.detach = true;
	s = seen_read(verdict_put(buf, 3, 81, false, &c, NULL, 0, NULL));
	CHECK("verdict/detach-empty-name", s.help && s.name[0] == '\0' && s.info_len == 0,
	      "help %d name '%s' info %zu", s.help, s.name, s.info_len);

	/* NFQA_EXP is only honoured with NFQA_CT: both, though nothing else
	 * of the connection changed */
	call_init(&c);
	exp_init(&e);
	nlh = verdict_put(buf, 3, 82, false, &c, NULL, 0, &e);
	s = seen_read(nlh);
	CHECK("verdict/expectation-with-ct", s.exp && s.ct && !s.help,
	      "exp %d ct %d help %d", s.exp, s.ct, s.help);
	CHECK("verdict/expectation-within-bound", nlh->nlmsg_len <= verdict_size_max(0, true),
	      "%u > %zu", nlh->nlmsg_len, verdict_size_max(0, true));

	c.priv_changed = c.has_mark = c.has_timeout = true;
	nlh = verdict_put(buf, 3, 83, false, &c, NULL, 0, NULL);
	CHECK("verdict/head-within-bound", nlh->nlmsg_len <= verdict_size_max(0, false),
	      "%u > %zu", nlh->nlmsg_len, verdict_size_max(0, false));
	nlh = verdict_put(buf, 3, 84, false, &c, pkt, sizeof(pkt), &e);
	s = seen_read(nlh);
	CHECK("verdict/largest-within-bound", s.pkt_len == sizeof(pkt) && s.exp && s.help &&
	      s.mark && s.timeout &&
	      nlh->nlmsg_len <= verdict_size_max(sizeof(pkt), true),
	      "pkt %zu len %u bound %zu", s.pkt_len, nlh->nlmsg_len,
	      verdict_size_max(sizeof(pkt), true));
}

/* Add a plain verdict for id if there is room: 1 added, 0 no room. */
static void batch_add(struct vbatch *b, uint32_t id, int tag)
{
	char *at = vbatch_room(b, verdict_size_max(0, false));

	if (at) {
		verdict_put(at, 3, id, false, NULL, NULL, 0, NULL);
		vbatch_add(b, id, tag);
	}
}

static void test_batch(void)
{
	struct vbatch b;
	const struct nlmsghdr *nlh;
	size_t cap = verdict_size_max(PKT_OUT_MAX, true);
	unsigned int n = 0;
	bool order = true;
	int rem;

	if (vbatch_init(&b, cap, 3072) < 0) {
		printf("FAIL vbatch/init\n");
		return;
	}
	CHECK("vbatch/empty-takes-largest", vbatch_room(&b, cap) == b.buf &&
	      vbatch_room(&b, cap + 1) == NULL, "room");

	for (uint32_t id = 1; id <= 5; id++)
		batch_add(&b, id, (int)id - 3);
	rem = (int)b.len;
	for (nlh = (const void *)b.buf; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		struct seen s = seen_read(nlh);

		n++;
		order &= s.id == n && b.id[n - 1] == n && b.tag[n - 1] == (int)n - 3;
	}
	CHECK("vbatch/messages-back-to-back-in-order", n == 5 && b.n == 5 && order && rem == 0,
	      "walked %u of %u, rem %d, order %d", n, b.n, rem, order);

	CHECK("vbatch/large-waits-for-a-send", vbatch_room(&b, 3072) == NULL &&
	      vbatch_room(&b, 3072 - b.len) != NULL, "len %zu", b.len);
	vbatch_clear(&b);
	CHECK("vbatch/cleared-takes-large", b.n == 0 && b.len == 0 &&
	      vbatch_room(&b, cap) == b.buf, "n %u len %zu", b.n, b.len);

	/* messages of 200 bytes: the batch stops short of the goal */
	n = 0;
	for (char *at; (at = vbatch_room(&b, 200)) != NULL; n++) {
		struct nlmsghdr *m = mnl_nlmsg_put_header(at);

		m->nlmsg_len = 200;
		vbatch_add(&b, n, -1);
	}
	CHECK("vbatch/goal-kept", n == 3072 / 200 && b.len == 200u * n,
	      "%u messages, %zu bytes", n, b.len);
	vbatch_clear(&b);

	/* tiny messages: at most VBATCH_MAX */
	n = 0;
	for (char *at; (at = vbatch_room(&b, 16)) != NULL; n++) {
		struct nlmsghdr *m = mnl_nlmsg_put_header(at);

		m->nlmsg_len = 16;
		vbatch_add(&b, n, -1);
	}
	CHECK("vbatch/at-most-max", n == VBATCH_MAX && b.len == 16u * VBATCH_MAX,
	      "%u messages, %zu bytes", n, b.len);
	vbatch_free(&b);
}

/* A send that fails the first `fail_batch` datagrams of several
 * messages and the first `fail_single` single ones, recording which
 * packet ids went and with which verdict. */
struct fake {
	unsigned int fail_batch, fail_single, sends;
	int err;
	unsigned int n;
	uint32_t id[64], verdict[64];
};

static int fake_send(void *arg, const void *buf, size_t len)
{
	struct fake *f = arg;
	const struct nlmsghdr *nlh = buf;
	int rem = (int)len;
	bool single = mnl_nlmsg_ok(nlh, rem) && nlh->nlmsg_len >= len - 3;

	f->sends++;
	if (!single && f->fail_batch) {
		f->fail_batch--;
		return f->err;
	}
	if (single && f->fail_single) {
		f->fail_single--;
		return f->err;
	}
	for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
		struct seen s = seen_read(nlh);

		f->id[f->n] = s.id;
		f->verdict[f->n++] = s.verdict;
	}
	return 0;
}

static void batch_fill(struct vbatch *b, unsigned int n)
{
	vbatch_clear(b);
	for (uint32_t id = 1; id <= n; id++)
		batch_add(b, id, -1);
}

static void test_batch_retry(void)
{
	struct vbatch b;
	struct vbatch_sent r;
	struct fake f = { .err = -ENOBUFS, .fail_batch = 1 };
	bool all = true;

	if (vbatch_init(&b, verdict_size_max(PKT_OUT_MAX, true), 3072) < 0) {
		printf("FAIL vbatch/retry-init\n");
		return;
	}
	batch_fill(&b, 5);
	vbatch_send(&b, fake_send, &f, &r);
	for (unsigned int i = 0; i < 5; i++)
		all &= f.id[i] == i + 1 && f.verdict[i] == NF_ACCEPT && r.ok[i];
	CHECK("vbatch/enobufs-batch-resent-one-by-one",
	      r.err == -ENOBUFS && f.n == 5 && all && r.retried == 5 && !r.dropped &&
	      !r.lost && f.sends == 6, "err %d, %u verdicts, %u sends, retried %u",
	      r.err, f.n, f.sends, r.retried);

	/* a single verdict failing VBATCH_TRIES times: a bare DROP instead */
	memset(&f, 0, sizeof(f));
	f.err = -ENOMEM;
	f.fail_batch = 1;
	f.fail_single = VBATCH_TRIES;
	batch_fill(&b, 3);
	vbatch_send(&b, fake_send, &f, &r);
	CHECK("vbatch/unsendable-verdict-becomes-drop",
	      f.n == 3 && f.id[0] == 1 && f.verdict[0] == NF_DROP && !r.ok[0] &&
	      f.id[1] == 2 && f.verdict[1] == NF_ACCEPT && r.ok[1] && r.ok[2] &&
	      r.dropped == 1 && !r.lost, "%u verdicts, first %u/%u, dropped %u lost %u",
	      f.n, f.id[0], f.verdict[0], r.dropped, r.lost);

	/* a transient failure of a single one is retried, bounded */
	memset(&f, 0, sizeof(f));
	f.err = -ENOBUFS;
	f.fail_batch = 1;
	f.fail_single = 2;
	batch_fill(&b, 2);
	vbatch_send(&b, fake_send, &f, &r);
	CHECK("vbatch/single-retried", f.n == 2 && r.ok[0] && r.ok[1] && !r.dropped &&
	      f.sends == 1 + 3 + 1, "%u verdicts %u sends", f.n, f.sends);

	/* nothing goes: every packet is counted lost, no endless loop */
	memset(&f, 0, sizeof(f));
	f.err = -ENOBUFS;
	f.fail_batch = 1;
	f.fail_single = 1000;
	batch_fill(&b, 2);
	vbatch_send(&b, fake_send, &f, &r);
	CHECK("vbatch/lost-bounded", f.n == 0 && r.lost == 2 &&
	      f.sends == 1 + 2 * 2 * VBATCH_TRIES, "%u sends lost %u", f.sends, r.lost);
	vbatch_free(&b);
}

int main(void)
{
	test_verdict_contents();
	test_batch();
	test_batch_retry();
	return check_exit();
}
