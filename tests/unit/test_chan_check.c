/* SPDX-License-Identifier: MIT */
/*
 * The worker's check of what a sandbox sends back (server/sandbox/
 * chan_check.c), without a sandbox: a channel memory filled here as
 * sandboxd/serve.c fills it (chan_rec_put(), chan_expect_put()), or as a
 * hostile one might, then chan_check_call() / chan_check_done() on a real
 * packet with backends that record what would reach the kernel.
 *
 * Three kinds of check: what an honest sandbox records is done (a keep
 * answer: shown to the call's trace, nothing done); what breaks the
 * channel's rules is refused with -EPROTO and a reason; what the host
 * refuses an in-process plugin stays refused.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "pkt4.h"
#include "base/log.h"
#include "host/call.h"
#include "host/keep.h"
#include "runtime/stats.h"
#include "sandbox/chan.h"
#include "sandbox/chan_check.h"

#define PAYLOAD "PORT 10,0,0,1,156,65\r\n"
#define PRIV_SIZE 8u

/* What reached the "kernel". */
struct rec {
	unsigned int n_exp;
	struct cth_expect exp[8];
	char fn[8][PKT_EXPECT_FN_MAX + 1];
	unsigned int n_ctl;
	unsigned int ctl_op;
	unsigned int n_link;
};

/* Lines the log let through at warning or above. */
struct cap {
	unsigned int n;
	char last[1024];
};

static const struct cth_plugin_desc desc = {
	.name = "chk",
	.priv_size = PRIV_SIZE,
	.n_classes = 1,
	.n_counters = 2,
};
static struct plugin plugin = { .desc = &desc };
static struct instance inst;
static struct stats_block stats;
static uint8_t pktbuf[2048];
/* the slot the checks read: a channel's slot 0 */
static struct chan_shm *chan;
static struct chan_slot *shm;
static struct chan_check chk;
static struct rec rec;
static struct cap cap;

static int rec_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	struct rec *r = c->backend;

	(void)how;
	if (r->n_exp < 8) {
		r->exp[r->n_exp] = *e;
		if (e->fn)
			snprintf(r->fn[r->n_exp], sizeof(r->fn[0]), "%s", e->fn);
		r->n_exp++;
	}
	return 0;
}

static int rec_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	struct rec *r = c->backend;

	(void)e;
	r->n_ctl++;
	r->ctl_op = op;
	return 0;
}

static int rec_link(struct pkt_call *c, struct cth_link *link)
{
	struct rec *r = c->backend;

	r->n_link++;
	link->in_ifindex = 4;
	link->out_ifindex = 9;
	link->net_prefix = 24;
	return 0;
}

static void cap_line(void *arg, int level, const char *line)
{
	struct cap *k = arg;

	(void)level;
	k->n++;
	snprintf(k->last, sizeof(k->last), "%s", line);
}

/* An IPv4 packet 10.0.0.1:40000 -> 10.0.0.2:21 (TCP or UDP) carrying
 * PAYLOAD, its view as the worker's, c ready for the channel's calls. */
static void pkt_make(struct pkt_call *c, uint8_t proto)
{
	memset(c, 0, sizeof(*c));
	memset(&rec, 0, sizeof(rec));
	pkt4_make(pktbuf, sizeof(pktbuf), proto, 21, PAYLOAD, &c->pkt);
	c->inst = &inst;
	c->backend = &rec;
	c->expect_fn = rec_expect;
	c->expect_ctl_fn = rec_expect_ctl;
	c->link_fn = rec_link;
	c->stats = &stats;
	/* the worker's sandbox_run() sets the host table first */
	pkt_call_host(c);
	/* the sandbox's turn starts empty, as serve.c leaves it */
	memset(&shm->res, 0, offsetof(struct chan_res, rec));
	shm->res.verdict = CTH_VERDICT_ACCEPT;
	memset(&shm->ans, 0, sizeof(shm->ans));
}

static int done(struct pkt_call *c, const char **why)
{
	*why = NULL;
	return chan_check_done(&chk, shm, c, NULL, 0, &stats, why);
}

static int call(struct pkt_call *c, const char **why)
{
	*why = NULL;
	return chan_check_call(&chk, shm, c, why);
}

static void rec_put(uint16_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	if (chan_rec_put(&shm->res, type, a, alen, b, blen) < 0)
		abort();
}

/* A record as a sandbox may write it: header and body as given. */
static void rec_raw(uint16_t type, uint16_t len, const void *body, size_t blen)
{
	struct chan_rec h = { .type = type, .len = len };

	memcpy(shm->res.rec + shm->res.rec_used, &h, sizeof(h));
	if (blen)
		memcpy(shm->res.rec + shm->res.rec_used + sizeof(h), body, blen);
	shm->res.rec_used += (uint32_t)(sizeof(h) + blen);
}

static void mangle_put(uint32_t off, uint32_t len, const char *repl)
{
	uint32_t v[3] = { off, len, (uint32_t)strlen(repl) };

	rec_put(CHAN_REC_MANGLE, v, sizeof(v), repl, strlen(repl));
}

/* The payload pkt_call_mangled() sends, or NULL when nothing is. */
static const char *mangled_payload(struct pkt_call *c, size_t *len)
{
	size_t n;
	const uint8_t *p = pkt_call_mangled(c, &n);

	if (!p)
		return NULL;
	*len = n - c->pkt.payload_offset;
	return (const char *)p + c->pkt.payload_offset;
}

