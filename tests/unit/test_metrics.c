/* SPDX-License-Identifier: MIT */
/* HTTP /metrics: served from a libev loop run by hand (as the daemon's
 * main loop runs it), the body exactly the control socket's "stats
 * prometheus" answer, 404 and 405, the client limit and idle timeout,
 * a port in use, and the [server] metrics key. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "runtime/config.h"
#include "control/control.h"
#include "control/metrics.h"
#include "runtime/stats.h"

/* ---- a fake daemon: one ftp helper on queue 3 ---- */

static struct cfg fake_cfg = { .file = (char *)"/etc/cthelperd.conf" };
static const struct cth_counter fake_counters[] = { { .name = "commands", .help = "Commands." } };
static const struct cth_plugin_desc fake_desc = {
	.name = "ftp", .counters = fake_counters, .n_counters = 1,
};
static struct plugin fake_pl = { .name = "ftp", .version = "1.2", .desc = &fake_desc };
static struct runtime fake_rt = {
	.cfg = &fake_cfg, .n_inst = 1, .n_queues = 1, .queues = { 3 },
	.inst = { { .name = "ftp", .pl = &fake_pl, .families = 3, .protocols = 1, .queue = 3 } },
};
static struct runtime *_Atomic fake_rtp = &fake_rt;
static struct stats_block blk;

static void fake_control(struct control *c)
{
	memset(c, 0, sizeof(*c));
	c->rtp = &fake_rtp;
	c->n_queues = 1;
	c->queue[0] = 3;
	c->stats[0] = &blk;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- a client: blocking connect and send (the kernel's backlog takes
 * them before the server accepts), then the loop runs while it reads ---- */

static int http_connect(int family, int port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons((uint16_t)port);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s4->sin_port = htons((uint16_t)port);
		len = sizeof(*s4);
	}
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) < 0)
		abort();
	return fd;
}

/* Run the loop until fd sees EOF or an error (or secs pass); what came
 * into buf (NUL-terminated), its length or -1 on timeout.  fd stays open. */
static long http_wait(struct ev_loop *loop, int fd, char *buf, size_t max, double secs)
{
	double end = now() + secs;
	size_t n = 0;
	long rc = -1;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (now() < end) {
		ssize_t r = -1;          /* set: the read below runs unless buf is full */

		ev_run(loop, EVRUN_NOWAIT);
		while (n < max - 1 && (r = read(fd, buf + n, max - 1 - n)) > 0)
			n += (size_t)r;
		if (n == max - 1 || r == 0 || (r < 0 && errno != EAGAIN)) {
			rc = (long)n;
			break;
		}
		usleep(2000);
	}
	buf[n] = '\0';
	return rc;
}

/* The same, then fd closed. */
static long http_read(struct ev_loop *loop, int fd, char *buf, size_t max, double secs)
{
	long rc = http_wait(loop, fd, buf, max, secs);

	close(fd);
	return rc;
}

struct http_resp {
	int status;
	char head[4096];           /* status line and headers */
	const char *body;          /* into raw */
	char raw[65536];
};

static int http(struct ev_loop *loop, int family, int port, const char *req,
		struct http_resp *r)
{
	int fd = http_connect(family, port);
	char *sep;

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req))
		abort();
	memset(r, 0, sizeof(*r));
	if (http_read(loop, fd, r->raw, sizeof(r->raw), 3.0) < 0)
		return -ETIMEDOUT;
	sep = strstr(r->raw, "\r\n\r\n");
	if (!sep || sscanf(r->raw, "HTTP/1.%*d %d ", &r->status) != 1)
		return -EPROTO;
	snprintf(r->head, sizeof(r->head), "%.*s\r\n", (int)(sep - r->raw), r->raw);
	r->body = sep + 4;
	return 0;
}

/* The value of header name (case-insensitive), or "" when absent. */
static const char *http_header(const struct http_resp *r, const char *name, char *val,
			       size_t max)
{
	size_t n = strlen(name);

	val[0] = '\0';
	for (const char *l = strstr(r->head, "\r\n"); l && l[2]; l = strstr(l + 2, "\r\n")) {
		const char *h = l + 2, *e = strstr(h, "\r\n");

		if (strncasecmp(h, name, n) == 0 && h[n] == ':') {
			h += n + 1;
			h += strspn(h, " ");
			snprintf(val, max, "%.*s", (int)(e - h), h);
			break;
		}
	}
	return val;
}

