/* SPDX-License-Identifier: MIT */
/*
 * Shared by the unit tests of the helpers of queries to a group or
 * broadcast address (test_mdns.c, test_slp.c, test_dhcpv6.c,
 * test_netbios_ns.c), beside the check harness (check.h): one query
 * through the plugin kit's harness (<cthelperd/plugtest.h>) with the link
 * view a test gives (cth_plugtest_link()), and the checks of the one
 * shape they all open (cth_expect_answers()): UDP, PERMANENT, from the
 * link's network (or anywhere) and the answers' port, to the querier.
 * Each test defines LANQ_NAME (its check names' prefix) first.
 */
#ifndef CTH_TEST_LANQ_H
#define CTH_TEST_LANQ_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cthelperd/plugtest.h>
#include <cthelperd/util.h>

#include "check.h"

#ifndef LANQ_NAME
#error "define LANQ_NAME before including lanq.h"
#endif

#define LANQ_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What one query should open: src NULL = nothing; prefix 0 = from any
 * address; sport 0 = any port. */
struct lanq_want {
	const char *src;
	unsigned int prefix;
	uint16_t sport;
	const char *dst;
	uint16_t dport;
};

/* The plugin with these settings ("key=value", NULL-ended; NULL: the
 * defaults); aborts the test when the harness refuses it. */
static inline struct cth_plugtest *lanq_new(const struct cth_plugin_desc *desc,
					    const char *const *settings)
{
	char err[256] = "";
	struct cth_plugtest *t = cth_plugtest_new(desc, settings, err, sizeof(err));

	if (!t) {
		printf("FAIL %s_harness: %s\n", LANQ_NAME, err);
		exit(1);
	}
	return t;
}

/* One datagram of the original direction on a new flow conn, with the
 * link view link (NULL: the harness's default); the counters it added go
 * to delta[] (CTH_COUNTER_MAX entries, may be NULL). */
static inline const struct cth_plugtest_result *
lanq_send(struct cth_plugtest *t, const char *conn, const char *link, const void *payload,
	  size_t len, uint64_t *delta)
{
	const struct cth_plugtest_result *r = cth_plugtest_result(t);
	uint64_t before[CTH_COUNTER_MAX];
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		abort();
	/* exactly len bytes on the heap: AddressSanitizer sees a read past */
	memcpy(copy, payload, len);
	memcpy(before, r->counter, sizeof(before));
	if (cth_plugtest_conn(t, conn) < 0 ||
	    cth_plugtest_link(t, link ? link : "in 1 out 2") < 0 ||
	    cth_plugtest_packet(t, CTH_DIR_ORIGINAL, copy, len) < 0) {
		printf("FAIL %s_harness: %s: %s\n", LANQ_NAME, conn, cth_plugtest_error(t));
		exit(1);
	}
	free(copy);
	r = cth_plugtest_result(t);
	if (delta)
		for (unsigned int i = 0; i < CTH_COUNTER_MAX; i++)
			delta[i] = r->counter[i] - before[i];
	return r;
}

static inline bool lanq_addr_is(int family, const union cth_addr *a, const char *text)
{
	union cth_addr want;

	memset(&want, 0, sizeof(want));
	if (inet_pton(family, text, want.raw) != 1)
		abort();
	return cth_addr_equal(family, a, &want);
}

/* Accepted, no plugin bug, nothing rewritten; then exactly w (or nothing
 * when w->src is NULL). */
static inline void lanq_check(struct check *c, const struct cth_plugtest_result *r, int family,
			      const struct lanq_want *w)
{
	const struct cth_expect *e = &r->expect[0];
	char src[INET6_ADDRSTRLEN] = "?", dst[INET6_ADDRSTRLEN] = "?";
	unsigned int want_flags;

	check_that(c, r->verdict == CTH_VERDICT_ACCEPT, "verdict %d", r->verdict);
	check_that(c, r->n_bug == 0, "plugin bug: %s", r->bug);
	check_that(c, !r->rewritten && r->n_edit == 0 && !r->keep, "payload touched");
	if (!w->src) {
		check_that(c, r->n_expect == 0, "%u expectations, want none", r->n_expect);
		return;
	}
	if (!check_that(c, r->n_expect == 1, "%u expectations, want 1", r->n_expect))
		return;
	inet_ntop(family, e->src.raw, src, sizeof(src));
	inet_ntop(family, e->dst.raw, dst, sizeof(dst));
	want_flags = CTH_EXPECT_PERMANENT |
		     (w->prefix ? CTH_EXPECT_SRC_PREFIX : CTH_EXPECT_ANY_SRC);
	check_that(c, e->flags == want_flags, "flags %#x, want %#x", e->flags, want_flags);
	check_that(c, e->class == 0 && e->family == family && e->proto == IPPROTO_UDP &&
		   r->expect_how[0] == 0 && r->expect_rc[0] == 0,
		   "class %u family %u proto %u how %#x rc %d", e->class, e->family, e->proto,
		   r->expect_how[0], r->expect_rc[0]);
	if (w->prefix)
		check_that(c, e->src_prefix == w->prefix && lanq_addr_is(family, &e->src, w->src),
			   "from %s/%u, want %s/%u", src, e->src_prefix, w->src, w->prefix);
	check_that(c, e->sport == w->sport, "from port %u, want %u", e->sport, w->sport);
	check_that(c, lanq_addr_is(family, &e->dst, w->dst) && e->dport == w->dport,
		   "to %s:%u, want %s:%u", dst, e->dport, w->dst, w->dport);
}

