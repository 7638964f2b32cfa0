/* SPDX-License-Identifier: MIT */
/*
 * The sandbox end to end on this machine, without a kernel: the spawner
 * and cthelperd-sandbox from the build, real plugins in their sandboxes,
 * the worker's side (server/sandbox/sandbox.c) driving them with packets
 * built here and backends that record what reaches the "kernel".
 *
 * Needs root (the spawner changes user); as another user the sandboxes
 * run as that user and the user checks say so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "base/log.h"
#include "pkt4.h"
#include "host/call.h"
#include "host/keep.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"
#include "sandbox/confine.h"
#include "sandbox/describe.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "sbxrt.h"

struct rec {
	unsigned int n_exp;
	struct cth_expect exp[16];
	unsigned int n_ctl;
	unsigned int ctl_ms;    /* the "kernel" takes this long to answer */
	int taken_at_call;      /* batch_taken at the first call, -1: none */
};

/* Slots of the batch under test taken so far (a call records it). */
static int batch_taken;

static struct stats_block stats;
static uint8_t pktbuf[2048];
/* a batch's packets each in a buffer of their own, as in the worker */
static uint8_t pktbufs[SANDBOX_BATCH_MAX][2048];

static int rec_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	struct rec *r = c->backend;

	(void)how;
	if (r->taken_at_call < 0)
		r->taken_at_call = batch_taken;
	if (r->n_exp < 16)
		r->exp[r->n_exp++] = *e;
	return 0;
}

static int rec_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	struct rec *r = c->backend;

	(void)op;
	(void)e;
	if (r->taken_at_call < 0)
		r->taken_at_call = batch_taken;
	r->n_ctl++;
	if (r->ctl_ms)
		usleep(r->ctl_ms * 1000u);
	return 0;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* An IPv4 packet of a connection 10.0.0.1:40000 -> 10.0.0.2:port with
 * text as payload, its view filled as the worker's qmsg.c would. */
static void pkt_make_in(uint8_t *buf, size_t len, struct pkt_call *c,
			const struct instance *in, struct rec *r, uint8_t proto, uint16_t port,
			const char *text)
{
	memset(c, 0, sizeof(*c));
	memset(r, 0, sizeof(*r));
	r->taken_at_call = -1;
	pkt4_make(buf, len, proto, port, text, &c->pkt);
	c->inst = in;
	c->backend = r;
	c->expect_fn = rec_expect;
	c->expect_ctl_fn = rec_expect_ctl;
	c->stats = &stats;
}

static void pkt_make(struct pkt_call *c, const struct instance *in, struct rec *r,
		     uint8_t proto, uint16_t port, const char *text)
{
	pkt_make_in(pktbuf, sizeof(pktbuf), c, in, r, proto, port, text);
}

static uint64_t hcount(const struct instance *in, enum stats_helper_counter k)
{
	return atomic_load(&stats.h[in->slot][k]);
}

/* The sandbox of in comes back: the main loop's restarts, as serve.c
 * runs them, until it is up or ms have passed. */
static bool wait_up(struct runtime *rt, const struct instance *in, unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		sandbox_tick_all(rt, now_ms(), &stats);
		if (in->sb_status.up)
			return true;
		usleep(20000);
	}
	return false;
}

