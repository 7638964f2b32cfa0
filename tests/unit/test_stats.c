/* SPDX-License-Identifier: MIT */
/* Counters and the control socket: summing, /proc/net/netfilter/
 * nfnetlink_queue parsing, JSON that parses, Prometheus text that a
 * strict checker and Debian's promtool both accept, the socket's request limits and timeout, and
 * the [server] control_* keys. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "control/control.h"
#include "runtime/stats.h"

/* ---- a fake daemon: one ftp helper on queue 3, one sip on queue 7 ---- */

static struct cfg fake_cfg = { .file = (char *)"/etc/cth \"test\".conf" };
/* ftp declares two counters, sip one of the same name (one metric family,
 * one text row) with a help text that needs escaping */
static const struct cth_counter ftp_counters[] = {
	{ .name = "commands", .help = "Commands seen." },
	{ .name = "ports_expected", .help = "PORT and PASV answers expected." },
};
static const struct cth_counter sip_counters[] = {
	{ .name = "ports_expected", .help = "Media ports \\ expected." },
};
static const struct cth_plugin_desc fake_desc[2] = {
	{ .name = "ftp", .counters = ftp_counters, .n_counters = 2 },
	{ .name = "sip", .counters = sip_counters, .n_counters = 1 },
};
static struct plugin fake_pl[2] = {
	{ .name = "ftp", .version = "1.2", .desc = &fake_desc[0] },
	{ .name = "sip", .version = "0.9-\"beta\"", .desc = &fake_desc[1] },
};
static struct runtime fake_rt = {
	.cfg = &fake_cfg, .n_inst = 2, .n_queues = 2, .queues = { 3, 7 },
	.inst = {
		{ .name = "ftp", .pl = &fake_pl[0], .families = 3, .protocols = 1, .queue = 3,
		  .slot = 70 },
		{ .name = "sip", .pl = &fake_pl[1], .families = 1, .protocols = 3, .queue = 7 },
	},
};
static struct runtime *_Atomic fake_rtp = &fake_rt;
static struct stats_block blk[2];

static void fake_control(struct control *c)
{
	memset(c, 0, sizeof(*c));
	c->rtp = &fake_rtp;
	c->n_queues = 2;
	c->queue[0] = 3;
	c->queue[1] = 7;
	c->stats[0] = &blk[0];
	c->stats[1] = &blk[1];
}

static void test_sum(void)
{
	/* helper 0 counts in slot 70 (given after a reload), helper 1 in 0 */
	struct stats_snap s = { .n_helpers = 2, .n_queues = 2, .slot = { 70, 0 } };

	memset(blk, 0, sizeof(blk));
	stats_add(&blk[0].h[70][STATS_H_PAYLOAD], 5);
	stats_add(&blk[0].h[70][STATS_H_PAYLOAD], 1);
	stats_add(&blk[1].h[70][STATS_H_PAYLOAD], 10);   /* a sharded helper */
	stats_add(&blk[1].h[0][STATS_H_EXPECT_CREATED], 1);
	stats_add(&blk[1].h[1][STATS_H_EXPECT_CREATED], 9); /* a slot nobody has */
	stats_add(&blk[0].q[STATS_Q_PACKETS], 7);
	stats_add(&blk[1].q[STATS_Q_PACKETS], 2);
	stats_add(&blk[1].h[0][STATS_H_DROPS], UINT64_MAX - 1);
	stats_report_snap_add(&s, &blk[0], 0);
	stats_report_snap_add(&s, &blk[1], 1);
	CHECK("stats/sum-helper", s.h[0][STATS_H_PAYLOAD] == 16, "%llu",
	      (unsigned long long)s.h[0][STATS_H_PAYLOAD]);
	CHECK("stats/sum-other-helper", s.h[1][STATS_H_EXPECT_CREATED] == 1 &&
	      s.h[1][STATS_H_PAYLOAD] == 0, "wrong");
	CHECK("stats/queue-not-summed", s.q[0][STATS_Q_PACKETS] == 7 &&
	      s.q[1][STATS_Q_PACKETS] == 2, "wrong");
	CHECK("stats/64-bit", s.h[1][STATS_H_DROPS] == UINT64_MAX - 1, "wrong");
	/* every counter has a name and a help text */
	bool named = true;
	for (size_t k = 0; k < STATS_H_N; k++)
		named &= stats_helper_info[k].name && stats_helper_info[k].help;
	for (size_t k = 0; k < STATS_Q_N; k++)
		named &= stats_queue_info[k].name && stats_queue_info[k].help;
	CHECK("stats/every-counter-named", named, "a table entry is missing");
}