/* The counters delta[] holds exactly these: n pairs (index, count) in
 * the variadic list, every other one 0. */
static inline void lanq_check_counts(struct check *c, const struct cth_plugtest *t,
				     const uint64_t *delta, unsigned int n, ...)
{
	const struct cth_plugin_desc *d = cth_plugtest_desc(t);
	uint64_t want[CTH_COUNTER_MAX] = { 0 };
	va_list ap;

	va_start(ap, n);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int idx = va_arg(ap, unsigned int);
		unsigned int cnt = va_arg(ap, unsigned int);

		if (idx < CTH_COUNTER_MAX)
			want[idx] = cnt;
	}
	va_end(ap);
	for (unsigned int i = 0; i < d->n_counters; i++)
		check_that(c, delta[i] == want[i], "counter %s %llu, want %llu",
			   d->counters[i].name, (unsigned long long)delta[i],
			   (unsigned long long)want[i]);
}

/* Deterministic xorshift64*, for the hostile-input rounds. */
static inline uint32_t lanq_rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * 0x2545f4914f6cdd1dull) >> 32);
}

/*
 * Hostile input: rounds datagrams, each a valid sample (samples[], n
 * of them, lens[]) cut short, with bytes changed, or pure noise, on one
 * of the flows conns[] (n_conns) with one of the link views links[]
 * (n_links, NULL entries: the default).  Whatever comes, the plugin
 * accepts it (these helpers never drop a query), makes no request the
 * host refuses, and opens at most one expectation, of the one shape.
 */
static inline void lanq_hostile(struct cth_plugtest *t, const char *name,
				const char *const *conns, unsigned int n_conns,
				const char *const *links, unsigned int n_links,
				const uint8_t *const *samples, const size_t *lens,
				unsigned int n, unsigned int rounds)
{
	uint64_t seed = 0x1a2b3c4d5e6f7081ull;
	const struct cth_plugtest_result *r;
	uint8_t buf[600];
	struct check c;

	check_start(&c, "%s_%s", LANQ_NAME, name);
	for (unsigned int i = 0; i < rounds && !c.failed; i++) {
		unsigned int s = lanq_rng(&seed) % n;
		size_t len = lens[s] < sizeof(buf) ? lens[s] : sizeof(buf);
		unsigned int how = lanq_rng(&seed) % 4;

		memcpy(buf, samples[s], len);
		if (how == 0) {
			len = lanq_rng(&seed) % (len + 1);
		} else if (how == 1) {
			for (unsigned int k = 1 + lanq_rng(&seed) % 4; k && len; k--)
				buf[lanq_rng(&seed) % len] = (uint8_t)lanq_rng(&seed);
		} else if (how == 2) {
			len = lanq_rng(&seed) % sizeof(buf);
			for (size_t k = 0; k < len; k++)
				buf[k] = (uint8_t)lanq_rng(&seed);
		}
		if (len == 0)
			len = 1;
		r = lanq_send(t, conns[lanq_rng(&seed) % n_conns],
			      links[lanq_rng(&seed) % n_links], buf, len, NULL);
		check_that(&c, r->verdict == CTH_VERDICT_ACCEPT && r->n_bug == 0 &&
			   r->n_expect <= 1 && !r->rewritten,
			   "round %u: verdict %d, %u expectations, bug %s", i, r->verdict,
			   r->n_expect, r->n_bug ? r->bug : "none");
		if (r->n_expect == 1)
			check_that(&c, (r->expect[0].flags & CTH_EXPECT_PERMANENT) &&
				   r->expect[0].proto == IPPROTO_UDP,
				   "round %u: flags %#x", i, r->expect[0].flags);
	}
	check_end(&c);
}

#endif