/* ps and top name a sandbox by its helper, not "exe" (sandboxd/serve.c) */
static void test_comm(pid_t pid, const char *want)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((f = fopen(path, "r"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = '\0';
	CHECK("sandbox/comm", strcmp(comm, want) == 0, "comm \"%s\", want \"%s\"", comm, want);
}

static void test_ftp(const struct instance *ftp)
{
	struct pkt_call c;
	struct rec r;
	int v;

	pkt_make(&c, ftp, &r, IPPROTO_TCP, 21, "PORT 10,0,0,1,156,65\r\n");
	v = sandbox_run(ftp->sb, &c, NULL, 0, now_ms(), &stats);
	CHECK("sandbox/ftp-port-verdict", v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	CHECK("sandbox/ftp-port-expectation", r.n_exp == 1 && r.exp[0].dport == 40001 &&
	      r.exp[0].proto == IPPROTO_TCP, "%u expectations, dport %u", r.n_exp,
	      r.n_exp ? r.exp[0].dport : 0);
	pkt_call_release(&c);
	/* a second packet on the same sandbox: the turns line up */
	pkt_make(&c, ftp, &r, IPPROTO_TCP, 21, "PORT 10,0,0,1,156,66\r\n");
	v = sandbox_run(ftp->sb, &c, NULL, 0, now_ms(), &stats);
	CHECK("sandbox/ftp-second-packet", v == CTH_VERDICT_ACCEPT && r.n_exp == 1 &&
	      r.exp[0].dport == 40002, "verdict %d, %u expectations", v, r.n_exp);
	pkt_call_release(&c);
}

static void test_host_warning(const struct instance *pr);
static void test_hang_after_call(struct runtime *rt, const struct instance *pr);
static void test_batch_skip(struct runtime *rt, const struct instance *pr);
static void test_batch_death(struct runtime *rt, const struct instance *pr);
static void test_batch_timeout(struct runtime *rt, const struct instance *pr);

static void test_probe(struct runtime *rt, const struct instance *pr)
{
	struct pkt_call c;
	struct rec r;
	int v;

	pkt_make(&c, pr, &r, IPPROTO_TCP, 7000, "MARK 5\nFLUSH\n");
	v = sandbox_run(pr->sb, &c, NULL, 0, now_ms(), &stats);
	/* mark_mask is 0: the mark is refused (masked) by the worker's guard */
	CHECK("sandbox/probe-calls", v == CTH_VERDICT_ACCEPT && r.n_ctl == 1 && c.mark_masked,
	      "verdict %d, %u ctl calls, masked %d", v, r.n_ctl, c.mark_masked);
	pkt_call_release(&c);

	/* a plugin that never returns: killed at its budget, restarted */
	pkt_make(&c, pr, &r, IPPROTO_TCP, 7000, "HANG\n");
	v = sandbox_run(pr->sb, &c, NULL, 0, now_ms(), &stats);
	CHECK("sandbox/hang-timeout", v == -ETIMEDOUT && hcount(pr, STATS_H_SANDBOX_TIMEOUTS) == 1,
	      "rc %d, timeouts %llu", v,
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_TIMEOUTS));
	CHECK("sandbox/hang-status", !pr->sb_status.up &&
	      strstr(pr->sb_status.reason, "timeout") != NULL, "up %d, reason '%s'",
	      pr->sb_status.up, pr->sb_status.reason);
	pkt_call_release(&c);
	pkt_make(&c, pr, &r, IPPROTO_TCP, 7000, "MARK 5\n");
	v = sandbox_run(pr->sb, &c, NULL, 0, now_ms(), &stats);
	CHECK("sandbox/down-answers-at-once", v == -EAGAIN, "rc %d", v);
	pkt_call_release(&c);
	CHECK("sandbox/restarted", wait_up(rt, pr, 3000) &&
	      hcount(pr, STATS_H_SANDBOX_RESTARTS) == 1, "up %d, restarts %llu",
	      pr->sb_status.up, (unsigned long long)hcount(pr, STATS_H_SANDBOX_RESTARTS));
	pkt_make(&c, pr, &r, IPPROTO_TCP, 7000, "FLUSH\n");
	v = sandbox_run(pr->sb, &c, NULL, 0, now_ms(), &stats);
	CHECK("sandbox/serves-after-restart", v == CTH_VERDICT_ACCEPT && r.n_ctl == 1,
	      "rc %d, %u ctl calls", v, r.n_ctl);
	pkt_call_release(&c);
	CHECK("sandbox/lost-counted", hcount(pr, STATS_H_SANDBOX_LOST) == 2,
	      "lost %llu", (unsigned long long)hcount(pr, STATS_H_SANDBOX_LOST));
	test_host_warning(pr);
	test_hang_after_call(rt, pr);
	test_batch_skip(rt, pr);
	test_batch_death(rt, pr);
	test_batch_timeout(rt, pr);
}

/* The budget covers the whole packet, the worker's time answering its
 * calls included: a turn's first wait is the socket's own timeout (the
 * whole budget), a wait after a call polls for what is left, so a plugin
 * whose call took 200 ms and that then hangs is killed at the budget
 * (300 ms), not a budget after its call. */
static void test_hang_after_call(struct runtime *rt, const struct instance *pr)
{
	uint64_t timeouts = hcount(pr, STATS_H_SANDBOX_TIMEOUTS), t0, took;
	struct pkt_call c;
	struct rec r;
	int v;

	if (!wait_up(rt, pr, 3000)) {
		CHECK("sandbox/hang-after-call-up", 0, "not up: '%s'", pr->sb_status.reason);
		return;
	}
	pkt_make(&c, pr, &r, IPPROTO_TCP, 7000, "FLUSH\nHANG\n");
	r.ctl_ms = 200;
	t0 = now_ms();
	v = sandbox_run(pr->sb, &c, NULL, 0, now_ms(), &stats);
	took = now_ms() - t0;
	CHECK("sandbox/hang-after-call-timeout", v == -ETIMEDOUT && r.n_ctl == 1 &&
	      hcount(pr, STATS_H_SANDBOX_TIMEOUTS) == timeouts + 1,
	      "rc %d, %u ctl calls, timeouts %llu", v, r.n_ctl,
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_TIMEOUTS));
	/* sandbox_timeout_ms = 300; the kill and reap come after it */
	CHECK("sandbox/hang-after-call-budget", took >= 280 && took < 420, "took %llu ms",
	      (unsigned long long)took);
	pkt_call_release(&c);
}

/* The host code's own warning in the sandbox (kept bytes evicted: more
 * connections keep bytes than the table holds) reaches the worker as a
 * log line; as a write() to stderr it would end the sandbox (seen in the
 * bench: "seccomp: refused system call write"). */
static void test_host_warning(const struct instance *pr)
{
	uint64_t deaths = hcount(pr, STATS_H_SANDBOX_SECCOMP) + hcount(pr, STATS_H_SANDBOX_CRASHES);
	struct pkt_call c;
	struct rec r;
	int v = 0;

	for (unsigned int i = 0; i < KEEP_ENTRIES + 8 && v >= 0; i++) {
		pkt_make(&c, pr, &r, IPPROTO_TCP, 7000, "KEEP\nnot complete");
		c.pkt.ct_id = 100 + i;
		c.pkt.tuple[CTH_DIR_ORIGINAL].sport = htons((uint16_t)(41000 + i));
		c.pkt.tuple[CTH_DIR_REPLY].dport = c.pkt.tuple[CTH_DIR_ORIGINAL].sport;
		v = sandbox_run(pr->sb, &c, NULL, 0, now_ms(), &stats);
		pkt_call_release(&c);
	}
	CHECK("sandbox/host-warning-no-write", v >= 0 && pr->sb_status.up &&
	      hcount(pr, STATS_H_SANDBOX_SECCOMP) + hcount(pr, STATS_H_SANDBOX_CRASHES) == deaths,
	      "rc %d, up %d, reason '%s'", v, pr->sb_status.up, pr->sb_status.reason);
}

/* A batch of n packets for in's sandbox, texts[k] in slot k, posted
 * (all must fit), then taken in order: the verdicts in v[], skip[k]
 * takes slot k as the worker takes a detached connection's packet. */
static void batch_run(const struct instance *in, unsigned int n, const char *const *texts,
		      const bool *skip, struct pkt_call *c, struct rec *r, int *v)
{
	unsigned int posted = 0;

	batch_taken = 0;
	for (unsigned int k = 0; k < n; k++) {
		pkt_make_in(pktbufs[k], sizeof(pktbufs[k]), &c[k], in, &r[k],
			    IPPROTO_TCP, in->pl->desc->name[0] == 'f' ? 21 : 7000, texts[k]);
		v[k] = sandbox_post(in->sb, &c[k], NULL, 0, now_ms(), &stats);
		if (v[k] == (int)k)
			posted++;
	}
	for (unsigned int k = 0; k < posted; k++) {
		v[k] = sandbox_take(in->sb, k, &c[k], NULL, 0, skip && skip[k], &stats);
		batch_taken++;
	}
	if (posted)
		sandbox_batch_close(in->sb, &stats);
}

static void batch_release(struct pkt_call *c, unsigned int n)
{
	for (unsigned int k = 0; k < n; k++)
		pkt_call_release(&c[k]);
}

/*
 * Three PORT commands in one batch: each slot's result is its own (its
 * expectation's port), in order, and the expectation call of slot k
 * reaches the worker after slot k-1 was taken (its DONE) and before slot
 * k is: the sandbox runs the slots in order.
 */
static void test_batch_order(const struct instance *ftp)
{
	const char *texts[] = { "PORT 10,0,0,1,156,65\r\n", "PORT 10,0,0,1,156,66\r\n",
				"PORT 10,0,0,1,156,67\r\n" };
	struct pkt_call c[3];
	struct rec r[3];
	int v[3];
	bool ok = true;

	batch_run(ftp, 3, texts, NULL, c, r, v);
	for (unsigned int k = 0; k < 3; k++)
		ok = ok && v[k] == CTH_VERDICT_ACCEPT && r[k].n_exp == 1 &&
		     r[k].exp[0].dport == 40001 + k;
	CHECK("sandbox/batch-order", ok, "verdicts %d %d %d, ports %u %u %u", v[0], v[1], v[2],
	      r[0].n_exp ? r[0].exp[0].dport : 0, r[1].n_exp ? r[1].exp[0].dport : 0,
	      r[2].n_exp ? r[2].exp[0].dport : 0);
	CHECK("sandbox/batch-call-after-done", r[0].taken_at_call == 0 &&
	      r[1].taken_at_call == 1 && r[2].taken_at_call == 2,
	      "slots taken at the calls: %d %d %d", r[0].taken_at_call, r[1].taken_at_call,
	      r[2].taken_at_call);
	batch_release(c, 3);
}

/*
 * The sandbox dies on slot 1 of 4: slot 0 keeps its result, every later
 * slot gets an error (the worker gives it sandbox_verdict) and is
 * counted lost; the death is counted once.
 */
static void test_batch_death(struct runtime *rt, const struct instance *pr)
{
	const char *texts[] = { "FLUSH\n", "CRASH\n", "FLUSH\n", "MARK 1\n" };
	uint64_t lost = hcount(pr, STATS_H_SANDBOX_LOST);
	uint64_t crashes = hcount(pr, STATS_H_SANDBOX_CRASHES);
	struct pkt_call c[4];
	struct rec r[4];
	int v[4];

	if (!wait_up(rt, pr, 3000)) {
		CHECK("sandbox/batch-death-up", 0, "not up: '%s'", pr->sb_status.reason);
		return;
	}
	batch_run(pr, 4, texts, NULL, c, r, v);
	CHECK("sandbox/batch-death-before", v[0] == CTH_VERDICT_ACCEPT && r[0].n_ctl == 1,
	      "slot 0: %d, %u ctl calls", v[0], r[0].n_ctl);
	CHECK("sandbox/batch-death-after", v[1] == -EPIPE && v[2] < 0 && v[3] < 0 &&
	      r[2].n_ctl == 0 && !c[3].has_mark, "slots 1-3: %d %d %d, slot 2 ctl %u",
	      v[1], v[2], v[3], r[2].n_ctl);
	CHECK("sandbox/batch-death-lost", hcount(pr, STATS_H_SANDBOX_LOST) == lost + 3 &&
	      hcount(pr, STATS_H_SANDBOX_CRASHES) == crashes + 1 && !pr->sb_status.up,
	      "lost %llu (was %llu), crashes %llu (was %llu)",
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_LOST), (unsigned long long)lost,
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_CRASHES),
	      (unsigned long long)crashes);
	batch_release(c, 4);
}