static void test_http(void)
{
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	static struct control c;
	static struct metrics m, m2;
	static struct http_resp r;
	struct strbuf want = { 0 };
	char val[256];
	int rc, port;

	fake_control(&c);
	memset(&blk, 0, sizeof(blk));
	stats_add(&blk.h[0][STATS_H_PAYLOAD], 4242);
	stats_add(&blk.q[STATS_Q_PACKETS], 4343);
	stats_add(&blk.pc[0][0], 41);

	rc = metrics_open(&m, loop, &c, NULL);
	CHECK("metrics/unset-is-off", rc == 0 && metrics_port(&m) == -ENOTCONN, "rc=%d", rc);
	metrics_close(&m);

	rc = metrics_open(&m, loop, &c, "127.0.0.1:0");
	port = metrics_port(&m);
	CHECK("metrics/open", rc == 0 && port > 0 && port <= 65535, "rc=%d port=%d", rc, port);
	if (rc < 0) {
		ev_loop_destroy(loop);
		return;
	}

	rc = control_answer(&c, "stats prometheus", &want);
	if (rc < 0 || want.len < 3)
		abort();
	rc = http(loop, AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	CHECK("metrics/get-200", rc == 0 && r.status == 200, "rc=%d status=%d: %.200s", rc, r.status, r.raw);
	CHECK("metrics/get-content-type",
	      strcmp(http_header(&r, "Content-Type", val, sizeof(val)), METRICS_CONTENT_TYPE) == 0,
	      "'%s'", val);
	CHECK("metrics/get-body-is-control-answer", rc == 0 && strcmp(r.body, want.p + 3) == 0,
	      "got:\n%s\nwanted:\n%s", r.body ? r.body : "(none)", want.p + 3);
	CHECK("metrics/get-counters", rc == 0 &&
	      strstr(r.body, "\ncthelperd_payload_packets_total{helper=\"ftp\"} 4242\n") &&
	      strstr(r.body, "\ncthelperd_plugin_commands_total{helper=\"ftp\",plugin=\"ftp\"} 41\n") &&
	      strstr(r.body, "\ncthelperd_queue_packets_total{queue=\"3\"} 4343\n"), "%s", r.body);
	CHECK("metrics/get-length",
	      strtoul(http_header(&r, "Content-Length", val, sizeof(val)), NULL, 10) == want.len - 3,
	      "Content-Length '%s', body %zu", val, want.len - 3);

	/* counters are read at each request */
	stats_add(&blk.h[0][STATS_H_PAYLOAD], 1);
	rc = http(loop, AF_INET, port, "GET /metrics?x=1 HTTP/1.0\r\n\r\n", &r);
	CHECK("metrics/get-fresh-counters-http10-query", rc == 0 && r.status == 200 &&
	      strstr(r.body, "\ncthelperd_payload_packets_total{helper=\"ftp\"} 4243\n"),
	      "rc=%d status=%d", rc, r.status);

	rc = http(loop, AF_INET, port, "HEAD /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	CHECK("metrics/head", rc == 0 && r.status == 200 && r.body[0] == '\0' &&
	      strcmp(http_header(&r, "Content-Type", val, sizeof(val)), METRICS_CONTENT_TYPE) == 0,
	      "rc=%d status=%d body %zu bytes", rc, r.status, r.body ? strlen(r.body) : 0);

	rc = http(loop, AF_INET, port, "GET /other HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	CHECK("metrics/other-path-404", rc == 0 && r.status == 404, "rc=%d status=%d", rc, r.status);
	rc = http(loop, AF_INET, port, "GET /metrics/x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	CHECK("metrics/subpath-404", rc == 0 && r.status == 404, "rc=%d status=%d", rc, r.status);
	rc = http(loop, AF_INET, port, "POST /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
		  "Content-Length: 5\r\n\r\nhello", &r);
	CHECK("metrics/post-405", rc == 0 && r.status == 405 &&
	      strcmp(http_header(&r, "Allow", val, sizeof(val)), "GET, HEAD") == 0,
	      "rc=%d status=%d Allow '%s'", rc, r.status, val);
	rc = http(loop, AF_INET, port, "DELETE /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	CHECK("metrics/delete-405", rc == 0 && r.status == 405, "rc=%d status=%d", rc, r.status);
	/* MHD closes the connection, with a 400 or without a word */
	rc = http(loop, AF_INET, port, "garbage\r\n\r\n", &r);
	CHECK("metrics/garbage-refused", (rc == -EPROTO && !r.raw[0]) || (rc == 0 && r.status == 400),
	      "rc=%d status=%d", rc, r.status);
	rc = http(loop, AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
		  "Content-Length: 5\r\n\r\nhello", &r);
	CHECK("metrics/get-body-ignored", rc == 0 && r.status == 200, "rc=%d status=%d", rc, r.status);

	/* two requests on one connection (keep-alive) */
	strbuf_free(&want);
	if (control_answer(&c, "stats prometheus", &want) < 0 || want.len < 3)
		abort();
	rc = http(loop, AF_INET, port, "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n"
		  "GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	const char *second = rc == 0 ? strstr(r.body, "HTTP/1.1 200 ") : NULL;
	CHECK("metrics/keep-alive", rc == 0 && r.status == 200 && second &&
	      strcmp(strstr(second, "\r\n\r\n") + 4, want.p + 3) == 0 &&
	      strncmp(r.body, want.p + 3, want.len - 3) == 0, "rc=%d status=%d", rc, r.status);
	rc = http(loop, AF_INET, port, "GET /other HTTP/1.1\r\nHost: t\r\n\r\n"
		  "HEAD /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", &r);
	CHECK("metrics/keep-alive-after-404", rc == 0 && r.status == 404 &&
	      strstr(r.body, "HTTP/1.1 200 "), "rc=%d status=%d", rc, r.status);

	/* a port in use is an error */
	char addr[32];
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
	rc = metrics_open(&m2, loop, &c, addr);
	CHECK("metrics/port-in-use", rc == -EADDRINUSE && metrics_port(&m2) == -ENOTCONN, "rc=%d", rc);
	metrics_close(&m2);

	/* the limit: a client beyond it is not served (MHD leaves it in
	 * the kernel's backlog) until the silent ones are dropped after
	 * METRICS_TIMEOUT idle seconds */
	static const char get10[] = "GET /metrics HTTP/1.0\r\n\r\n";
	int idle[METRICS_CONNS_MAX], extra;
	long n;
	double t0 = now();

	for (int i = 0; i < METRICS_CONNS_MAX; i++)
		idle[i] = http_connect(AF_INET, port);
	for (int i = 0; i < 5; i++)
		ev_run(loop, EVRUN_NOWAIT);
	extra = http_connect(AF_INET, port);
	if (write(extra, get10, sizeof(get10) - 1) != (ssize_t)sizeof(get10) - 1)
		abort();
	n = http_wait(loop, extra, r.raw, sizeof(r.raw), 1.0);
	CHECK("metrics/limit-extra-waits", n < 0, "n=%ld: %.80s", n, r.raw);
	n = http_read(loop, idle[0], r.raw, sizeof(r.raw), METRICS_TIMEOUT + 3.0);
	CHECK("metrics/idle-timeout", n == 0 && now() - t0 > METRICS_TIMEOUT - 0.5,
	      "n=%ld after %.1f s", n, now() - t0);
	int dropped = 0;
	for (int i = 1; i < METRICS_CONNS_MAX; i++)
		dropped += http_read(loop, idle[i], r.raw, sizeof(r.raw), 1.0) == 0;
	CHECK("metrics/idle-all-dropped", dropped == METRICS_CONNS_MAX - 1, "%d", dropped);
	n = http_read(loop, extra, r.raw, sizeof(r.raw), 2.0);
	CHECK("metrics/limit-extra-served-after", n > 0 && strncmp(r.raw, "HTTP/1.1 200 ", 13) == 0,
	      "n=%ld: %.80s", n, r.raw);

	metrics_close(&m);
	CHECK("metrics/closed", metrics_port(&m) == -ENOTCONN, "still open");
	/* the port is free again: the listening socket went with it */
	rc = metrics_open(&m, loop, &c, addr);
	CHECK("metrics/reopen-same-port", rc == 0 && metrics_port(&m) == port, "rc=%d", rc);
	metrics_close(&m);
	metrics_close(&m);           /* twice: harmless */

	/* IPv6, where the host has it */
	int probe = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	bool v6 = probe >= 0 && bind(probe, (struct sockaddr *)&s6, sizeof(s6)) == 0;

	if (probe >= 0)
		close(probe);
	if (!v6) {
		printf("SKIP metrics/ipv6: no IPv6 loopback here\n");
	} else {
		rc = metrics_open(&m, loop, &c, "[::1]:0");
		port = metrics_port(&m);
		CHECK("metrics/ipv6-open", rc == 0 && port > 0, "rc=%d", rc);
		if (rc == 0) {
			rc = http(loop, AF_INET6, port, "GET /metrics HTTP/1.0\r\n\r\n", &r);
			CHECK("metrics/ipv6-get", rc == 0 && r.status == 200 &&
			      strstr(r.body, "cthelperd_payload_packets_total"), "rc=%d status=%d", rc, r.status);
		}
		metrics_close(&m);
	}
	strbuf_free(&want);
	ev_loop_destroy(loop);
}

/* ---- the config key ---- */

static int conf(const char *text, struct cfg **out, char *err, size_t elen, char *path)
{
	return cfgload_text(text, strlen(text), path, out, err, elen);
}

static void test_config(void)
{
	static const char *const good[] = {
		"127.0.0.1:9469", "0.0.0.0:80", "[::1]:9469", "[::]:1", "[fe80::1:2]:65535",
		"[::ffff:10.0.0.1]:9469", "10.1.2.3:0",
	};
	static const char *const bad[] = {
		"127.0.0.1", "localhost:9469", "127.0.0.1:65536", "127.0.0.1:", "::1:9469",
		"[::1]9469", "[::1]:", "[::1]", "[127.0.0.1]:80", "127.1:80", "1.2.3.4:-1",
		"1.2.3.4:+80", "[::1]:80x", "[]:80", "[:80", "1.2.3.4:80:81", "[::1%lo]:80",
		" 1.2.3.4:80x", "1.2.3.4 :80",
	};
	char err[1024], text[256], path[64], want[128];
	struct cfg *cfg;
	int rc;

	rc = conf("[helper a]\n", &cfg, err, sizeof(err), path);
	CHECK("config/metrics-off-by-default", rc == 0 && !cfg->metrics, "rc=%d %s", rc, err);
	cfg_free(cfg);
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "config/metrics-good-%zu", i);
		snprintf(text, sizeof(text), "[server]\nmetrics = %s\n[helper a]\n", good[i]);
		rc = conf(text, &cfg, err, sizeof(err), path);
		CHECK(name, rc == 0 && cfg->metrics && strcmp(cfg->metrics, good[i]) == 0,
		      "'%s': rc=%d %s", good[i], rc, err);
		cfg_free(cfg);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "config/metrics-bad-%zu", i);
		snprintf(text, sizeof(text), "[server]\nlog_level = info\n\nmetrics = %s\n[helper a]\n", bad[i]);
		rc = conf(text, &cfg, err, sizeof(err), path);
		snprintf(want, sizeof(want), "%s:4: metrics: '", path);
		CHECK(name, rc == -EINVAL && !cfg && strstr(err, want) && strstr(err, "ADDR:PORT"),
		      "'%s': rc=%d, wanted '%s...', got: %s", bad[i], rc, want, err);
	}
	struct sockaddr_storage sa;
	socklen_t len;
	rc = cfg_addr_port_parse("[::1]:9469", &sa, &len);
	CHECK("config/metrics-parse-ipv6", rc == 0 && sa.ss_family == AF_INET6 &&
	      len == sizeof(struct sockaddr_in6) &&
	      ntohs(((struct sockaddr_in6 *)&sa)->sin6_port) == 9469 &&
	      IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&sa)->sin6_addr), "rc=%d", rc);
	rc = cfg_addr_port_parse("192.0.2.7:80", &sa, &len);
	CHECK("config/metrics-parse-ipv4", rc == 0 && sa.ss_family == AF_INET &&
	      len == sizeof(struct sockaddr_in) &&
	      ntohs(((struct sockaddr_in *)&sa)->sin_port) == 80 &&
	      ntohl(((struct sockaddr_in *)&sa)->sin_addr.s_addr) == 0xc0000207, "rc=%d", rc);
}

int main(void)
{
	test_config();
	test_http();
	return check_exit();
}