/* Skipped packet ids (undelivered): gaps, no gap, wrap, a step back. */
static void test_id_gap(void)
{
	CHECK("stats/id-gap-none", stats_id_gap(0, 1) == 0 && stats_id_gap(41, 42) == 0, "gap");
	CHECK("stats/id-gap-three", stats_id_gap(41, 45) == 3, "%u", stats_id_gap(41, 45));
	CHECK("stats/id-gap-first-packets-lost", stats_id_gap(0, 5) == 4, "%u", stats_id_gap(0, 5));
	CHECK("stats/id-gap-wrap", stats_id_gap(0xffffffffu, 0) == 0 &&
	      stats_id_gap(0xfffffffeu, 1) == 2, "%u", stats_id_gap(0xfffffffeu, 1));
	CHECK("stats/id-gap-same-or-back", stats_id_gap(9, 9) == 0 && stats_id_gap(9, 3) == 0,
	      "gap");
}

static void test_proc(void)
{
	static const char *const bad[] = {
		"", "    0  12345     0 2 65535     0     0        3",
		"    0  12345     0 2 65535     0     0        3  1  9",
		"    0  12345     0 2 65535     0     x        3  1",
		"    0  12345     0 2 65535     0    -1        3  1",
		"    0  12345     0 2 65535     0     0  4294967296  1",
		"    0  12345     0 2 65535     0     0       3a  1",
		"garbage",
	};
	struct stats_kqueue k, kq[8];
	int rc;

	rc = stats_report_kqueue_parse("    0 -4123     2 2 65535     0     0       29  1\n", &k);
	CHECK("proc/negative-portid-refused", rc == -EINVAL, "rc=%d", rc);
	rc = stats_report_kqueue_parse("    5  41235     2 2 65535     4     6 4294967295  1\n", &k);
	CHECK("proc/parse", rc == 0 && k.queue == 5 && k.portid == 41235 && k.waiting == 2 &&
	      k.copy_mode == 2 && k.copy_range == 65535 && k.dropped == 4 &&
	      k.user_dropped == 6 && k.id_sequence == 4294967295u, "rc=%d", rc);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "proc/malformed-%zu", i);
		CHECK(name, stats_report_kqueue_parse(bad[i], &k) == -EINVAL, "accepted '%s'", bad[i]);
	}

	char text[4096];
	size_t n;
	int len = snprintf(text, sizeof(text),
		"    0  100     0 2 65535     0     0       29  1\n"
		"bad line\n"
		"%0300d\n"
		"    7  200     1 2 65535     3     2       40  1\n"
		"    9  300     0 2 65535     0     0        1  1", 0);
	FILE *f = fmemopen(text, (size_t)len, "r");

	n = stats_report_kqueue_read(f, kq, 8);
	fclose(f);
	CHECK("proc/read-skips-malformed", n == 3 && kq[0].queue == 0 && kq[1].queue == 7 &&
	      kq[2].queue == 9 && kq[1].id_sequence == 40, "n=%zu", n);

	struct stats_snap s = { .n_queues = 2, .queue = { 3, 7 } };

	stats_report_snap_kernel(&s, kq, n);
	CHECK("proc/only-our-queues", !s.has_kq[0] && s.has_kq[1] &&
	      s.kq[1].dropped == 3 && s.kq[1].user_dropped == 2, "wrong match");
}

/* ---- JSON: parsed back by python3 ---- */