/*
 * The budget is per packet (sandbox_timeout_ms = 300 for the probe),
 * from when the slot before it was done: two slots of 200 ms each pass
 * (400 ms, more than one budget), the third that hangs is killed 300 ms
 * after the second was done, and it and the fourth are lost.
 */
static void test_batch_timeout(struct runtime *rt, const struct instance *pr)
{
	const char *texts[] = { "SLEEP 200\n", "SLEEP 200\n", "HANG\n", "FLUSH\n" };
	uint64_t lost = hcount(pr, STATS_H_SANDBOX_LOST);
	uint64_t timeouts = hcount(pr, STATS_H_SANDBOX_TIMEOUTS), t0, took;
	struct pkt_call c[4];
	struct rec r[4];
	int v[4];

	if (!wait_up(rt, pr, 3000)) {
		CHECK("sandbox/batch-timeout-up", 0, "not up: '%s'", pr->sb_status.reason);
		return;
	}
	t0 = now_ms();
	batch_run(pr, 4, texts, NULL, c, r, v);
	took = now_ms() - t0;
	CHECK("sandbox/batch-timeout-per-packet", v[0] == CTH_VERDICT_ACCEPT &&
	      v[1] == CTH_VERDICT_ACCEPT, "slots 0, 1: %d %d", v[0], v[1]);
	CHECK("sandbox/batch-timeout-killed", v[2] == -ETIMEDOUT && v[3] < 0 && r[3].n_ctl == 0 &&
	      hcount(pr, STATS_H_SANDBOX_TIMEOUTS) == timeouts + 1 &&
	      hcount(pr, STATS_H_SANDBOX_LOST) == lost + 2,
	      "slots 2, 3: %d %d, timeouts %llu (was %llu), lost %llu (was %llu)", v[2], v[3],
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_TIMEOUTS),
	      (unsigned long long)timeouts,
	      (unsigned long long)hcount(pr, STATS_H_SANDBOX_LOST), (unsigned long long)lost);
	/* 200 + 200 + 300, then the kill and reap */
	CHECK("sandbox/batch-timeout-budget", took >= 680 && took < 1000, "took %llu ms",
	      (unsigned long long)took);
	batch_release(c, 4);
}

