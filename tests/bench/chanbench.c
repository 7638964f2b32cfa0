/* SPDX-License-Identifier: MIT */
/*
 * cthbench-chan: what the sandbox costs a packet, on this machine, in
 * seconds (tests/bench/README.md, "Sandboxed vs in-process").  The ftp
 * plugin twice in one runtime, sandboxed (the worker's sandbox_run(), the
 * build's spawner and cthelperd-sandbox) and in process (what the worker
 * calls: keep_join(), pkt_call_run_newest(), keep_done()); the same
 * packets through each, per-packet wall and CPU time (this process and
 * its children: the spawner's sandboxes are the spawner's children, so
 * their CPU is read from /proc).
 *
 *   make B=build bench-chan                  # = the line below
 *   CTH_BUILD=build build/bench/cthbench-chan [N]
 *
 * Loads: "small", NOOP\r\n (the bench's round trips); "bulk", 64 KiB
 * segments of 64-byte text lines (the bench's bulk load: a segment as
 * GSO hands it to the queue), in sequence on one connection.  Each one
 * packet a turn (sandbox_run()), and "x8": eight packets a turn, as a
 * worker posts a receive's packets for one sandbox (sandbox_post(),
 * sandbox_take()); in process the packets are run one by one either way.
 *
 * Needs root for the sandboxes' user change (as test_sandbox); as
 * another user they run as that user.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfgload.h"
#include "pkt4.h"
#include "host/call.h"
#include "host/inflight.h"
#include "host/keep.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"
#include "sandbox/describe.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "sbxrt.h"

#define BULK_LEN (65535u - 40u)

static struct stats_block stats;
/* a batch's packets each in a buffer of their own: the worker's copy of
 * a packet is what a result's edits apply to */
static uint8_t pktbufs[SANDBOX_BATCH_MAX][65536];
static struct keep keep;
static struct inflight inflight;

struct load {
	const char *name;
	size_t len;             /* payload bytes */
	unsigned int n;         /* packets a run */
	unsigned int batch;     /* packets a sandbox turn */
};

struct result {
	double wall_ns, cpu_ns;  /* per packet */
	unsigned int errors;
};

static int bench_expect(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	(void)c;
	(void)e;
	(void)how;
	return 0;
}

static int bench_expect_ctl(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	(void)c;
	(void)op;
	(void)e;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ms(void)
{
	return mono_ns() / 1000000u;
}

/* CPU ns of this process and of pid's process (a sandbox), so far. */
static uint64_t cpu_ns(int pid)
{
	struct timespec ts;
	uint64_t ns;
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (pid <= 0)
		return ns;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return ns;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
		ns += (uint64_t)(ut + st) * (1000000000u / (uint64_t)sysconf(_SC_CLK_TCK));
	fclose(f);
	return ns;
}

/* One packet of load l at sequence number seq, in pktbuf and c. */
static void bench_packet(struct pkt_call *c, const struct instance *in, const struct load *l,
			 uint32_t seq, unsigned int k)
{
	uint8_t *pktbuf = pktbufs[k];
	static char text[65536];
	struct tcphdr *t = (void *)(pktbuf + sizeof(struct iphdr));

	if (!text[0]) {
		for (size_t i = 0; i + 64 <= sizeof(text); i += 64) {
			memset(text + i, 'a' + (char)(i / 64 % 26), 62);
			memcpy(text + i + 62, "\r\n", 2);
		}
	}
	memset(c, 0, sizeof(*c));
	if (l->len < 64) {
		pkt4_make(pktbuf, sizeof(pktbufs[k]), IPPROTO_TCP, 21, "NOOP\r\n", &c->pkt);
	} else {
		char save = text[l->len];

		text[l->len] = '\0';
		pkt4_make(pktbuf, sizeof(pktbufs[k]), IPPROTO_TCP, 21, text, &c->pkt);
		text[l->len] = save;
	}
	t->seq = htonl(seq);
	c->pkt.seq = seq;
	c->inst = in;
	c->expect_fn = bench_expect;
	c->expect_ctl_fn = bench_expect_ctl;
	c->keep = &keep;
	c->stats = &stats;
}

/* What worker_help_payload() does for one packet, either way. */
static int bench_one(const struct instance *in, struct pkt_call *c)
{
	uint64_t now = now_ms();
	int v;

	if (in->sb)
		return sandbox_run(in->sb, c, NULL, 0, now, &stats);
	pkt_call_host(c);
	keep_join(&keep, c, now);
	v = pkt_call_run_newest(c, &inflight, NULL, 0, now);
	keep_done(&keep, c, v, now);
	return v;
}

/* What worker_help_flush() does for a receive of n packets for one
 * sandbox: all posted, then each taken; the errors. */
static unsigned int bench_batch(const struct instance *in, struct pkt_call *c, unsigned int n)
{
	uint64_t now = now_ms();
	unsigned int errors = 0, posted = 0;

	for (unsigned int k = 0; k < n; k++)
		if (sandbox_post(in->sb, &c[k], NULL, 0, now, &stats) >= 0)
			posted++;
	for (unsigned int k = 0; k < posted; k++)
		if (sandbox_take(in->sb, k, &c[k], NULL, 0, false, &stats) < 0)
			errors++;
	if (posted)
		sandbox_batch_close(in->sb, &stats);
	return errors + n - posted;
}

static struct result bench_run(const struct instance *in, const struct load *l)
{
	struct result r = { 0 };
	uint32_t seq = 1000;
	uint64_t t0, c0;
	int pid = in->sb ? in->sb_status.pid : 0;

	for (unsigned int i = 0; i < 16; i++) {  /* warm */
		struct pkt_call c;

		bench_packet(&c, in, l, seq, 0);
		seq += (uint32_t)c.pkt.payload_len;
		bench_one(in, &c);
		pkt_call_release(&c);
	}
	t0 = mono_ns();
	c0 = cpu_ns(pid);
	for (unsigned int i = 0; i < l->n; i += l->batch) {
		struct pkt_call c[SANDBOX_BATCH_MAX];
		unsigned int n = l->n - i < l->batch ? l->n - i : l->batch;

		for (unsigned int k = 0; k < n; k++) {
			bench_packet(&c[k], in, l, seq, k);
			seq += (uint32_t)c[k].pkt.payload_len;
		}
		if (in->sb && n > 1) {
			r.errors += bench_batch(in, c, n);
		} else {
			for (unsigned int k = 0; k < n; k++)
				if (bench_one(in, &c[k]) < 0)
					r.errors++;
		}
		for (unsigned int k = 0; k < n; k++)
			pkt_call_release(&c[k]);
	}
	r.wall_ns = (double)(mono_ns() - t0) / l->n;
	r.cpu_ns = (double)(cpu_ns(pid) - c0) / l->n;
	return r;
}

static struct runtime *bench_runtime(const char *dir)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "[server]\nplugin_dir = %s\n"
		 "[helper ftp]\nqueue = 1\n"
		 "[helper ftp-inproc]\nplugin = ftp\nqueue = 2\nsandbox = no\n", dir);
	return sbxrt_build(text);
}