/* An expectation an FTP helper would ask for: the client's data port,
 * from the server. */
static struct cth_expect exp_make(void)
{
	struct cth_expect e = { .family = AF_INET, .proto = IPPROTO_TCP,
				.dport = htons(40001) };

	inet_pton(AF_INET, "10.0.0.2", &e.src);
	inet_pton(AF_INET, "10.0.0.1", &e.dst);
	return e;
}

static void call_expect_put(uint32_t op, uint32_t how, const struct cth_expect *e)
{
	memset(&shm->res.call, 0, sizeof(shm->res.call));
	shm->res.call.op = op;
	shm->res.call.how = how;
	if (e) {
		shm->res.call.has_exp = 1;
		chan_expect_put(&shm->res.call.exp, e);
	}
}

/* ------------------------------------------------------------ honest */

static void test_honest(void)
{
	struct pkt_call c;
	const char *why, *pl;
	size_t n = 0;
	uint32_t v;
	int32_t level;
	uint64_t before;
	int rc;

	pkt_make(&c, IPPROTO_TCP);
	mangle_put(5, 8, "10,0,0,9");
	rc = done(&c, &why);
	pl = mangled_payload(&c, &n);
	CHECK("chan_check/mangle-applied", rc == CTH_VERDICT_ACCEPT && pl &&
	      n == strlen(PAYLOAD) && memcmp(pl, "PORT 10,0,0,9,156,65\r\n", n) == 0,
	      "rc %d, payload %.*s", rc, pl ? (int)n : 6, pl ? pl : "(none)");
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	v = 300;
	rec_put(CHAN_REC_TIMEOUT, &v, sizeof(v), NULL, 0);
	rc = done(&c, &why);
	CHECK("chan_check/timeout", rc == CTH_VERDICT_ACCEPT && c.has_timeout &&
	      c.timeout == 300, "rc %d, has %d, %u", rc, c.has_timeout, c.timeout);
	pkt_call_release(&c);

	/* the guard allows bits 0xff only */
	pkt_make(&c, IPPROTO_TCP);
	v = 0x1234;
	rec_put(CHAN_REC_MARK, &v, sizeof(v), NULL, 0);
	rc = done(&c, &why);
	CHECK("chan_check/mark-masked", rc == CTH_VERDICT_ACCEPT && c.has_mark &&
	      c.mark == 0x34 && c.mark_mask == 0xff && c.mark_masked,
	      "rc %d, mark 0x%x mask 0x%x masked %d", rc, c.mark, c.mark_mask, c.mark_masked);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	rec_put(CHAN_REC_DETACH, NULL, 0, NULL, 0);
	rc = done(&c, &why);
	CHECK("chan_check/detach", rc == CTH_VERDICT_ACCEPT && c.detach, "rc %d, detach %d",
	      rc, c.detach);
	pkt_call_release(&c);

	/* a declared counter is added to; an undeclared one is nobody's */
	pkt_make(&c, IPPROTO_TCP);
	before = atomic_load(&stats.pc[inst.slot][1]);
	rec_put(CHAN_REC_COUNT, (uint32_t[]){ 1, 5 }, 2 * sizeof(uint32_t), NULL, 0);
	rec_put(CHAN_REC_COUNT, (uint32_t[]){ 7, 9 }, 2 * sizeof(uint32_t), NULL, 0);
	rc = done(&c, &why);
	CHECK("chan_check/count", rc == CTH_VERDICT_ACCEPT &&
	      atomic_load(&stats.pc[inst.slot][1]) == before + 5 &&
	      atomic_load(&stats.pc[inst.slot][7]) == 0, "rc %d, counter %llu",
	      rc, (unsigned long long)atomic_load(&stats.pc[inst.slot][1]));
	pkt_call_release(&c);

	/* control characters never reach the operator's log */
	pkt_make(&c, IPPROTO_TCP);
	memset(&cap, 0, sizeof(cap));
	level = CTH_LOG_ERR;
	rec_put(CHAN_REC_LOG, &level, sizeof(level), "evil\nforged\x1b[31m\x7f",
		strlen("evil\nforged\x1b[31m\x7f"));
	log_capture_set(cap_line, &cap);
	rc = done(&c, &why);
	log_capture_set(NULL, NULL);
	CHECK("chan_check/log-escaped", rc == CTH_VERDICT_ACCEPT && cap.n == 1 &&
	      strcmp(cap.last, "chk: evil?forged?[31m?") == 0, "rc %d, %u lines, last '%s'",
	      rc, cap.n, cap.last);
	pkt_call_release(&c);

	/* a level out of range is clamped, not passed on */
	pkt_make(&c, IPPROTO_TCP);
	memset(&cap, 0, sizeof(cap));
	level = -5;
	rec_put(CHAN_REC_LOG, &level, sizeof(level), "low", 3);
	log_capture_set(cap_line, &cap);
	rc = done(&c, &why);
	log_capture_set(NULL, NULL);
	CHECK("chan_check/log-level-clamped", rc == CTH_VERDICT_ACCEPT && cap.n == 1,
	      "rc %d, %u lines", rc, cap.n);
	pkt_call_release(&c);

	/* the in-process limit: 20 plugin lines a second per thread (twice
	 * that when the second turns meanwhile) */
	pkt_make(&c, IPPROTO_TCP);
	memset(&cap, 0, sizeof(cap));
	level = CTH_LOG_ERR;
	for (unsigned int i = 0; i < 100; i++)
		rec_put(CHAN_REC_LOG, &level, sizeof(level), "flood", 5);
	log_capture_set(cap_line, &cap);
	rc = done(&c, &why);
	log_capture_set(NULL, NULL);
	CHECK("chan_check/log-rate-limited", rc == CTH_VERDICT_ACCEPT && cap.n > 0 &&
	      cap.n <= 41, "rc %d, %u of 100 lines logged", rc, cap.n);
	pkt_call_release(&c);

	/* lines the sandbox did not send are counted */
	pkt_make(&c, IPPROTO_TCP);
	before = atomic_load(&stats.q[STATS_Q_LOG_SUPPRESSED]);
	shm->res.log_dropped = 12;
	rc = done(&c, &why);
	CHECK("chan_check/log-dropped-counted", rc == CTH_VERDICT_ACCEPT &&
	      atomic_load(&stats.q[STATS_Q_LOG_SUPPRESSED]) == before + 12, "rc %d", rc);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.verdict = CTH_VERDICT_DROP;
	rc = done(&c, &why);
	CHECK("chan_check/verdict-drop", rc == CTH_VERDICT_DROP, "rc %d", rc);
	pkt_call_release(&c);
}