static bool json_valid(const char *text, const char *expect_py)
{
	char path[] = "/tmp/cth-test-json-XXXXXX", py[] = "/tmp/cth-test-py-XXXXXX", cmd[256];
	int fd = mkstemp(path), pfd = mkstemp(py);
	FILE *f = fdopen(pfd, "w");
	bool ok;

	if (fd < 0 || !f || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	fprintf(f, "import json, sys\nd = json.load(open(sys.argv[1]))\nsys.exit(0 if (%s) else 1)\n",
		expect_py);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 %s %s", py, path);
	ok = system(cmd) == 0;
	unlink(path);
	unlink(py);
	return ok;
}

/* ---- Prometheus: Debian's promtool (make deps installs prometheus) ---- */

/* "promtool check metrics" on text: NULL when it accepts it, else why. */
static const char *promtool_check(const char *text, char *why, size_t len)
{
	char path[] = "/tmp/cth-test-prom-XXXXXX", out[] = "/tmp/cth-test-promout-XXXXXX", cmd[256];
	int fd = mkstemp(path), ofd = mkstemp(out), rc;
	ssize_t n;

	if (fd < 0 || ofd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	snprintf(cmd, sizeof(cmd), "promtool check metrics <%s >%s 2>&1", path, out);
	rc = system(cmd);
	n = read(ofd, why, len - 1);
	why[n > 0 ? n : 0] = '\0';
	close(ofd);
	unlink(path);
	unlink(out);
	if (rc == 0)
		return NULL;
	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 127)
		return "promtool not found (make deps installs Debian's prometheus package)";
	return why[0] ? why : "promtool refused it";
}

/* ---- Prometheus text format 0.0.4, strictly ---- */

static bool prom_re(const char *re, const char *s)
{
	regex_t r;
	bool ok;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		abort();
	ok = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return ok;
}

#define PROM_MAX 128
struct prom_fam {
	char name[96];
	bool help, type, samples, closed;
	char type_s[16];
};

/* Returns NULL when text is a valid exposition, else why not. */
static const char *prom_check(char *text, char *why, size_t wlen)
{
	static struct prom_fam fam[PROM_MAX];
	static char series[1024][160];
	size_t nf = 0, ns = 0;
	struct prom_fam *cur = NULL;
	char *save, *line;

	if (!*text || text[strlen(text) - 1] != '\n')
		return "does not end with a newline";
	memset(fam, 0, sizeof(fam));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96] = "";
		struct prom_fam *f = NULL;

		if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
			bool help = line[2] == 'H';
			const char *rest = line + 7, *sp = strchr(rest, ' ');

			if (!sp || (size_t)(sp - rest) >= sizeof(name))
				return snprintf(why, wlen, "bad line: %s", line), why;
			memcpy(name, rest, (size_t)(sp - rest));
			if (!prom_re("^[a-zA-Z_:][a-zA-Z0-9_:]*$", name))
				return snprintf(why, wlen, "bad metric name: %s", line), why;
			for (size_t i = 0; i < nf; i++)
				if (strcmp(fam[i].name, name) == 0)
					f = &fam[i];
			if (!f) {
				if (nf == PROM_MAX)
					return "too many families";
				f = &fam[nf++];
				snprintf(f->name, sizeof(f->name), "%s", name);
			}
			if (f->closed || f->samples)
				return snprintf(why, wlen, "HELP/TYPE after samples or after another family: %s", line), why;
			if (cur && cur != f)
				cur->closed = true;
			cur = f;
			if (help) {
				if (f->help)
					return snprintf(why, wlen, "second HELP: %s", line), why;
				/* only \\ and \n escapes in HELP */
				for (const char *h = sp + 1; *h; h++)
					if (*h == '\\' && h[1] != '\\' && h[1] != 'n')
						return snprintf(why, wlen, "bad escape in HELP: %s", line), why;
					else if (*h == '\\')
						h++;
				f->help = true;
			} else {
				if (f->type)
					return snprintf(why, wlen, "second TYPE: %s", line), why;
				if (!prom_re("^(counter|gauge|histogram|summary|untyped)$", sp + 1))
					return snprintf(why, wlen, "bad type: %s", line), why;
				snprintf(f->type_s, sizeof(f->type_s), "%s", sp + 1);
				f->type = true;
			}
			continue;
		}
		if (line[0] == '#')
			continue;      /* a plain comment */
		/* name{label="v",...} value */
		if (!prom_re("^[a-zA-Z_:][a-zA-Z0-9_:]*"
			     "(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
			     "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\")*,?)?\\})?"
			     " [^ ]+$", line))
			return snprintf(why, wlen, "bad sample line: %s", line), why;
		size_t nl = strcspn(line, "{ ");
		memcpy(name, line, nl < sizeof(name) ? nl : sizeof(name) - 1);
		if (!cur || strcmp(cur->name, name) != 0)
			return snprintf(why, wlen, "sample outside its family (HELP/TYPE first, families contiguous): %s", line), why;
		if (!cur->help || !cur->type)
			return snprintf(why, wlen, "sample before HELP and TYPE: %s", line), why;
		cur->samples = true;
		char *val = strrchr(line, ' ') + 1, *end;
		double v = strtod(val, &end);
		if (*end || end == val)
			return snprintf(why, wlen, "bad value: %s", line), why;
		if (strcmp(cur->type_s, "counter") == 0 &&
		    (v < 0 || !prom_re("_total$", name)))
			return snprintf(why, wlen, "counter negative or not named *_total: %s", line), why;
		size_t keylen = (size_t)(val - 1 - line);
		for (size_t i = 0; i < ns; i++)
			if (strlen(series[i]) == keylen && strncmp(series[i], line, keylen) == 0)
				return snprintf(why, wlen, "duplicate series: %s", line), why;
		if (ns < 1024 && keylen < sizeof(series[0]))
			snprintf(series[ns++], sizeof(series[0]), "%.*s", (int)keylen, line);
	}
	for (size_t i = 0; i < nf; i++)
		if (!fam[i].help || !fam[i].type)
			return snprintf(why, wlen, "family %s lacks HELP or TYPE", fam[i].name), why;
	return NULL;
}

