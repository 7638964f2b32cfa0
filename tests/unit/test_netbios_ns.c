/* SPDX-License-Identifier: MIT */
/*
 * NetBIOS-NS plugin unit test: the name service header check, the
 * declarations, and the plugin through the plugin kit's harness with the
 * link view (lanq.h): a name query this host broadcasts to its subnet
 * (the kernel's case) and to 255.255.255.255, from an ephemeral port or
 * 137, queries that arrive (incoming), answers = link and any, no
 * network known, broadcast_all and timeout, a query queued twice, what
 * is not a name query broadcast, and hostile input.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define LANQ_NAME "netbios_ns"
#include "lanq.h"

#include "../../plugins/netbios-ns/netbios_ns.h"
#include "../../plugins/netbios-ns/netbios_ns_parse.h"

/* A broadcast name query for WORKGROUP<00> (RFC 1002 section 4.2.12):
 * flags RD and B, one question, the first-level encoded name, NB IN. */
static const uint8_t query[] = {
	0x12, 0x34, 0x01, 0x10, 0, 1, 0, 0, 0, 0, 0, 0,
	0x20, 'F', 'H', 'E', 'P', 'F', 'C', 'E', 'L', 'E', 'H', 'F', 'C', 'E', 'P', 'F',
	'F', 'F', 'A', 'C', 'A', 'C', 'A', 'C', 'A', 'C', 'A', 'C', 'A', 'C', 'A', 'C', 'A',
	'A', 'A', 0, 0, 0x20, 0, 1,
};

#define B4 "udp 10.0.1.1:40000 > 10.0.1.255:137"
#define SENT "in 0 out 2 net 10.0.1.0/24 dst broadcast"
#define ARRIVED "in 2 out 0 net 10.0.1.0/24 dst broadcast"

static const struct lanq_want want = { "10.0.1.0", 24, 137, "10.0.1.1", 40000 };
static const struct lanq_want none = { NULL, 0, 0, NULL, 0 };