static void test_honest_calls(void)
{
	struct cth_expect e = exp_make();
	struct pkt_call c;
	const char *why;
	uint32_t v = 120;
	int rc;

	/* the records before a call are done before it */
	pkt_make(&c, IPPROTO_TCP);
	rec_put(CHAN_REC_TIMEOUT, &v, sizeof(v), NULL, 0);
	e.fn = "nat-follow-master";
	call_expect_put(CHAN_OP_EXPECT, CTH_EXPECT_SYNC, &e);
	shm->ans.rc = -1;
	rc = call(&c, &why);
	CHECK("chan_check/call-expect", rc == 0 && shm->ans.rc == 0 && rec.n_exp == 1 &&
	      rec.exp[0].dport == htons(40001) && strcmp(rec.fn[0], "nat-follow-master") == 0 &&
	      c.has_timeout && c.timeout == 120, "rc %d, answer %d, %u expectations, fn '%s'",
	      rc, shm->ans.rc, rec.n_exp, rec.fn[0]);
	/* the sandbox starts its records over after an answer */
	shm->res.rec_used = 0;
	rc = done(&c, &why);
	CHECK("chan_check/call-then-done", rc == CTH_VERDICT_ACCEPT && rec.n_exp == 1,
	      "rc %d", rc);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	call_expect_put(CHAN_OP_LINK, 0, NULL);
	rc = call(&c, &why);
	CHECK("chan_check/call-link", rc == 0 && shm->ans.rc == 0 && rec.n_link == 1 &&
	      shm->ans.link.in_ifindex == 4 && shm->ans.link.out_ifindex == 9 &&
	      shm->ans.link.net_prefix == 24, "rc %d, answer %d, in %u", rc, shm->ans.rc,
	      shm->ans.link.in_ifindex);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	call_expect_put(CHAN_OP_EXPECT_CTL, CTH_EXPECT_OP_REMOVE, &e);
	shm->ans.rc = -1;
	rc = call(&c, &why);
	CHECK("chan_check/call-expect-ctl", rc == 0 && shm->ans.rc == 0 && rec.n_ctl == 1 &&
	      rec.ctl_op == CTH_EXPECT_OP_REMOVE, "rc %d, answer %d, %u ctl", rc,
	      shm->ans.rc, rec.n_ctl);
	pkt_call_release(&c);

	/* a full area is sent first: its records done, nothing else */
	pkt_make(&c, IPPROTO_TCP);
	rec_put(CHAN_REC_DETACH, NULL, 0, NULL, 0);
	call_expect_put(CHAN_OP_FLUSH, 0, NULL);
	shm->ans.rc = -1;
	rc = call(&c, &why);
	CHECK("chan_check/call-flush", rc == 0 && shm->ans.rc == 0 && c.detach &&
	      rec.n_exp == 0 && rec.n_ctl == 0, "rc %d, answer %d", rc, shm->ans.rc);
	pkt_call_release(&c);
}

/* Kept bytes (TCP): offsets are in the view with them in front; edits
 * inside them are refused, after them moved into this packet. */
static void test_kept(void)
{
	struct pkt_call c;
	const char *why, *pl;
	size_t n = 0;
	int rc;

	pkt_make(&c, IPPROTO_TCP);
	shm->res.kept = 10;
	mangle_put(10 + 5, 8, "10,0,0,9");
	mangle_put(3, 2, "xx");
	rc = done(&c, &why);
	pl = mangled_payload(&c, &n);
	CHECK("chan_check/kept-edit-moved", rc == CTH_VERDICT_ACCEPT && pl &&
	      n == strlen(PAYLOAD) && memcmp(pl, "PORT 10,0,0,9,156,65\r\n", n) == 0 &&
	      c.pkt.kept == 10 && c.pkt.payload_len == strlen(PAYLOAD) + 10,
	      "rc %d, payload %.*s", rc, pl ? (int)n : 6, pl ? pl : "(none)");
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.kept = KEEP_BYTES_MAX;
	mangle_put(KEEP_BYTES_MAX + strlen(PAYLOAD), 1, "x");
	rc = done(&c, &why);
	CHECK("chan_check/kept-max-edit-past-end", rc == CTH_VERDICT_ACCEPT &&
	      !pkt_call_mangled(&c, &n), "rc %d", rc);
	pkt_call_release(&c);
}