static void test_prom_checker(void)
{
	static const char *const bad[] = {
		"a_total 1\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total{l=\"x} 1\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total 1\n# HELP a_total y\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total{1l=\"x\"} 1\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total one\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total 1\na_total 2\n",
		"# HELP a x\n# TYPE a counter\na 1\n",
		"# HELP a_total x\n# TYPE a_total counter\na_total 1",
		"# HELP a x\n# TYPE a gauge\n# HELP b x\n# TYPE b gauge\nb 1\na 1\n",
		"# HELP a x\n# TYPE a gauge\na{l=\"\\t\"} 1\n",
	};
	char buf[512], why[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "prom/checker-refuses-%zu", i);
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		CHECK(name, prom_check(buf, why, sizeof(why)) != NULL, "accepted: %s", bad[i]);
	}
	snprintf(buf, sizeof(buf), "# HELP a_total x \\\\ y\n# TYPE a_total counter\n"
		 "a_total{l=\"a\\\"b\\\\c\\n\"} 1\n# HELP g x\n# TYPE g gauge\ng -1.5e3\n");
	const char *r = prom_check(buf, why, sizeof(why));
	CHECK("prom/checker-accepts", r == NULL, "%s", r);
}

static void test_render(void)
{
	struct control c;
	struct strbuf b = { 0 };
	char why[512];
	const char *r;
	int rc;

	fake_control(&c);
	/* the plugins' counters: ftp's in slot 70 of both blocks, summed;
	 * index 15 is nobody's (sip declares one) */
	stats_add(&blk[0].pc[70][0], 4);
	stats_add(&blk[1].pc[70][0], 1);
	stats_add(&blk[0].pc[70][1], 2);
	stats_add(&blk[1].pc[0][0], 9);
	stats_add(&blk[1].pc[0][15], 1000);
	rc = control_answer(&c, "stats json", &b);
	CHECK("render/stats-json-ok", rc == 0 && b.len > 3 && strncmp(b.p, "OK\n", 3) == 0, "rc=%d", rc);
	CHECK("render/stats-json-plugin-counters",
	      json_valid(b.p + 3, "d['helpers'][0]['plugin_counters']=={'commands':5,'ports_expected':2} "
			 "and d['helpers'][1]['plugin_counters']=={'ports_expected':9}"), "%s", b.p);
	CHECK("render/stats-json-valid",
	      json_valid(b.p + 3, "d['helpers'][0]['name']=='ftp' and d['helpers'][0]['payload_packets']==16 "
			 "and d['helpers'][1]['expectations_created']==1 and d['queues'][1]['queue']==7 "
			 "and d['queues'][0]['packets']==7 and 'kernel' in d['queues'][0]"), "%s", b.p);
	strbuf_free(&b);

	rc = control_answer(&c, "status json", &b);
	CHECK("render/status-json-valid", rc == 0 &&
	      json_valid(b.p + 3, "d['config']=='/etc/cth \"test\".conf' and d['helpers'][1]['plugin_version']=='0.9-\"beta\"' "
			 "and d['helpers'][0]['families']==['ipv4','ipv6'] and d['helpers'][1]['protocols']==['tcp','udp'] "
			 "and d['queues']==[3,7] and d['last_reload']=='none' and d['pid']>0"), "%s", b.p);
	strbuf_free(&b);

	rc = control_answer(&c, "status", &b);
	CHECK("render/status-text", rc == 0 && strstr(b.p, "  ftp             plugin ftp 1.2, families ipv4,ipv6, protocols tcp, queue 3\n") &&
	      strstr(b.p, "last reload  none\n"), "%s", b.p);
	strbuf_free(&b);

	rc = control_answer(&c, "stats", &b);
	CHECK("render/stats-text", rc == 0 && strstr(b.p, "\npayload_packets                     16               0\n"), "%s", b.p);
	CHECK("render/stats-text-plugin-rows",
	      strstr(b.p, "\nplugin_commands                      5               -\n") &&
	      strstr(b.p, "\nplugin_ports_expected                2               9\n") &&
	      strstr(b.p, "\nstate_reset "), "%s", b.p);
	strbuf_free(&b);

	rc = control_answer(&c, "stats prometheus", &b);
	CHECK("render/prometheus-ok", rc == 0 && strstr(b.p, "\ncthelperd_payload_packets_total{helper=\"ftp\"} 16\n") &&
	      strstr(b.p, "\ncthelperd_queue_packets_total{queue=\"7\"} 2\n"), "%s", b.p);
	CHECK("render/prometheus-plugin-counters",
	      strstr(b.p, "\n# HELP cthelperd_plugin_commands_total Commands seen.\n"
			  "# TYPE cthelperd_plugin_commands_total counter\n"
			  "cthelperd_plugin_commands_total{helper=\"ftp\",plugin=\"ftp\"} 5\n") &&
	      strstr(b.p, "\n# HELP cthelperd_plugin_ports_expected_total PORT and PASV answers expected.\n"
			  "# TYPE cthelperd_plugin_ports_expected_total counter\n"
			  "cthelperd_plugin_ports_expected_total{helper=\"ftp\",plugin=\"ftp\"} 2\n"
			  "cthelperd_plugin_ports_expected_total{helper=\"sip\",plugin=\"sip\"} 9\n"),
	      "%s", b.p);
	/* promtool first: the strict checker cuts the text into lines */
	r = promtool_check(b.p + 3, why, sizeof(why));
	CHECK("render/prometheus-promtool", r == NULL, "%s", r);
	r = prom_check(b.p + 3, why, sizeof(why));
	CHECK("render/prometheus-strict", r == NULL, "%s", r);
	strbuf_free(&b);

	/* with kernel numbers and a helper name that needs escaping */
	struct stats_snap s = { .n_helpers = 1, .helper = { "a\"b\\c" }, .n_queues = 1,
				.queue = { 4 }, .has_kq = { true },
				.kq = { { .queue = 4, .id_sequence = 9, .waiting = 1 } } };
	stats_report_render(&b, &s, STATS_PROMETHEUS);
	CHECK("render/prometheus-kernel", strstr(b.p, "\ncthelperd_queue_queued_total{queue=\"4\"} 9\n") &&
	      strstr(b.p, "# TYPE cthelperd_queue_waiting gauge\ncthelperd_queue_waiting{queue=\"4\"} 1\n") &&
	      strstr(b.p, "{helper=\"a\\\"b\\\\c\"}"), "%s", b.p);
	r = promtool_check(b.p, why, sizeof(why));
	CHECK("render/prometheus-kernel-promtool", r == NULL, "%s", r);
	r = prom_check(b.p, why, sizeof(why));
	CHECK("render/prometheus-kernel-strict", r == NULL, "%s", r);
	strbuf_free(&b);
	stats_report_render(&b, &s, STATS_JSON);
	CHECK("render/json-escapes", json_valid(b.p, "d['helpers'][0]['name']=='a\"b\\\\c' and "
						   "d['queues'][0]['kernel']['queued']==9"), "%s", b.p);
	strbuf_free(&b);

	rc = control_answer(&c, "reload", &b);
	CHECK("answer/reload-refused", rc < 0 && strcmp(b.p, "ERROR reload is not available\n") == 0, "%s", b.p);
	strbuf_free(&b);
	static const char *const wrong[] = { "", "stats xml", "status prometheus", "reload now", "stats json x", "frob" };
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "answer/refused-%zu", i);
		rc = control_answer(&c, wrong[i], &b);
		CHECK(name, rc < 0 && strncmp(b.p, "ERROR ", 6) == 0, "'%s': %s", wrong[i], b.p);
		strbuf_free(&b);
	}
}