int main(int argc, char **argv)
{
	const char *b = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	unsigned int n = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 10) : 20000;
	const struct load loads[] = {
		{ .name = "small (NOOP)", .len = 6, .n = n, .batch = 1 },
		{ .name = "bulk (64 KiB)", .len = BULK_LEN, .n = n / 10 ? n / 10 : 1, .batch = 1 },
		{ .name = "small x8", .len = 6, .n = n, .batch = SANDBOX_BATCH_MAX },
		{ .name = "bulk x8", .len = BULK_LEN, .n = n / 10 ? n / 10 : 1,
		  .batch = SANDBOX_BATCH_MAX },
	};
	char prog[2200], cwd[1024], cmd[4400], dir[] = "/tmp/cthbench-chan-XXXXXX";
	const struct instance *sbx, *inp;
	struct runtime *rt;
	int rc = 1;

	signal(SIGPIPE, SIG_IGN);
	if (inflight_init(&inflight, CFG_INFLIGHT_ENTRIES) < 0 ||
	    !getcwd(cwd, sizeof(cwd)) || !mkdtemp(dir) || chmod(dir, 0755) < 0)
		return 1;
	snprintf(cmd, sizeof(cmd), "cp '%s/plugins/ftp.so' '%s/ftp.so' && chmod 0644 '%s/ftp.so'",
		 b, dir, dir);
	snprintf(prog, sizeof(prog), "%s/%s/" SPAWN_PROGRAM_NAME, cwd, b);
	spawn_program_set(prog);
	if (system(cmd) != 0 || !(rt = bench_runtime(dir)))
		goto out;
	if (sandbox_start_all(rt, &stats) < 0) {
		fprintf(stderr, "cthbench-chan: sandbox not started\n");
		goto out;
	}
	sbx = sbxrt_inst(rt, "ftp");
	inp = sbxrt_inst(rt, "ftp-inproc");
	printf("%-14s %12s %12s %12s %12s %8s %8s\n", "load", "in-proc ns", "sandbox ns",
	       "in-proc cpu", "sandbox cpu", "wall x", "cpu x");
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		struct result a = bench_run(inp, &loads[i]);
		struct result s = bench_run(sbx, &loads[i]);

		printf("%-14s %12.0f %12.0f %12.0f %12.0f %8.2f %8.2f%s\n", loads[i].name,
		       a.wall_ns, s.wall_ns, a.cpu_ns, s.cpu_ns, s.wall_ns / a.wall_ns,
		       s.cpu_ns / a.cpu_ns, a.errors || s.errors ? "  (errors!)" : "");
	}
	rc = 0;
	sandbox_stop_all(rt);
	runtime_free(rt);
	spawn_close();
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