/* What reached the call's trace (cthelper-replay --sandbox's). */
struct seen {
	unsigned int n, n_keep;
	struct pkt_event last;
};

static struct seen seen;

static void seen_trace(struct pkt_call *c, const struct pkt_event *ev)
{
	(void)c;
	seen.n++;
	seen.n_keep += ev->type == PKT_EV_KEEP;
	seen.last = *ev;
}

static void keep_put(uint64_t off, int32_t rc)
{
	rec_put(CHAN_REC_KEEP, &off, sizeof(off), &rc, sizeof(rc));
}

/* cth_keep() answered in the sandbox: shown to the trace with its offset
 * and answer, nothing done (the bytes are the sandbox's), and nothing at
 * all without a trace (the daemon's worker). */
static void test_keep_rec(void)
{
	struct pkt_call c;
	const char *why;
	int rc;

	pkt_make(&c, IPPROTO_TCP);
	memset(&seen, 0, sizeof(seen));
	c.trace = seen_trace;
	shm->res.kept = 10;
	keep_put(10 + 5, 0);
	rc = done(&c, &why);
	CHECK("chan_check/keep-shown", rc == CTH_VERDICT_ACCEPT && seen.n == 1 &&
	      seen.n_keep == 1 && seen.last.off == 15 && seen.last.rc == 0,
	      "rc %d (%s), %u events, off %zu rc %d", rc, why ? why : "", seen.n,
	      seen.last.off, seen.last.rc);
	CHECK("chan_check/keep-nothing-done", !c.keep_copy && c.keep_len == 0 &&
	      !pkt_call_mangled(&c, &(size_t){ 0 }) && !c.has_timeout && !c.detach,
	      "the worker kept %zu bytes", c.keep_len);
	pkt_call_release(&c);

	/* the whole view kept (offset 0), and the host's refusals as they are */
	pkt_make(&c, IPPROTO_TCP);
	memset(&seen, 0, sizeof(seen));
	c.trace = seen_trace;
	keep_put(0, 0);
	keep_put(UINT64_MAX, -EINVAL);
	keep_put(3, -ENOSPC);
	keep_put(3, -EMSGSIZE);
	rc = done(&c, &why);
	CHECK("chan_check/keep-answers-shown", rc == CTH_VERDICT_ACCEPT && seen.n_keep == 4 &&
	      seen.last.rc == -EMSGSIZE && seen.last.off == 3, "rc %d (%s), %u keeps", rc,
	      why ? why : "", seen.n_keep);
	pkt_call_release(&c);

	/* a UDP packet's cth_keep() is refused in the sandbox too */
	pkt_make(&c, IPPROTO_UDP);
	keep_put(0, -EOPNOTSUPP);
	rc = done(&c, &why);
	CHECK("chan_check/keep-udp-refusal", rc == CTH_VERDICT_ACCEPT, "rc %d (%s)", rc,
	      why ? why : "");
	pkt_call_release(&c);

	/* no trace: the daemon's worker checks it and does nothing */
	pkt_make(&c, IPPROTO_TCP);
	keep_put(2, 0);
	rc = done(&c, &why);
	CHECK("chan_check/keep-no-trace", rc == CTH_VERDICT_ACCEPT && !c.keep_copy,
	      "rc %d (%s)", rc, why ? why : "");
	pkt_call_release(&c);
}

/* ------------------------------------------------------------ malformed */

/* A turn that breaks the channel's rules: -EPROTO, a reason, and the
 * records before the bad one done but nothing after it. */
static void refused(const char *name, struct pkt_call *c, int rc, const char *why)
{
	CHECK(name, rc == -EPROTO && why && *why, "rc %d, why %s", rc, why ? why : "(none)");
	pkt_call_release(c);
}

/* cth_keep() answers no host gives: never shown, the sandbox ended. */
static void keep_refused(const char *name, uint8_t proto, uint32_t kept, uint64_t off,
			 int32_t krc)
{
	struct pkt_call c;
	const char *why;
	int rc;

	pkt_make(&c, proto);
	memset(&seen, 0, sizeof(seen));
	c.trace = seen_trace;
	shm->res.kept = kept;
	keep_put(off, krc);
	rc = done(&c, &why);
	CHECK(name, rc == -EPROTO && why && *why && seen.n == 0, "rc %d, why %s, %u shown",
	      rc, why ? why : "(none)", seen.n);
	pkt_call_release(&c);
}