/* ---- the socket itself, in a loop run by hand ---- */

static char sock_path[64];

static int sock_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	return fd;
}

/* Run the loop until fd sees EOF (or ~3 s); the answer into buf. */
static size_t sock_answer(struct ev_loop *loop, int fd, char *buf, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < 300; i++) {
		ssize_t r;

		ev_run(loop, EVRUN_NOWAIT);
		while ((r = read(fd, buf + n, max - 1 - n)) > 0)
			n += (size_t)r;
		if (r == 0)
			break;
		usleep(10000);
	}
	buf[n] = '\0';
	close(fd);
	return n;
}

static void test_socket(void)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	static struct control c;
	static char buf[65536];
	struct stat st;
	char line[400];
	int fd, rc;

	snprintf(sock_path, sizeof(sock_path), "/tmp/cth-test-ctl-%d.sock", (int)getpid());
	fake_cfg.control_socket = sock_path;
	fake_cfg.control_mode = 0640;
	fake_cfg.control_gid = -1;
	/* a stale socket file (nobody listening) is replaced */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	unlink(sock_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	close(fd);
	fake_control(&c);
	mode_t um = umask(0);
	rc = control_open(&c, loop);
	umask(um);
	CHECK("socket/open-replaces-stale", rc == 0, "rc=%d", rc);
	CHECK("socket/mode", stat(sock_path, &st) == 0 && (st.st_mode & 0777) == 0640,
	      "mode %o (umask 0)", st.st_mode & 0777);
	/* bound in a private directory and renamed into place (issue 27):
	 * nothing of it is left */
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "ls -a /tmp | grep -q '^\\.cthctl-'");
		CHECK("socket/private-dir-gone", system(cmd) != 0, "a /tmp/.cthctl-* directory was left");
	}

	/* a second daemon on the same path is refused */
	static struct control c2;
	fake_control(&c2);
	rc = control_open(&c2, loop);
	CHECK("socket/live-one-kept", rc == -EADDRINUSE, "rc=%d", rc);

	fd = sock_connect();
	if (write(fd, "stats json\n", 11) != 11)
		abort();
	sock_answer(loop, fd, buf, sizeof(buf));
	CHECK("socket/stats-json", strncmp(buf, "OK\n{\"helpers\":", 14) == 0, "%.80s", buf);

	/* the request may come in pieces */
	fd = sock_connect();
	if (write(fd, "sta", 3) != 3)
		abort();
	ev_run(loop, EVRUN_NOWAIT);
	if (write(fd, "tus\n", 4) != 4)
		abort();
	sock_answer(loop, fd, buf, sizeof(buf));
	CHECK("socket/split-request", strncmp(buf, "OK\nversion", 10) == 0, "%.80s", buf);

	memset(line, 'x', sizeof(line));
	line[sizeof(line) - 1] = '\n';
	fd = sock_connect();
	if (write(fd, line, sizeof(line)) != (ssize_t)sizeof(line))
		abort();
	sock_answer(loop, fd, buf, sizeof(buf));
	CHECK("socket/long-line", strcmp(buf, "ERROR request longer than 256 bytes\n") == 0, "%.80s", buf);

	/* a silent client is dropped after CONTROL_TIMEOUT */
	fd = sock_connect();
	size_t n = sock_answer(loop, fd, buf, sizeof(buf));
	CHECK("socket/timeout", n == 0 && c.conn[0].fd == -1, "n=%zu", n);

	/* more clients than slots: the extra ones are closed, served after */
	int many[CONTROL_CONNS_MAX + 1];
	for (int i = 0; i <= CONTROL_CONNS_MAX; i++)
		many[i] = sock_connect();
	ev_run(loop, EVRUN_NOWAIT);
	ev_run(loop, EVRUN_NOWAIT);
	int closed = 0;
	for (int i = 0; i <= CONTROL_CONNS_MAX; i++) {
		if (read(many[i], buf, 1) == 0)
			closed++;
		close(many[i]);
	}
	CHECK("socket/bounded-clients", closed == 1, "%d closed", closed);
	for (int i = 0; i < 5; i++)
		ev_run(loop, EVRUN_NOWAIT);

	control_close(&c);
	CHECK("socket/unlinked", stat(sock_path, &st) < 0 && errno == ENOENT, "still there");
	fake_cfg.control_socket = NULL;
	ev_loop_destroy(loop);
}