/*
 * The detach case: a slot the worker no longer wants (an earlier slot
 * detached its connection) is skipped: its call is refused without
 * reaching the "kernel", its records (the mark) are not done, it is not
 * counted lost, and the slot after it is taken as usual.
 */
static void test_batch_skip(struct runtime *rt, const struct instance *pr)
{
	const char *texts[] = { "DETACH\n", "MARK 1\nFLUSH\n", "FLUSH\n" };
	const bool skip[] = { false, true, false };
	uint64_t lost = hcount(pr, STATS_H_SANDBOX_LOST);
	struct pkt_call c[3];
	struct rec r[3];
	int v[3];

	if (!wait_up(rt, pr, 3000)) {
		CHECK("sandbox/batch-skip-up", 0, "not up: '%s'", pr->sb_status.reason);
		return;
	}
	batch_run(pr, 3, texts, skip, c, r, v);
	CHECK("sandbox/batch-skip-detach", v[0] == CTH_VERDICT_ACCEPT && c[0].detach,
	      "slot 0: %d, detach %d", v[0], c[0].detach);
	CHECK("sandbox/batch-skip-unread", v[1] == 0 && r[1].n_ctl == 0 && !c[1].has_mark,
	      "slot 1: %d, %u ctl calls, mark %d", v[1], r[1].n_ctl, c[1].has_mark);
	CHECK("sandbox/batch-skip-next", v[2] == CTH_VERDICT_ACCEPT && r[2].n_ctl == 1 &&
	      r[2].taken_at_call == 2 && pr->sb_status.up &&
	      hcount(pr, STATS_H_SANDBOX_LOST) == lost, "slot 2: %d, %u ctl calls, up %d",
	      v[2], r[2].n_ctl, pr->sb_status.up);
	batch_release(c, 3);
}

