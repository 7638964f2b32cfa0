/* SPDX-License-Identifier: MIT */
/*
 * @NAME@'s unit test: the plugin (@NAME@.c, linked in) on the daemon's
 * host code through libcthelperd-plugtest (<cthelperd/plugtest.h>).  One
 * "PASS name" or "FAIL name: why" line per check; the exit status is the
 * number of failures.  `make test` runs it.
 * TODO: a check for every case of your protocol, hostile ones too.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <cthelperd/plugtest.h>

static int failed;

#define CHECK(name, cond, ...) do { \
	if (cond) { \
		printf("PASS @NAME@/%s\n", name); \
	} else { \
		printf("FAIL @NAME@/%s: ", name); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failed++; \
	} \
} while (0)

/* one datagram of the client's on a new flow to the server */
static const struct cth_plugtest_result *send_request(struct cth_plugtest *t,
							const char *conn, const char *text)
{
	if (cth_plugtest_conn(t, conn) < 0 ||
	    cth_plugtest_packet(t, CTH_DIR_ORIGINAL, text, strlen(text)) < 0)
		printf("FAIL @NAME@/harness: %s\n", cth_plugtest_error(t)), failed++;
	return cth_plugtest_result(t);
}

int main(void)
{
	const struct cth_plugtest_result *r;
	struct cth_plugtest *t;
	char err[256];

	t = cth_plugtest_new(&cth_plugin, NULL, err, sizeof(err));
	CHECK("loads", t != NULL, "%s", err);
	if (!t)
		return 1;

	r = send_request(t, "udp 10.0.1.2:40000 > 10.0.2.2:@PORT@", "REQ hello\n");
	CHECK("request-expects-the-answer", r->verdict == CTH_VERDICT_ACCEPT &&
	      r->n_expect == 1 && r->expect[0].proto == IPPROTO_UDP &&
	      r->expect[0].dport == 40000 && r->expect[0].sport == 0,
	      "verdict %d, %u expectations", r->verdict, r->n_expect);

	/* masqueraded: the answer goes to the public address, and follows
	 * the request's flow back to the client */
	r = send_request(t, "udp 10.0.1.2:40000 > 10.0.2.2:@PORT@ snat 192.0.2.1:40001",
			 "REQ hello\n");
	CHECK("snat-follows-the-master", r->n_expect == 1 &&
	      (r->expect[0].flags & CTH_EXPECT_NAT) && r->expect[0].dport == 40001 &&
	      r->expect[0].nat_dir == CTH_DIR_REPLY && r->expect[0].nat_port == 40000,
	      "%u expectations, flags %#x", r->n_expect, r->n_expect ? r->expect[0].flags : 0);

	r = send_request(t, "udp [fd00:1::2]:40000 > [fd00:2::2]:@PORT@", "HELLO?\n");
	CHECK("not-a-request-opens-nothing", r->n_expect == 0 && r->n_bug == 0,
	      "%u expectations, %s", r->n_expect, r->bug);
	CHECK("counters", r->counter[0] == 2 && r->counter[1] == 2 && r->counter[3] == 1,
	      "requests %llu, expected %llu, bad %llu", (unsigned long long)r->counter[0],
	      (unsigned long long)r->counter[1], (unsigned long long)r->counter[3]);
	cth_plugtest_free(t);
	return failed;
}
