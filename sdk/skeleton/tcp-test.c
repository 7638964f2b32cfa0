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

/* the server's line on a new control connection */
static const struct cth_plugtest_result *announce(struct cth_plugtest *t, const char *conn,
						  const char *text)
{
	if (cth_plugtest_conn(t, conn) < 0 ||
	    cth_plugtest_packet(t, CTH_DIR_REPLY, text, strlen(text)) < 0)
		printf("FAIL @NAME@/harness: %s\n", cth_plugtest_error(t)), failed++;
	return cth_plugtest_result(t);
}

int main(void)
{
	static const char *const settings[] = { "min_port=1024", NULL };
	const struct cth_plugtest_result *r;
	struct cth_plugtest *t;
	char err[256];

	t = cth_plugtest_new(&cth_plugin, settings, err, sizeof(err));
	CHECK("loads", t != NULL, "%s", err);
	if (!t)
		return 1;

	r = announce(t, "tcp 10.0.1.2:40000 > 10.0.2.2:@PORT@", "OPEN 40100\r\n");
	CHECK("announcement-expects-the-connection", r->verdict == CTH_VERDICT_ACCEPT &&
	      r->n_expect == 1 && r->expect[0].proto == IPPROTO_TCP &&
	      r->expect[0].dport == 40100 && r->n_edit == 0,
	      "verdict %d, %u expectations", r->verdict, r->n_expect);

	/* the server behind DNAT (the client dialled 192.0.2.1): the client
	 * connects to that address, and the kernel forwards it to the server */
	r = announce(t, "tcp 10.0.1.2:40000 > 10.0.2.2:@PORT@ dnat 192.0.2.1:@PORT@",
		     "OPEN 40100\r\n");
	CHECK("dnat-follows-the-master", r->n_expect == 1 &&
	      (r->expect[0].flags & CTH_EXPECT_NAT) && r->expect[0].dport == 40100 &&
	      r->expect[0].nat_dir == CTH_DIR_ORIGINAL,
	      "%u expectations, flags %#x", r->n_expect, r->n_expect ? r->expect[0].flags : 0);

	r = announce(t, "tcp [fd00:1::2]:40000 > [fd00:2::2]:@PORT@", "OPEN 80\r\n");
	CHECK("below-min-port-opens-nothing", r->n_expect == 0 && r->n_bug == 0,
	      "%u expectations, %s", r->n_expect, r->bug);
	r = announce(t, "tcp 10.0.1.2:40000 > 10.0.2.2:@PORT@", "OPEN 99999\r\n");
	CHECK("bad-port-opens-nothing", r->n_expect == 0 && r->n_bug == 0,
	      "%u expectations, %s", r->n_expect, r->bug);
	cth_plugtest_free(t);
	return failed;
}