/* The lines a sandbox's start logs (log_capture_set()). */
struct seen {
	char text[2048];
};

static void seen_add(void *arg, int level, const char *line)
{
	struct seen *sn = arg;
	size_t n = strlen(sn->text);

	(void)level;
	snprintf(sn->text + n, sizeof(sn->text) - n, "%s\n", line);
}

/* A runtime of ctoralloc alone with sandbox_memory mb, its sandbox
 * started and stopped: the start's result, whether it was up, its lines. */
static int ctor_start(const char *dir, unsigned int mb, bool *up, struct seen *sn)
{
	char text[1024];
	struct runtime *rt;
	int rc;

	sn->text[0] = '\0';
	snprintf(text, sizeof(text),
		 "[server]\nplugin_dir = %s\n"
		 "[helper ctoralloc]\nplugin = ctoralloc\nqueue = 3\nsandbox_memory = %u\n",
		 dir, mb);
	if (!(rt = sbxrt_build(text)))
		return -EINVAL;
	log_capture_set(seen_add, sn);
	rc = sandbox_start_all(rt, &stats);
	log_capture_set(NULL, NULL);
	*up = rt->inst[0].sb_status.up;
	sandbox_stop_all(rt);
	runtime_free(rt);
	return rc;
}

/*
 * sandbox_memory bounds a plugin's constructors too: ctoralloc's
 * constructor allocates 32 MiB at the load, and its init() fails when it
 * did not get them.  Under 16 MiB (the smallest sandbox_memory) the
 * sandbox does not start, under 64 it does: the address-space limit
 * comes before the load (server/sandbox/confine.h).
 */