/* ---- config keys ---- */

static int conf(const char *text, struct cfg **out, char *err, size_t elen)
{
	char path[CFGLOAD_PATH];

	return cfgload_text(text, strlen(text), path, out, err, elen);
}

static void test_config(void)
{
	struct group *g = getgrgid(getgid());
	struct cfg *cfg;
	char err[1024], text[512];
	int rc;

	rc = conf("[helper a]\n", &cfg, err, sizeof(err));
	CHECK("config/control-off-by-default", rc == 0 && !cfg->control_socket &&
	      cfg->control_mode == 0600 && cfg->control_gid == -1, "rc=%d %s", rc, err);
	cfg_free(cfg);
	snprintf(text, sizeof(text), "[server]\ncontrol_socket = /run/x.sock\ncontrol_mode = 0660\n"
		 "control_group = %s\n[helper a]\n", g ? g->gr_name : "root");
	rc = conf(text, &cfg, err, sizeof(err));
	CHECK("config/control-keys", rc == 0 && strcmp(cfg->control_socket, "/run/x.sock") == 0 &&
	      cfg->control_mode == 0660 && cfg->control_gid == (long)getgid(), "rc=%d %s", rc, err);
	cfg_free(cfg);
	rc = conf("[server]\ncontrol_group = no-such-group-cth\n[helper a]\n", &cfg, err, sizeof(err));
	CHECK("config/control-group-unknown", rc == -EINVAL && strstr(err, ":2: control_group: no group 'no-such-group-cth'"), "%s", err);
	rc = conf("[server]\n\ncontrol_mode = 0800\n[helper a]\n", &cfg, err, sizeof(err));
	CHECK("config/control-mode-bad", rc == -EINVAL && strstr(err, ":3: control_mode:"), "%s", err);
	rc = conf("[server]\ncontrol_mode = 01777\n[helper a]\n", &cfg, err, sizeof(err));
	CHECK("config/control-mode-range", rc == -EINVAL && strstr(err, ":2: control_mode:"), "%s", err);
	rc = conf("[server]\ncontrol_socket = run/x.sock\n[helper a]\n", &cfg, err, sizeof(err));
	CHECK("config/control-socket-relative", rc == -EINVAL && strstr(err, ":2: control_socket:"), "%s", err);
}

int main(void)
{
	test_sum();
	test_id_gap();
	test_proc();
	test_prom_checker();
	test_render();
	test_socket();
	test_config();
	return check_exit();
}