static void test_parse(void)
{
	static const struct {
		const char *name;
		uint8_t b[12];
		size_t n;
		int ret;
	} cases[] = {
		{ "query", { 0, 1, 0x01, 0x10, 0, 1 }, 12, 1 },
		{ "query_no_flags", { 0, 1, 0, 0, 0, 1 }, 12, 1 },
		{ "positive_response", { 0, 1, 0x85, 0, 0, 0 }, 12, 0 },
		{ "registration", { 0, 1, 0x29, 0x10, 0, 1 }, 12, 0 },
		{ "release", { 0, 1, 0x30, 0x10, 0, 1 }, 12, 0 },
		{ "refresh", { 0, 1, 0x40, 0x10, 0, 1 }, 12, 0 },
		{ "no_question", { 0, 1, 0x01, 0x10, 0, 0 }, 12, 0 },
		{ "eleven_bytes", { 0, 1, 0x01, 0x10, 0, 1 }, 11, -EINVAL },
		{ "empty", { 0 }, 0, -EINVAL },
	};
	struct nbns_hdr h;
	struct check c;

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		uint8_t *b = malloc(cases[i].n ? cases[i].n : 1);

		memcpy(b, cases[i].b, cases[i].n);
		check_start(&c, "netbios_ns_parse_%s", cases[i].name);
		check_ret(&c, nbns_parse(b, cases[i].n, &h), cases[i].ret);
		check_end(&c);
		free(b);
	}
}

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	static const char *const keys[] = { "ports", "outgoing", "incoming", "answers",
					    "broadcast_all", "timeout" };
	static const char *const counters[] = { "queries", "expect_errors", "no_link",
						"malformed", "ignored" };
	struct check c;

	check_start(&c, "netbios_ns_desc");
	check_that(&c, strcmp(d->name, "netbios-ns") == 0 && d->protocols == CTH_PROTO_UDP &&
		   d->families == CTH_FAMILY_IPV4 && d->priv_size == 0, "name %s", d->name);
	/* the kernel's policy */
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "netbios-ns") == 0 &&
		   d->classes[0].max == 1 && d->classes[0].timeout == 3, "class");
	check_that(&c, d->n_keys == LANQ_ARRAY_LEN(keys), "%u keys", d->n_keys);
	for (unsigned int i = 0; i < d->n_keys && i < LANQ_ARRAY_LEN(keys); i++)
		check_that(&c, strcmp(d->keys[i].name, keys[i]) == 0 && d->keys[i].doc,
			   "key %u: %s", i, d->keys[i].name);
	if (d->n_keys == LANQ_ARRAY_LEN(keys))
		check_that(&c, strcmp(d->keys[0].def, "137") == 0 &&
			   d->keys[1].flags == CTH_KEY_RULE_OUTPUT &&
			   strcmp(d->keys[1].def, "yes") == 0 &&
			   d->keys[2].flags == CTH_KEY_RULE_PREROUTING &&
			   strcmp(d->keys[2].def, "no") == 0 &&
			   strcmp(d->keys[3].def, "link") == 0 &&
			   strcmp(d->keys[4].def, "yes") == 0 && strcmp(d->keys[5].def, "3") == 0,
			   "key flags and defaults");
	check_that(&c, d->n_counters == NBNS_C_COUNT, "%u counters", d->n_counters);
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

	/* the kernel's case: from the subnet, port 137, to the querier;
	 * the query's flow lives 3 s */
	check_start(&c, "netbios_ns_sent_subnet_broadcast");
	r = lanq_send(t, B4, SENT, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want);
	check_that(&c, r->has_timeout && r->timeout == 3, "master timeout %u",
		   r->has_timeout ? r->timeout : 0);
	lanq_check_counts(&c, t, d, 1, NBNS_C_QUERIES, 1);
	check_end(&c);

	/* nmbd and Windows ask from port 137 itself */
	check_start(&c, "netbios_ns_sent_from_137");
	r = lanq_send(t, "udp 10.0.1.1:137 > 10.0.1.255:137", SENT, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "10.0.1.0", 24, 137, "10.0.1.1", 137 });
	check_end(&c);

	/* a /16 subnet (the prefix the link view gives, not a guess) */
	check_start(&c, "netbios_ns_sent_slash16");
	r = lanq_send(t, "udp 172.16.3.4:40000 > 172.16.255.255:137",
		      "in 0 out 3 net 172.16.0.0/16 dst broadcast", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "172.16.0.0", 16, 137, "172.16.3.4",
							40000 });
	check_end(&c);

	/* the kernel opens nothing for 255.255.255.255 */
	check_start(&c, "netbios_ns_sent_broadcast_all");
	r = lanq_send(t, "udp 10.0.1.1:40000 > 255.255.255.255:137",
		      "in 0 out 2 net 10.0.1.0/24 dst broadcast-all", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want);
	check_end(&c);

	check_start(&c, "netbios_ns_sent_twice_same");
	r = lanq_send(t, B4, SENT, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_ORIGINAL, query, sizeof(query)) >= 0,
		       "%s", cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET, &want);
	check_end(&c);

	check_start(&c, "netbios_ns_no_link_network");
	r = lanq_send(t, B4, "in 0 out 2 dst broadcast", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &none);
	check_that(&c, !r->has_timeout, "timeout set");
	lanq_check_counts(&c, t, d, 1, NBNS_C_NO_LINK, 1);
	check_end(&c);

	/* the kernel's rule: only what this host sends */
	check_start(&c, "netbios_ns_arrived_default_no");
	r = lanq_send(t, "udp 10.0.1.2:40000 > 10.0.1.255:137", ARRIVED, query, sizeof(query),
		      d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, NBNS_C_IGNORED, 1);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_keys(void)
{
	static const char *const any[] = { "answers=any", NULL };
	static const char *const in[] = { "incoming=yes", "outgoing=no", NULL };
	static const char *const no_all[] = { "broadcast_all=no", "timeout=10", NULL };
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct cth_plugtest *t;
	struct check c;

	t = lanq_new(&cth_plugin, any);
	check_start(&c, "netbios_ns_answers_any");
	r = lanq_send(t, B4, "in 0 out 2 dst broadcast", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "0.0.0.0", 0, 137, "10.0.1.1", 40000 });
	lanq_check_counts(&c, t, d, 1, NBNS_C_QUERIES, 1);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, in);
	check_start(&c, "netbios_ns_incoming_yes_outgoing_no");
	r = lanq_send(t, "udp 10.0.1.2:40000 > 10.0.1.255:137", ARRIVED, query, sizeof(query),
		      d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "10.0.1.0", 24, 137, "10.0.1.2", 40000 });
	r = lanq_send(t, B4, SENT, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, NBNS_C_IGNORED, 1);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_all);
	check_start(&c, "netbios_ns_broadcast_all_no");
	r = lanq_send(t, "udp 10.0.1.1:40000 > 255.255.255.255:137",
		      "in 0 out 2 net 10.0.1.0/24 dst broadcast-all", query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, NBNS_C_IGNORED, 1);
	check_end(&c);
	check_start(&c, "netbios_ns_timeout_key");
	r = lanq_send(t, B4, SENT, query, sizeof(query), d);
	lanq_check(&c, r, AF_INET, &want);
	check_that(&c, r->has_timeout && r->timeout == 10, "master timeout %u",
		   r->has_timeout ? r->timeout : 0);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_not_queries(void)
{
	static const uint8_t reg[] = { 0, 1, 0x29, 0x10, 0, 1, 0, 0, 0, 0, 0, 1 };
	static const uint8_t resp[] = { 0, 1, 0x85, 0x00, 0, 0, 0, 1, 0, 0, 0, 0 };
	static const struct {
		const char *name;
		const char *conn;
		const char *link;
		const uint8_t *p;
		size_t n;
		unsigned int counter;
	} cases[] = {
		{ "registration", B4, SENT, reg, sizeof(reg), NBNS_C_IGNORED },
		{ "response", B4, SENT, resp, sizeof(resp), NBNS_C_IGNORED },
		{ "short", B4, SENT, query, 11, NBNS_C_MALFORMED },
		{ "one_byte", B4, SENT, query, 1, NBNS_C_MALFORMED },
		/* a WINS server's unicast query: its own reply tuple */
		{ "unicast", "udp 10.0.1.1:40000 > 10.0.1.2:137", "in 0 out 2 net 10.0.1.0/24",
		  query, sizeof(query), NBNS_C_IGNORED },
		{ "multicast", "udp 10.0.1.1:40000 > 224.0.0.1:137",
		  "in 0 out 2 net 10.0.1.0/24 dst multicast", query, sizeof(query),
		  NBNS_C_IGNORED },
		{ "expected", "udp 10.0.1.2:137 > 10.0.1.1:40000 expected", SENT, query,
		  sizeof(query), NBNS_C_IGNORED },
	};
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		check_start(&c, "netbios_ns_nothing_%s", cases[i].name);
		r = lanq_send(t, cases[i].conn, cases[i].link, cases[i].p, cases[i].n, d);
		lanq_check(&c, r, AF_INET, &none);
		check_that(&c, !r->has_timeout, "timeout set");
		lanq_check_counts(&c, t, d, 1, cases[i].counter, 1);
		check_end(&c);
	}
	check_start(&c, "netbios_ns_nothing_reply_direction");
	lanq_send(t, B4, SENT, query, sizeof(query), d);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_REPLY, query, sizeof(query)) >= 0,
		       "%s", cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET, &none);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_hostile(void)
{
	static const char *const conns[] = { B4, "udp 10.0.1.1:137 > 255.255.255.255:137",
					     "udp 10.0.1.1:40000 > 10.0.1.2:137",
					     "udp 10.0.1.2:137 > 10.0.1.1:40000 expected" };
	static const char *const links[] = { SENT, ARRIVED, NULL, "in 0 out 2",
					     "in 0 out 2 net 10.0.1.0/24 dst broadcast-all",
					     "in 0 out 2 dst broadcast" };
	static const uint8_t *const samples[] = { query };
	static const size_t lens[] = { sizeof(query) };
	static const char *const all[] = { "answers=any", "incoming=yes", NULL };
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);

	lanq_hostile(t, "hostile_link", conns, LANQ_ARRAY_LEN(conns), links,
		     LANQ_ARRAY_LEN(links), samples, lens, 1, 3000);
	cth_plugtest_free(t);
	t = lanq_new(&cth_plugin, all);
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
