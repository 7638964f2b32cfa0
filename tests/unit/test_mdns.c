/* SPDX-License-Identifier: MIT */
/*
 * mDNS plugin unit test: the DNS header check, the declarations (keys,
 * counters, class), and the plugin through the plugin kit's harness with
 * the link view (lanq.h): a one-shot query this host sends, one that
 * arrives, IPv4 and IPv6, answers = link and any, no network known, the
 * directions switched off, a query queued twice, what is not a one-shot
 * query (port 5353, unicast, responses, other opcodes, short), a kernel
 * error, and hostile input.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define LANQ_NAME "mdns"
#include "lanq.h"

#include "../../plugins/mdns/mdns.h"
#include "../../plugins/mdns/mdns_parse.h"

/* ID 0 (RFC 6762 section 18.1), a query, one question: _http._tcp.local PTR IN */
static const uint8_t query[] = {
	0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
	5, '_', 'h', 't', 't', 'p', 4, '_', 't', 'c', 'p', 5, 'l', 'o', 'c', 'a', 'l', 0,
	0, 12, 0, 1,
};

#define Q4 "udp 10.0.1.1:40000 > 224.0.0.251:5353"
#define Q6 "udp [fe80::1]:40000 > [ff02::fb]:5353"
#define SENT4 "in 0 out 2 net 10.0.1.0/24 dst multicast"
#define SENT6 "in 0 out 2 net fe80::/64 dst multicast"
#define ARRIVED4 "in 2 out 0 net 10.0.1.0/24 dst multicast"

static const struct lanq_want want4 = { "10.0.1.0", 24, 5353, "10.0.1.1", 40000 };
static const struct lanq_want want6 = { "fe80::", 64, 5353, "fe80::1", 40000 };
static const struct lanq_want none = { NULL, 0, 0, NULL, 0 };

static void test_parse(void)
{
	static const struct {
		const char *name;
		uint8_t b[12];
		size_t n;
		int ret;
	} cases[] = {
		{ "query", { 0, 0, 0, 0, 0, 1 }, 12, 1 },
		{ "query_two_questions_rd", { 0x12, 0x34, 0x01, 0, 0, 2 }, 12, 1 },
		{ "response", { 0, 0, 0x84, 0, 0, 0 }, 12, 0 },
		{ "response_with_question", { 0, 0, 0x80, 0, 0, 1 }, 12, 0 },
		{ "opcode_iquery", { 0, 0, 0x08, 0, 0, 1 }, 12, 0 },
		{ "opcode_update", { 0, 0, 0x28, 0, 0, 1 }, 12, 0 },
		{ "no_question", { 0, 0, 0, 0, 0, 0 }, 12, 0 },
		{ "eleven_bytes", { 0, 0, 0, 0, 0, 1 }, 11, -EINVAL },
		{ "empty", { 0 }, 0, -EINVAL },
	};
	struct mdns_hdr h;
	struct check c;

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		uint8_t *b = malloc(cases[i].n ? cases[i].n : 1);

		memcpy(b, cases[i].b, cases[i].n);
		check_start(&c, "mdns_parse_%s", cases[i].name);
		check_ret(&c, mdns_parse(b, cases[i].n, &h), cases[i].ret);
		check_end(&c);
		free(b);
	}
}

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	static const char *const keys[] = { "ports", "outgoing", "incoming", "answers" };
	static const char *const counters[] = { "queries", "expect_errors", "no_link",
						"malformed", "ignored" };
	struct check c;

	check_start(&c, "mdns_desc");
	check_that(&c, strcmp(d->name, "mdns") == 0 && d->protocols == CTH_PROTO_UDP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6) && d->priv_size == 0,
		   "name %s protocols %#x families %#x", d->name, d->protocols, d->families);
	/* conntrackd's policy */
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "mdns") == 0 &&
		   d->classes[0].max == 8 && d->classes[0].timeout == 30, "class");
	check_that(&c, d->n_keys == LANQ_ARRAY_LEN(keys), "%u keys", d->n_keys);
	for (unsigned int i = 0; i < d->n_keys && i < LANQ_ARRAY_LEN(keys); i++)
		check_that(&c, strcmp(d->keys[i].name, keys[i]) == 0 && d->keys[i].doc,
			   "key %u: %s", i, d->keys[i].name);
	if (d->n_keys == LANQ_ARRAY_LEN(keys))
		check_that(&c, d->keys[0].flags == CTH_KEY_RULE_PORTS &&
			   strcmp(d->keys[0].def, "5353") == 0 &&
			   d->keys[1].flags == CTH_KEY_RULE_OUTPUT &&
			   strcmp(d->keys[1].def, "yes") == 0 &&
			   d->keys[2].flags == CTH_KEY_RULE_PREROUTING &&
			   strcmp(d->keys[2].def, "yes") == 0 &&
			   d->keys[3].type == CTH_KEY_CHOICE && strcmp(d->keys[3].def, "link") == 0,
			   "key flags and defaults");
	check_that(&c, d->n_counters == MDNS_C_COUNT, "%u counters", d->n_counters);
	for (unsigned int i = 0; i < d->n_counters && i < LANQ_ARRAY_LEN(counters); i++)
		check_that(&c, strcmp(d->counters[i].name, counters[i]) == 0,
			   "counter %u: %s", i, d->counters[i].name);
	check_end(&c);
}

