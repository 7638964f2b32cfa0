/* SPDX-License-Identifier: MIT */
/*
 * udpback's unit test: the plugin (udpback.c, linked in) on the daemon's
 * host code through libcthelperd-plugtest (<cthelperd/plugtest.h>).  One
 * "PASS name" or "FAIL name: why" line per check; the exit status is the
 * number of failures (0: all passed).
 *
 *     make test
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugtest.h>

static int failed;

#define CHECK(name, cond, ...) do { \
	if (cond) { \
		printf("PASS udpback/%s\n", name); \
	} else { \
		printf("FAIL udpback/%s: ", name); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failed++; \
	} \
} while (0)

/* The counters, by their index in udpback.c's table. */
enum { REQUESTS, EXPECTED, REFUSED, BAD };

static int ub_send(struct cth_plugtest *t, const char *conn, const char *text)
{
	if (cth_plugtest_conn(t, conn) < 0) {
		printf("FAIL udpback/conn: %s\n", cth_plugtest_error(t));
		failed++;
		return -1;
	}
	return cth_plugtest_packet(t, CTH_DIR_ORIGINAL, text, strlen(text));
}

static int addr_is(int family, const union cth_addr *a, const char *text)
{
	union cth_addr want;

	memset(&want, 0, sizeof(want));
	return inet_pton(family, text, want.raw) == 1 &&
	       memcmp(a->raw, want.raw, family == AF_INET ? 4 : 16) == 0;
}

/* A GET, routed: the server's answer, from any of its ports, back to the
 * client's address and port. */
static void test_routed(struct cth_plugtest *t)
{
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	int v = ub_send(t, "udp 10.0.1.2:40000 > 10.0.2.2:5069", "GET hello.txt\n");
	const struct cth_expect *e = &r->expect[0];

	CHECK("get-accepted", v == CTH_VERDICT_ACCEPT && r->n_bug == 0, "verdict %d, %s", v,
	      r->bug);
	CHECK("get-one-expectation", r->n_expect == 1, "%u expectations", r->n_expect);
	CHECK("get-back-to-the-client", e->proto == IPPROTO_UDP && e->sport == 0 &&
	      addr_is(AF_INET, &e->src, "10.0.2.2") && addr_is(AF_INET, &e->dst, "10.0.1.2") &&
	      e->dport == 40000 && !(e->flags & CTH_EXPECT_NAT),
	      "proto %u sport %u dport %u flags %#x", e->proto, e->sport, e->dport, e->flags);
}

/* The client masqueraded as 192.0.2.1:40001: the server answers there,
 * and the kernel maps the answer back to the client's own address and
 * port (it follows the request's connection: nat_dir REPLY). */
static void test_snat(struct cth_plugtest *t)
{
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	const struct cth_expect *e = &r->expect[0];

	ub_send(t, "udp 10.0.1.2:40000 > 10.0.2.2:5069 snat 192.0.2.1:40001", "GET a\n");
	CHECK("snat-expected-at-the-public-address", r->n_expect == 1 &&
	      addr_is(AF_INET, &e->dst, "192.0.2.1") && e->dport == 40001,
	      "%u expectations, dport %u", r->n_expect, e->dport);
	CHECK("snat-follows-the-master", (e->flags & CTH_EXPECT_NAT) &&
	      e->nat_dir == CTH_DIR_REPLY && e->nat_port == 40000 && e->fn &&
	      strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0 &&
	      addr_is(AF_INET, &e->nat_addr, "10.0.1.2"),
	      "flags %#x nat_dir %d nat_port %u", e->flags, e->nat_dir, e->nat_port);
}

/* Anything else to the port opens nothing, and is counted. */
static void test_refused(struct cth_plugtest *t)
{
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	static const char *const bad[] = {
		"HELLO?\n", "GET \n", "GET no-newline", "GET two words\n", "PUT x\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ub_send(t, "udp [fd00:1::2]:40000 > [fd00:2::2]:5069", bad[i]);
	CHECK("not-a-request-opens-nothing", r->n_expect == 0 && r->verdict == CTH_VERDICT_ACCEPT,
	      "%u expectations", r->n_expect);
	CHECK("counters", r->counter[REQUESTS] == 2 && r->counter[EXPECTED] == 2 &&
	      r->counter[REFUSED] == 0 && r->counter[BAD] == 5,
	      "requests %llu expected %llu bad %llu", (unsigned long long)r->counter[REQUESTS],
	      (unsigned long long)r->counter[EXPECTED], (unsigned long long)r->counter[BAD]);
}

/* puts = yes: a PUT is helped too. */
static void test_puts(void)
{
	static const char *const settings[] = { "puts=yes", NULL };
	char err[256];
	struct cth_plugtest *t = cth_plugtest_new(&cth_plugin, settings, err, sizeof(err));

	CHECK("puts-key", t != NULL, "%s", err);
	if (!t)
		return;
	ub_send(t, "udp 10.0.1.2:40000 > 10.0.2.2:5069", "PUT notes.txt\n");
	CHECK("put-expected", cth_plugtest_result(t)->n_expect == 1, "%u expectations",
	      cth_plugtest_result(t)->n_expect);
	cth_plugtest_free(t);
}

int main(void)
{
	char err[256];
	struct cth_plugtest *t = cth_plugtest_new(&cth_plugin, NULL, err, sizeof(err));

	CHECK("loads", t != NULL, "%s", err);
	if (!t)
		return 1;
	test_routed(t);
	test_snat(t);
	test_refused(t);
	cth_plugtest_free(t);
	test_puts();
	return failed;
}