static void test_malformed_keep(void)
{
	uint8_t body[16] = { 0 };
	struct pkt_call c;
	const char *why;
	int rc;

	/* the body is u64 off, i32 rc: 12 bytes, no more, no less */
	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_KEEP, 8, body, 8);
	rc = done(&c, &why);
	refused("chan_check/bad-keep-short", &c, rc, why);
	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_KEEP, 16, body, 16);
	rc = done(&c, &why);
	refused("chan_check/bad-keep-long", &c, rc, why);
	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_KEEP, 0, NULL, 0);
	rc = done(&c, &why);
	refused("chan_check/bad-keep-empty", &c, rc, why);
	/* a length past the area */
	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_KEEP, UINT16_MAX, body, 12);
	rc = done(&c, &why);
	refused("chan_check/bad-keep-len-max", &c, rc, why);

	/* kept bytes the view cannot have */
	keep_refused("chan_check/bad-keep-past-payload", IPPROTO_TCP, 0, strlen(PAYLOAD) + 1, 0);
	keep_refused("chan_check/bad-keep-past-kept-view", IPPROTO_TCP, 10,
		     strlen(PAYLOAD) + 11, 0);
	keep_refused("chan_check/bad-keep-off-max", IPPROTO_TCP, 0, UINT64_MAX, 0);
	keep_refused("chan_check/bad-keep-off-wraps", IPPROTO_TCP, 0,
		     UINT64_MAX - strlen(PAYLOAD) + 2, 0);
	keep_refused("chan_check/bad-keep-udp", IPPROTO_UDP, 0, 0, 0);
	/* more than the table takes (its answer would be -ENOSPC) */
	keep_refused("chan_check/bad-keep-too-many", IPPROTO_TCP, KEEP_BYTES_MAX, 0, 0);
	/* answers cth_keep() never gives */
	keep_refused("chan_check/bad-keep-rc-positive", IPPROTO_TCP, 0, 0, 5);
	keep_refused("chan_check/bad-keep-rc-eperm", IPPROTO_TCP, 0, 0, -EPERM);
	keep_refused("chan_check/bad-keep-rc-min", IPPROTO_TCP, 0, 0, INT32_MIN);
}