static void test_ctor_limit(const char *dir)
{
	struct seen sn;
	bool up = false;
	int rc;

	if (CONFINE_ASAN) {
		CHECK("sandbox/ctor-limit (skipped under ASan: its shadow memory is address "
		      "space, the sandbox has no RLIMIT_AS)", true, " ");
		return;
	}
	rc = ctor_start(dir, 16, &up, &sn);
	CHECK("sandbox/ctor-limit-refused", rc < 0 && !up && strstr(sn.text, "init") &&
	      strstr(sn.text, strerror(ENOMEM)), "start %d, up %d, logged '%s'", rc, up, sn.text);
	rc = ctor_start(dir, 64, &up, &sn);
	CHECK("sandbox/ctor-limit-within", rc == 0 && up, "start %d, up %d, logged '%s'", rc, up,
	      sn.text);
}

static int plugin_copy(const char *dir, const char *b, const char *from, const char *to)
{
	char src[1024], dst[1024], cmd[3300];

	snprintf(src, sizeof(src), "%s/%s", b, from);
	snprintf(dst, sizeof(dst), "%s/%s", dir, to);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && chmod 0644 '%s'", src, dst, dst);
	return system(cmd) == 0 ? 0 : -1;
}

static void plugin_unlink(const char *dir, const char *name)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
}

int main(void)
{
	const char *b = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	char text[4096], prog[2200], cwd[1024], dir[] = "/tmp/cth-test-sandbox-XXXXXX";
	const struct instance *ftp, *pr;
	struct runtime *rt;

	signal(SIGPIPE, SIG_IGN);
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	/* ftp.so and the test plugins in one plugin_dir of their own */
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0 ||
	    plugin_copy(dir, b, "plugins/ftp.so", "ftp.so") < 0 ||
	    plugin_copy(dir, b, "tests/plugins/probe.so", "probe.so") < 0 ||
	    plugin_copy(dir, b, "tests/plugins/ctoralloc.so", "ctoralloc.so") < 0) {
		perror("plugin dir");
		return 1;
	}
	snprintf(text, sizeof(text),
		 "[server]\nplugin_dir = %s\n"
		 "[helper ftp]\nqueue = 1\n"
		 "[helper probe]\nplugin = probe\nqueue = 2\nsandbox_timeout_ms = 300\n", dir);
	snprintf(prog, sizeof(prog), "%s/%s/" SPAWN_PROGRAM_NAME, cwd, b);
	spawn_program_set(prog);
	rt = sbxrt_build(text);
	CHECK("sandbox/runtime", rt != NULL, "runtime_build failed");
	if (!rt)
		return check_exit();
	CHECK("sandbox/spawner", spawn_is_open(), "spawn_open failed");
	CHECK("sandbox/start", sandbox_start_all(rt, &stats) == 0, "sandbox_start_all failed");
	ftp = sbxrt_inst(rt, "ftp");
	pr = sbxrt_inst(rt, "probe");
	CHECK("sandbox/up", ftp->sb_status.up && ftp->sb_status.pid > 0 && pr->sb_status.up,
	      "ftp up %d pid %d", ftp->sb_status.up, ftp->sb_status.pid);
	if (ftp->sb_status.up) {
		test_comm(ftp->sb_status.pid, "sbx-ftp");
		test_ftp(ftp);
		test_batch_order(ftp);
	}
	if (pr->sb_status.up)
		test_probe(rt, pr);
	sandbox_stop_all(rt);
	CHECK("sandbox/stopped", ftp->sb == NULL && !ftp->sb_status.up, "still up");
	runtime_free(rt);
	test_ctor_limit(dir);
	spawn_close();
	plugin_unlink(dir, "ftp.so");
	plugin_unlink(dir, "probe.so");
	plugin_unlink(dir, "ctoralloc.so");
	rmdir(dir);
	return check_exit();
}