static void test_queries(void)
{
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;

	check_start(&c, "mdns_sent_v4");
	r = lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want4);
	lanq_check_counts(&c, t, d, 1, MDNS_C_QUERIES, 1);
	check_that(&c, !r->has_timeout, "master timeout set");
	check_end(&c);

	check_start(&c, "mdns_sent_v6_link_local");
	r = lanq_send(t, Q6, SENT6, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET6, &want6);
	lanq_check_counts(&c, t, d, 1, MDNS_C_QUERIES, 1);
	check_end(&c);

	/* a LAN host's query the router receives (the group joined) */
	check_start(&c, "mdns_arrived_v4");
	r = lanq_send(t, "udp 10.0.1.2:41000 > 224.0.0.251:5353", ARRIVED4, query,
		      sizeof(query), d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "10.0.1.0", 24, 5353, "10.0.1.2", 41000 });
	check_end(&c);

	/* Linux loops a copy of a multicast datagram this host sends back
	 * through POSTROUTING: the same query is queued twice on one
	 * unconfirmed flow, and asks the same both times */
	check_start(&c, "mdns_sent_twice_same");
	r = lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want4);
	r = cth_plugtest_packet(t, CTH_DIR_ORIGINAL, query, sizeof(query)) < 0 ? NULL :
	    cth_plugtest_result(t);
	if (check_that(&c, r != NULL, "second copy: %s", cth_plugtest_error(t)))
		lanq_check(&c, r, AF_INET, &want4);
	check_end(&c);

	/* a group in the question's port: another port than 5353 too */
	check_start(&c, "mdns_answers_port_is_the_groups");
	r = lanq_send(t, "udp 10.0.1.1:40000 > 224.0.0.251:5354", SENT4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "10.0.1.0", 24, 5354, "10.0.1.1", 40000 });
	check_end(&c);

	check_start(&c, "mdns_no_link_network");
	r = lanq_send(t, Q4, "in 0 out 2 dst multicast", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, MDNS_C_NO_LINK, 1);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_keys(void)
{
	static const char *const any[] = { "answers=any", NULL };
	static const char *const no_out[] = { "outgoing=no", NULL };
	static const char *const no_in[] = { "incoming=no", NULL };
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct cth_plugtest *t;
	struct check c;

	/* conntrackd's behaviour: from anywhere, and no link needed */
	t = lanq_new(&cth_plugin, any);
	check_start(&c, "mdns_answers_any");
	r = lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "0.0.0.0", 0, 5353, "10.0.1.1", 40000 });
	r = lanq_send(t, Q6, "in 0 out 2 dst multicast", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET6, &(struct lanq_want){ "::", 0, 5353, "fe80::1", 40000 });
	lanq_check_counts(&c, t, d, 1, MDNS_C_QUERIES, 1);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_out);
	check_start(&c, "mdns_outgoing_no");
	r = lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, MDNS_C_IGNORED, 1);
	r = lanq_send(t, Q4, ARRIVED4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want4);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_in);
	check_start(&c, "mdns_incoming_no");
	r = lanq_send(t, Q4, ARRIVED4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, MDNS_C_IGNORED, 1);
	r = lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want4);
	check_end(&c);
	cth_plugtest_free(t);

	/* the kernel refuses the expectation (out of memory): the query
	 * still passes, never dropped (the kernel's broadcast helper) */
	t = lanq_new(&cth_plugin, NULL);
	check_start(&c, "mdns_kernel_error_still_accepted");
	cth_plugtest_kernel(t, -ENOMEM, 0, 0);
	r = lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	check_that(&c, r->verdict == CTH_VERDICT_ACCEPT && r->n_bug == 0 && r->n_expect == 1 &&
		   d[MDNS_C_QUERIES] + d[MDNS_C_EXPECT_ERRORS] == 1,
		   "verdict %d, %u expectations, bug %s", r->verdict, r->n_expect, r->bug);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_not_queries(void)
{
	static const uint8_t response[] = { 0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint8_t update[] = { 0, 0, 0x28, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	static const struct {
		const char *name;
		const char *conn;
		const uint8_t *p;
		size_t n;
		unsigned int counter;
	} cases[] = {
		/* a full responder's query: its answers are multicast */
		{ "from_5353", "udp 10.0.1.1:5353 > 224.0.0.251:5353", query, sizeof(query),
		  MDNS_C_IGNORED },
		/* unicast: answered on the flow's own reply tuple */
		{ "unicast", "udp 10.0.1.1:40000 > 10.0.1.2:5353", query, sizeof(query),
		  MDNS_C_IGNORED },
		{ "another_group", "udp 10.0.1.1:40000 > 224.0.0.252:5353", query, sizeof(query),
		  MDNS_C_IGNORED },
		{ "v6_other_scope", "udp [fd00:1::1]:40000 > [ff05::fb]:5353", query,
		  sizeof(query), MDNS_C_IGNORED },
		{ "response", Q4, response, sizeof(response), MDNS_C_IGNORED },
		{ "update", Q4, update, sizeof(update), MDNS_C_IGNORED },
		{ "short", Q4, query, 11, MDNS_C_MALFORMED },
		{ "one_byte", Q6, query, 1, MDNS_C_MALFORMED },
		{ "expected", "udp 10.0.1.2:5353 > 10.0.1.1:40000 expected", query, sizeof(query),
		  MDNS_C_IGNORED },
	};
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		check_start(&c, "mdns_nothing_%s", cases[i].name);
		r = lanq_send(t, cases[i].conn, SENT4, cases[i].p, cases[i].n, d);
		lanq_check(&c, r, AF_INET, &none);
		lanq_check_counts(&c, t, d, 1, cases[i].counter, 1);
		check_end(&c);
	}

	/* the query flow's reply direction (a group never answers as one) */
	check_start(&c, "mdns_nothing_reply_direction");
	lanq_send(t, Q4, SENT4, query, sizeof(query), d);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_REPLY, query, sizeof(query)) >= 0,
		       "%s", cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET, &none);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_hostile(void)
{
	static const char *const conns[] = { Q4, Q6, "udp 10.0.1.1:5353 > 224.0.0.251:5353",
					     "udp 10.0.1.2:5353 > 10.0.1.1:40000 expected" };
	static const char *const links[] = { SENT4, SENT6, ARRIVED4, NULL, "in 0 out 2",
					     "in 0 out 2 net 10.0.0.0/8 dst broadcast" };
	static const uint8_t *const samples[] = { query };
	static const size_t lens[] = { sizeof(query) };
	static const char *const any[] = { "answers=any", NULL };
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);

	lanq_hostile(t, "hostile_link", conns, LANQ_ARRAY_LEN(conns), links,
		     LANQ_ARRAY_LEN(links), samples, lens, 1, 3000);
	cth_plugtest_free(t);
	t = lanq_new(&cth_plugin, any);
	lanq_hostile(t, "hostile_any", conns, LANQ_ARRAY_LEN(conns), links,
		     LANQ_ARRAY_LEN(links), samples, lens, 1, 3000);
	cth_plugtest_free(t);
}

int main(void)
{
	test_parse();
	test_desc();
	test_queries();
	test_keys();
	test_not_queries();
	test_hostile();
	return check_exit();
}