static void test_malformed(void)
{
	struct pkt_call c;
	const char *why;
	uint32_t v[4] = { 0 };
	int32_t level = CTH_LOG_ERR;
	int rc;
	static char longline[CHAN_LOG_MAX + 8];

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_TIMEOUT, 100, v, 4);
	rc = done(&c, &why);
	refused("chan_check/bad-rec-past-area", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.rec_used = 2;
	rc = done(&c, &why);
	refused("chan_check/bad-rec-short-header", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.rec_used = CHAN_REC_BYTES + 1;
	rc = done(&c, &why);
	refused("chan_check/bad-rec-used", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.rec_used = UINT32_MAX;
	rc = call(&c, &why);
	refused("chan_check/bad-rec-used-max", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(99, 0, NULL, 0);
	rc = done(&c, &why);
	refused("chan_check/bad-rec-type", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(0, 0, NULL, 0);
	rc = done(&c, &why);
	refused("chan_check/bad-rec-type-zero", &c, rc, why);

	/* repl_len says 8, the record carries 4 */
	pkt_make(&c, IPPROTO_TCP);
	v[0] = 5;
	v[1] = 8;
	v[2] = 8;
	memcpy(&v[3], "abcd", 4);
	rec_raw(CHAN_REC_MANGLE, 16, v, 16);
	rc = done(&c, &why);
	refused("chan_check/bad-mangle-repl-len", &c, rc, why);
	CHECK("chan_check/bad-mangle-no-edit", !pkt_call_mangled(&c, &(size_t){ 0 }),
	      "an edit was made");

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_MANGLE, 8, v, 8);
	rc = done(&c, &why);
	refused("chan_check/bad-mangle-short", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_TIMEOUT, 8, v, 8);
	rc = done(&c, &why);
	refused("chan_check/bad-timeout-size", &c, rc, why);
	CHECK("chan_check/bad-timeout-not-set", !c.has_timeout, "timeout set");

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_MARK, 2, v, 2);
	rc = done(&c, &why);
	refused("chan_check/bad-mark-size", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_DETACH, 4, v, 4);
	rc = done(&c, &why);
	refused("chan_check/bad-detach-size", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_COUNT, 4, v, 4);
	rc = done(&c, &why);
	refused("chan_check/bad-count-size", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	memcpy(longline, &level, sizeof(level));
	memset(longline + sizeof(level), 'a', CHAN_LOG_MAX);
	rec_raw(CHAN_REC_LOG, (uint16_t)(sizeof(level) + CHAN_LOG_MAX), longline,
		sizeof(level) + CHAN_LOG_MAX);
	rc = done(&c, &why);
	refused("chan_check/bad-log-too-long", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	rec_raw(CHAN_REC_LOG, 2, v, 2);
	rc = done(&c, &why);
	refused("chan_check/bad-log-no-level", &c, rc, why);

	test_malformed_keep();

	/* the records before the bad one were done, in order */
	pkt_make(&c, IPPROTO_TCP);
	rec_put(CHAN_REC_DETACH, NULL, 0, NULL, 0);
	rec_raw(77, 0, NULL, 0);
	rec_put(CHAN_REC_TIMEOUT, (uint32_t[]){ 5 }, sizeof(uint32_t), NULL, 0);
	rc = done(&c, &why);
	refused("chan_check/bad-rec-stops-there", &c, rc, why);
	CHECK("chan_check/bad-rec-before-done", c.detach && !c.has_timeout,
	      "detach %d, timeout %d", c.detach, c.has_timeout);

	pkt_make(&c, IPPROTO_TCP);
	call_expect_put(77, 0, NULL);
	shm->ans.rc = 12345;
	rc = call(&c, &why);
	refused("chan_check/bad-call-op", &c, rc, why);
	CHECK("chan_check/bad-call-unanswered", shm->ans.rc == 12345, "answered %d",
	      shm->ans.rc);

	pkt_make(&c, IPPROTO_TCP);
	call_expect_put(0, 0, NULL);
	rc = call(&c, &why);
	refused("chan_check/bad-call-op-zero", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.verdict = 7;
	rc = done(&c, &why);
	refused("chan_check/bad-verdict", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.verdict = -1;
	rc = done(&c, &why);
	refused("chan_check/bad-verdict-negative", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.kept = KEEP_BYTES_MAX + 1;
	rc = done(&c, &why);
	refused("chan_check/bad-kept-max", &c, rc, why);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.kept = UINT32_MAX;
	rc = call(&c, &why);
	refused("chan_check/bad-kept-huge-call", &c, rc, why);

	pkt_make(&c, IPPROTO_UDP);
	shm->res.kept = 1;
	rc = done(&c, &why);
	refused("chan_check/bad-kept-udp", &c, rc, why);
}

/* ------------------------------------------------------------ host rules */

static void test_host_rules(void)
{
	struct cth_expect e;
	struct pkt_call c;
	const char *why;
	char name[41];
	size_t n;
	int rc;

	/* past the payload, and from before it */
	pkt_make(&c, IPPROTO_TCP);
	mangle_put((uint32_t)strlen(PAYLOAD) - 2, 4, "abcd");
	mangle_put(UINT32_MAX, 1, "a");
	rc = done(&c, &why);
	CHECK("chan_check/host-mangle-outside", rc == CTH_VERDICT_ACCEPT &&
	      !pkt_call_mangled(&c, &n), "rc %d", rc);
	pkt_call_release(&c);

	/* TCP without NAT: the length stays */
	pkt_make(&c, IPPROTO_TCP);
	mangle_put(5, 8, "10,0,0,99");
	rc = done(&c, &why);
	CHECK("chan_check/host-mangle-tcp-length", rc == CTH_VERDICT_ACCEPT &&
	      !pkt_call_mangled(&c, &n), "rc %d", rc);
	pkt_call_release(&c);

	/* a pinhole between two third parties */
	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	inet_pton(AF_INET, "192.0.2.1", &e.src);
	inet_pton(AF_INET, "192.0.2.2", &e.dst);
	call_expect_put(CHAN_OP_EXPECT, 0, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-third-party", rc == 0 && shm->ans.rc == -EPERM &&
	      rec.n_exp == 0 && c.n_refused == 1, "rc %d, answer %d, %u sent, %u refused",
	      rc, shm->ans.rc, rec.n_exp, c.n_refused);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	e.class = 200;
	call_expect_put(CHAN_OP_EXPECT, 0, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-class", rc == 0 && shm->ans.rc == -EINVAL &&
	      rec.n_exp == 0, "rc %d, answer %d", rc, shm->ans.rc);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	e.flags = 1u << 30;
	call_expect_put(CHAN_OP_EXPECT, 0, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-flags", rc == 0 && shm->ans.rc == -EINVAL &&
	      rec.n_exp == 0, "rc %d, answer %d", rc, shm->ans.rc);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	call_expect_put(CHAN_OP_EXPECT, 1u << 5, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-how", rc == 0 && shm->ans.rc == -EINVAL &&
	      rec.n_exp == 0, "rc %d, answer %d", rc, shm->ans.rc);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	call_expect_put(CHAN_OP_EXPECT, 0, NULL);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-none", rc == 0 && shm->ans.rc == -EINVAL &&
	      rec.n_exp == 0, "rc %d, answer %d", rc, shm->ans.rc);
	pkt_call_release(&c);

	/* a function name the host refuses in process (PKT_EXPECT_FN_MAX),
	 * as an honest sandbox passes it on */
	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	memset(name, 'f', 40);
	name[40] = '\0';
	e.fn = name;
	call_expect_put(CHAN_OP_EXPECT, 0, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-fn-long", rc == 0 && shm->ans.rc == -EINVAL &&
	      rec.n_exp == 0, "rc %d, answer %d, %u sent (fn '%s')", rc, shm->ans.rc,
	      rec.n_exp, rec.fn[0]);
	pkt_call_release(&c);

	/* ... and as a hostile one writes it: no NUL in its slot */
	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	call_expect_put(CHAN_OP_EXPECT, 0, &e);
	shm->res.call.exp.has_fn = 1;
	memset(shm->res.call.exp.fn, 'f', sizeof(shm->res.call.exp.fn));
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-fn-unterminated", rc == 0 &&
	      shm->ans.rc == -EINVAL && rec.n_exp == 0, "rc %d, answer %d, %u sent (fn '%s')",
	      rc, shm->ans.rc, rec.n_exp, rec.fn[0]);
	pkt_call_release(&c);

	/* the longest name the host takes goes through whole */
	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	memset(name, 'g', PKT_EXPECT_FN_MAX - 1);
	name[PKT_EXPECT_FN_MAX - 1] = '\0';
	e.fn = name;
	call_expect_put(CHAN_OP_EXPECT, 0, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-fn-longest", rc == 0 && shm->ans.rc == 0 &&
	      rec.n_exp == 1 && strcmp(rec.fn[0], name) == 0, "rc %d, answer %d, fn '%s'",
	      rc, shm->ans.rc, rec.fn[0]);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	call_expect_put(CHAN_OP_EXPECT_CTL, 9, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-ctl-op", rc == 0 && shm->ans.rc == -EINVAL &&
	      rec.n_ctl == 0, "rc %d, answer %d, %u ctl", rc, shm->ans.rc, rec.n_ctl);
	pkt_call_release(&c);

	/* a refresh of a third party's pinhole is the guard's too */
	pkt_make(&c, IPPROTO_TCP);
	e = exp_make();
	inet_pton(AF_INET, "192.0.2.1", &e.src);
	inet_pton(AF_INET, "192.0.2.2", &e.dst);
	call_expect_put(CHAN_OP_EXPECT_CTL, CTH_EXPECT_OP_REFRESH, &e);
	rc = call(&c, &why);
	CHECK("chan_check/host-expect-ctl-refresh-guard", rc == 0 &&
	      shm->ans.rc == -EPERM && rec.n_ctl == 0 && c.n_refused == 1,
	      "rc %d, answer %d, %u ctl", rc, shm->ans.rc, rec.n_ctl);
	pkt_call_release(&c);
}

/* ------------------------------------------------------------ state */

static void test_state(void)
{
	struct pkt_call c;
	const char *why;
	uint8_t kpriv[CTH_PRIV_MAX];
	bool past_clear = true;
	int rc;

	/* the daemon's priv_size, whatever the sandbox writes */
	pkt_make(&c, IPPROTO_TCP);
	memset(shm->res.priv, 0xaa, sizeof(shm->res.priv));
	rc = done(&c, &why);
	for (size_t i = PRIV_SIZE; i < CTH_PRIV_MAX; i++)
		past_clear &= c.priv[i] == 0;
	CHECK("chan_check/state-priv-size", rc == CTH_VERDICT_ACCEPT && c.priv[0] == 0xaa &&
	      c.priv[PRIV_SIZE - 1] == 0xaa && past_clear && c.priv_changed,
	      "rc %d, priv[0] 0x%x, past %d, changed %d", rc, c.priv[0], past_clear,
	      c.priv_changed);
	pkt_call_release(&c);

	/* the state as the kernel has it, bytes past priv_size different:
	 * nothing to write */
	pkt_make(&c, IPPROTO_TCP);
	memset(kpriv, 0x55, sizeof(kpriv));
	memset(shm->res.priv, 0x55, PRIV_SIZE);
	memset(shm->res.priv + PRIV_SIZE, 0xee, CTH_PRIV_MAX - PRIV_SIZE);
	why = NULL;
	rc = chan_check_done(&chk, shm, &c, kpriv, sizeof(kpriv), &stats, &why);
	CHECK("chan_check/state-unchanged", rc == CTH_VERDICT_ACCEPT && !c.priv_changed,
	      "rc %d, changed %d", rc, c.priv_changed);
	pkt_call_release(&c);

	/* the sandbox's word that the in-flight state was used */
	pkt_make(&c, IPPROTO_TCP);
	shm->res.priv_changed = 1;
	rc = done(&c, &why);
	CHECK("chan_check/state-changed-word", rc == CTH_VERDICT_ACCEPT && c.priv_changed,
	      "rc %d", rc);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	{
		uint64_t before = atomic_load(&stats.h[inst.slot][STATS_H_STATE_RESET]);

		shm->res.state_reset = 1;
		rc = done(&c, &why);
		CHECK("chan_check/state-reset-counted", rc == CTH_VERDICT_ACCEPT &&
		      c.state_reset &&
		      atomic_load(&stats.h[inst.slot][STATS_H_STATE_RESET]) == before + 1,
		      "rc %d", rc);
	}
	pkt_call_release(&c);

	/* n_refused: bounded by what one call may make */
	pkt_make(&c, IPPROTO_TCP);
	shm->res.n_refused = UINT32_MAX;
	rc = done(&c, &why);
	CHECK("chan_check/n-refused-bounded", rc == CTH_VERDICT_ACCEPT &&
	      c.n_refused <= PKT_EXPECT_PER_CALL, "rc %d, %u refused", rc, c.n_refused);
	pkt_call_release(&c);

	pkt_make(&c, IPPROTO_TCP);
	shm->res.n_refused = 3;
	rc = done(&c, &why);
	CHECK("chan_check/n-refused-added", rc == CTH_VERDICT_ACCEPT && c.n_refused == 3,
	      "rc %d, %u refused", rc, c.n_refused);
	pkt_call_release(&c);
}

/* What the check reads is its copy: a sandbox that changes the shared
 * memory after the worker took it changes nothing (shown here by the
 * copy's own bound, rec_used read once). */
static void test_copy(void)
{
	struct pkt_call c;
	const char *why;
	int rc;

	pkt_make(&c, IPPROTO_TCP);
	rec_put(CHAN_REC_DETACH, NULL, 0, NULL, 0);
	rc = done(&c, &why);
	CHECK("chan_check/copy-taken", rc == CTH_VERDICT_ACCEPT && chk.res.rec_used == 4 &&
	      memcmp(chk.res.rec, shm->res.rec, 4) == 0, "rc %d, %u bytes", rc,
	      chk.res.rec_used);
	pkt_call_release(&c);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A batch's words (chan_check_word()): only the awaited slot's CALL or
 * DONE; another slot's, another ring, a slot past the channel's, or
 * stray bits above the slot break the channel. */
static void test_words(void)
{
	const char *why = NULL;
	int rc3 = chan_check_word(chan_word(CHAN_RING_CALL, 3), 3, &why);
	int rd3 = chan_check_word(chan_word(CHAN_RING_DONE, 3), 3, &why);
	int rd0 = chan_check_word(chan_word(CHAN_RING_DONE, 0), 0, &why);

	CHECK("chan_check/word-in-turn", rc3 == CHAN_RING_CALL && rd3 == CHAN_RING_DONE &&
	      rd0 == CHAN_RING_DONE, "call %d, done %d, done 0 %d", rc3, rd3, rd0);
	why = NULL;
	rc3 = chan_check_word(chan_word(CHAN_RING_DONE, 4), 3, &why);
	CHECK("chan_check/word-next-slot", rc3 == -EPROTO && why && strstr(why, "slot"),
	      "%d (%s)", rc3, why ? why : "");
	why = NULL;
	rc3 = chan_check_word(chan_word(CHAN_RING_CALL, 2), 3, &why);
	CHECK("chan_check/word-earlier-slot", rc3 == -EPROTO && why, "%d", rc3);
	why = NULL;
	rc3 = chan_check_word(chan_word(CHAN_RING_DONE, CHAN_SLOTS), CHAN_SLOTS, &why);
	CHECK("chan_check/word-slot-past", rc3 == -EPROTO && why, "%d", rc3);
	why = NULL;
	rc3 = chan_check_word(chan_word(CHAN_RING_DONE, 1) | 1u << 16, 1, &why);
	CHECK("chan_check/word-stray-bits", rc3 == -EPROTO && why, "%d", rc3);
	why = NULL;
	rc3 = chan_check_word(chan_word(CHAN_RING_REQ, 1), 1, &why);
	rd3 = chan_check_word(chan_word(CHAN_RING_ANSWER, 1), 1, &why);
	rd0 = chan_check_word(chan_word(CHAN_RING_READY, 0), 0, &why);
	CHECK("chan_check/word-not-sandbox", rc3 == -EPROTO && rd3 == -EPROTO && rd0 == -EPROTO,
	      "req %d, answer %d, ready %d", rc3, rd3, rd0);
	/* the word's fields as the sandbox reads a REQ: a count past the
	 * slots reads as none that fits */
	CHECK("chan/word-fields", chan_word_ring(chan_word(CHAN_RING_REQ, 8)) == CHAN_RING_REQ &&
	      chan_word_arg(chan_word(CHAN_RING_REQ, 8)) == 8 &&
	      chan_word_arg(chan_word(CHAN_RING_REQ, 8) | 1u << 20) == 0xff,
	      "ring %u, arg %u", chan_word_ring(chan_word(CHAN_RING_REQ, 8)),
	      chan_word_arg(chan_word(CHAN_RING_REQ, 8)));
}

/* The doorbell as the worker waits on it in a turn (chan.h): one recv()
 * bounded by the socket's own timeout, -ETIMEDOUT when it runs out, a
 * word rung, and -EPIPE at once when the other end is gone. */
static void test_ring_take(void)
{
	uint32_t word = 0;
	uint64_t t0, waited;
	int sv[2], rc;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) < 0) {
		CHECK("chan/ring-socketpair", 0, "%s", strerror(errno));
		return;
	}
	CHECK("chan/ring-timeout-set", chan_ring_timeout_set(sv[0], 60) == 0, "setsockopt");
	t0 = ms_now();
	rc = chan_ring_take(sv[0], &word);
	waited = ms_now() - t0;
	CHECK("chan/ring-take-times-out", rc == -ETIMEDOUT && waited >= 50 && waited < 1000,
	      "rc %d after %llu ms", rc, (unsigned long long)waited);
	chan_ring(sv[1], CHAN_RING_DONE);
	rc = chan_ring_take(sv[0], &word);
	CHECK("chan/ring-take-word", rc == 0 && word == CHAN_RING_DONE, "rc %d word %u", rc, word);
	/* a poll()ed wait on the same socket still answers by its own ms */
	t0 = ms_now();
	rc = chan_ring_wait(sv[0], 10, &word);
	waited = ms_now() - t0;
	CHECK("chan/ring-wait-own-ms", rc == -ETIMEDOUT && waited < 50,
	      "rc %d after %llu ms", rc, (unsigned long long)waited);
	close(sv[1]);
	t0 = ms_now();
	rc = chan_ring_take(sv[0], &word);
	waited = ms_now() - t0;
	CHECK("chan/ring-take-peer-gone", rc == -EPIPE && waited < 50, "rc %d after %llu ms", rc,
	      (unsigned long long)waited);
	close(sv[0]);
}

int main(void)
{
	log_init(LOG_L_ERR, 0);
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		return 1;
	chan->magic = CHAN_MAGIC;
	chan->version = CHAN_VERSION;
	shm = &chan->slot[0];
	snprintf(inst.name, sizeof(inst.name), "chk");
	inst.pl = &plugin;
	inst.n_classes = 1;
	inst.guard.mark_mask = 0xff;
	inst.slot = 1;

	test_honest();
	test_honest_calls();
	test_kept();
	test_keep_rec();
	test_malformed();
	test_host_rules();
	test_state();
	test_copy();
	test_ring_take();
	test_words();
	free(chan);
	return check_exit();
}
