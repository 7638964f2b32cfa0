/* SPDX-License-Identifier: MIT */
/*
 * SLP plugin unit test: the SLPv2 header check, the declarations, and the
 * plugin through the plugin kit's harness with the link view (lanq.h):
 * Service, Attribute and Service Type Requests to 239.255.255.253,
 * ff02::116 and ff05::116 and to a broadcast address, sent by this host
 * or arriving, answers = link and any, no network known, the directions
 * switched off, a request queued twice, SLPv1, other SLPv2 messages,
 * malformed headers, unicast, and hostile input.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define LANQ_NAME "slp"
#include "lanq.h"

#include "../../plugins/slp/slp.h"
#include "../../plugins/slp/slp_parse.h"

struct msg {
	uint8_t b[128];
	size_t n;
};

/* An SLPv2 message: header with language tag "en", then the body of a
 * Service Request for service:printer in scope DEFAULT (RFC 2608
 * section 8.1); len_adjust changes the header's length field only. */
static struct msg slp_msg(uint8_t version, uint8_t fn, int len_adjust)
{
	static const uint8_t body[] = {
		0, 0,                                   /* PRList */
		0, 15, 's', 'e', 'r', 'v', 'i', 'c', 'e', ':', 'p', 'r', 'i', 'n', 't', 'e', 'r',
		0, 7, 'D', 'E', 'F', 'A', 'U', 'L', 'T',
		0, 0,                                   /* predicate */
		0, 0,                                   /* SLP SPI */
	};
	struct msg m = { .n = 16 + sizeof(body) };
	uint32_t len = (uint32_t)((int)m.n + len_adjust);

	m.b[0] = version;
	m.b[1] = fn;
	m.b[2] = (uint8_t)(len >> 16);
	m.b[3] = (uint8_t)(len >> 8);
	m.b[4] = (uint8_t)len;
	m.b[5] = 0x20;                                  /* REQUEST MCAST */
	m.b[10] = 0x12;                                 /* XID */
	m.b[11] = 0x34;
	m.b[13] = 2;
	m.b[14] = 'e';
	m.b[15] = 'n';
	memcpy(m.b + 16, body, sizeof(body));
	return m;
}

#define G4 "udp 10.0.1.1:40000 > 239.255.255.253:427"
#define SENT4 "in 0 out 2 net 10.0.1.0/24 dst multicast"
#define ARRIVED4 "in 2 out 0 net 10.0.1.0/24 dst multicast"

static const struct lanq_want want4 = { "10.0.1.0", 24, 427, "10.0.1.1", 40000 };
static const struct lanq_want none = { NULL, 0, 0, NULL, 0 };

static void test_parse(void)
{
	struct msg m, v1 = { { 1, 1, 0, 40 }, 40 };
	struct slp_hdr h;
	struct check c;
	static const struct {
		const char *name;
		uint8_t version, fn;
		int adjust;
		size_t cut;
		int ret;
	} cases[] = {
		{ "srvrqst", 2, 1, 0, 0, 1 },
		{ "attrrqst", 2, 6, 0, 0, 1 },
		{ "srvtyperqst", 2, 9, 0, 0, 1 },
		{ "srvrply", 2, 2, 0, 0, 0 },
		{ "srvreg", 2, 3, 0, 0, 0 },
		{ "daadvert", 2, 8, 0, 0, 0 },
		{ "function_0", 2, 0, 0, 0, 0 },
		{ "function_255", 2, 255, 0, 0, 0 },
		{ "version_0", 0, 1, 0, 0, -EINVAL },
		{ "version_3", 3, 1, 0, 0, -EINVAL },
		{ "length_past_datagram", 2, 1, 1, 0, -EINVAL },
		{ "length_shorter_ok", 2, 1, -20, 0, 1 },
		{ "length_below_tag", 2, 1, -35, 0, -EINVAL },
		{ "length_huge", 2, 1, 0x800000, 0, -EINVAL },
		{ "cut_to_header", 2, 1, 0, 14, -EINVAL },
		{ "cut_to_13", 2, 1, 0, 13, -EINVAL },
		{ "cut_to_1", 2, 1, 0, 1, -EINVAL },
	};

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		uint8_t *b;

		m = slp_msg(cases[i].version, cases[i].fn, cases[i].adjust);
		if (cases[i].cut)
			m.n = cases[i].cut;
		b = malloc(m.n);
		memcpy(b, m.b, m.n);
		check_start(&c, "slp_parse_%s", cases[i].name);
		check_ret(&c, slp_parse(b, m.n, &h), cases[i].ret);
		if (cases[i].ret >= 0)
			check_that(&c, h.version == cases[i].version && h.function == cases[i].fn &&
				   h.lang_len == 2 && h.flags == 0x2000, "header read");
		check_end(&c);
		free(b);
	}
	check_start(&c, "slp_parse_v1");
	check_ret(&c, slp_parse(v1.b, v1.n, &h), 0);
	check_that(&c, h.version == 1, "version %u", h.version);
	check_ret(&c, slp_parse(v1.b, 2, &h), 0);
	check_end(&c);
}

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	static const char *const keys[] = { "ports", "outgoing", "incoming", "answers" };
	static const char *const counters[] = { "requests", "v1", "expect_errors", "no_link",
						"malformed", "ignored" };
	struct check c;

	check_start(&c, "slp_desc");
	check_that(&c, strcmp(d->name, "slp") == 0 && d->protocols == CTH_PROTO_UDP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6) && d->priv_size == 0,
		   "name %s", d->name);
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "slp") == 0 &&
		   d->classes[0].max == 8 && d->classes[0].timeout == 16, "class");
	check_that(&c, d->n_keys == LANQ_ARRAY_LEN(keys), "%u keys", d->n_keys);
	for (unsigned int i = 0; i < d->n_keys && i < LANQ_ARRAY_LEN(keys); i++)
		check_that(&c, strcmp(d->keys[i].name, keys[i]) == 0 && d->keys[i].doc,
			   "key %u: %s", i, d->keys[i].name);
	if (d->n_keys == LANQ_ARRAY_LEN(keys))
		check_that(&c, strcmp(d->keys[0].def, "427") == 0 &&
			   d->keys[1].flags == CTH_KEY_RULE_OUTPUT &&
			   d->keys[2].flags == CTH_KEY_RULE_PREROUTING &&
			   strcmp(d->keys[2].def, "yes") == 0 &&
			   strcmp(d->keys[3].def, "link") == 0, "key flags and defaults");
	check_that(&c, d->n_counters == SLP_C_COUNT, "%u counters", d->n_counters);
	for (unsigned int i = 0; i < d->n_counters && i < LANQ_ARRAY_LEN(counters); i++)
		check_that(&c, strcmp(d->counters[i].name, counters[i]) == 0,
			   "counter %u: %s", i, d->counters[i].name);
	check_end(&c);
}

static void test_requests(void)
{
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	struct msg rq = slp_msg(2, SLP_FN_SRVRQST, 0);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;
	static const struct {
		const char *name;
		uint8_t fn;
		const char *conn;
		const char *link;
		int family;
		struct lanq_want want;
	} cases[] = {
		{ "srvrqst_sent_v4", SLP_FN_SRVRQST, G4, SENT4, AF_INET,
		  { "10.0.1.0", 24, 427, "10.0.1.1", 40000 } },
		{ "attrrqst_sent_v4", SLP_FN_ATTRRQST, G4, SENT4, AF_INET,
		  { "10.0.1.0", 24, 427, "10.0.1.1", 40000 } },
		{ "srvtyperqst_arrived_v4", SLP_FN_SRVTYPERQST,
		  "udp 10.0.1.2:41000 > 239.255.255.253:427", ARRIVED4, AF_INET,
		  { "10.0.1.0", 24, 427, "10.0.1.2", 41000 } },
		{ "srvrqst_subnet_broadcast", SLP_FN_SRVRQST,
		  "udp 10.0.1.1:40000 > 10.0.1.255:427",
		  "in 0 out 2 net 10.0.1.0/24 dst broadcast", AF_INET,
		  { "10.0.1.0", 24, 427, "10.0.1.1", 40000 } },
		{ "srvrqst_broadcast_all", SLP_FN_SRVRQST,
		  "udp 10.0.1.1:40000 > 255.255.255.255:427",
		  "in 0 out 2 net 10.0.1.0/24 dst broadcast-all", AF_INET,
		  { "10.0.1.0", 24, 427, "10.0.1.1", 40000 } },
		{ "srvrqst_v6_link", SLP_FN_SRVRQST, "udp [fd00:1::1]:40000 > [ff02::116]:427",
		  "in 0 out 2 net fd00:1::/64 dst multicast", AF_INET6,
		  { "fd00:1::", 64, 427, "fd00:1::1", 40000 } },
		{ "srvrqst_v6_site", SLP_FN_SRVRQST, "udp [fd00:1::1]:40000 > [ff05::116]:427",
		  "in 0 out 2 net fd00:1::/64 dst multicast", AF_INET6,
		  { "fd00:1::", 64, 427, "fd00:1::1", 40000 } },
	};

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		struct msg m = slp_msg(2, cases[i].fn, 0);

		check_start(&c, "slp_%s", cases[i].name);
		r = lanq_send(t, cases[i].conn, cases[i].link, m.b, m.n, d);
		lanq_check(&c, r, cases[i].family, &cases[i].want);
		lanq_check_counts(&c, t, d, 1, SLP_C_REQUESTS, 1);
		check_end(&c);
	}

	check_start(&c, "slp_sent_twice_same");
	r = lanq_send(t, G4, SENT4, rq.b, rq.n, d);
	lanq_check(&c, r, AF_INET, &want4);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_ORIGINAL, rq.b, rq.n) >= 0, "%s",
		       cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET, &want4);
	check_end(&c);

	check_start(&c, "slp_no_link_network");
	r = lanq_send(t, G4, "in 0 out 2 dst multicast", rq.b, rq.n, d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, SLP_C_NO_LINK, 1);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_keys(void)
{
	static const char *const any[] = { "answers=any", NULL };
	static const char *const no_out[] = { "outgoing=no", NULL };
	static const char *const no_in[] = { "incoming=no", NULL };
	struct msg rq = slp_msg(2, SLP_FN_SRVRQST, 0);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct cth_plugtest *t;
	struct check c;

	t = lanq_new(&cth_plugin, any);
	check_start(&c, "slp_answers_any");
	r = lanq_send(t, G4, "in 0 out 2 dst multicast", rq.b, rq.n, d);
	lanq_check(&c, r, AF_INET, &(struct lanq_want){ "0.0.0.0", 0, 427, "10.0.1.1", 40000 });
	lanq_check_counts(&c, t, d, 1, SLP_C_REQUESTS, 1);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_out);
	check_start(&c, "slp_outgoing_no");
	r = lanq_send(t, G4, SENT4, rq.b, rq.n, d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, SLP_C_IGNORED, 1);
	r = lanq_send(t, G4, ARRIVED4, rq.b, rq.n, d);
	lanq_check(&c, r, AF_INET, &want4);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_in);
	check_start(&c, "slp_incoming_no");
	r = lanq_send(t, G4, ARRIVED4, rq.b, rq.n, d);
	lanq_check(&c, r, AF_INET, &none);
	lanq_check_counts(&c, t, d, 1, SLP_C_IGNORED, 1);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_not_requests(void)
{
	struct msg v1 = { { 1, 1, 0, 40 }, 40 };
	struct msg reg = slp_msg(2, 3, 0), rq = slp_msg(2, SLP_FN_SRVRQST, 0);
	struct msg v3 = slp_msg(3, SLP_FN_SRVRQST, 0), longer = slp_msg(2, SLP_FN_SRVRQST, 9);
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;
	const struct {
		const char *name;
		const char *conn;
		const char *link;
		const struct msg *m;
		unsigned int counter;
	} cases[] = {
		{ "v1", G4, SENT4, &v1, SLP_C_V1 },
		{ "srvreg", G4, SENT4, &reg, SLP_C_IGNORED },
		{ "version_3", G4, SENT4, &v3, SLP_C_MALFORMED },
		{ "length_past_datagram", G4, SENT4, &longer, SLP_C_MALFORMED },
		{ "unicast", "udp 10.0.1.1:40000 > 10.0.1.2:427", "in 0 out 2 net 10.0.1.0/24",
		  &rq, SLP_C_IGNORED },
		{ "another_group", "udp 10.0.1.1:40000 > 239.255.255.250:427", SENT4, &rq,
		  SLP_C_IGNORED },
		{ "v6_per_type_group", "udp [fd00:1::1]:40000 > [ff02::1:1001]:427",
		  "in 0 out 2 net fd00:1::/64 dst multicast", &rq, SLP_C_IGNORED },
		{ "expected", "udp 10.0.1.2:427 > 10.0.1.1:40000 expected", SENT4, &rq,
		  SLP_C_IGNORED },
	};

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		check_start(&c, "slp_nothing_%s", cases[i].name);
		r = lanq_send(t, cases[i].conn, cases[i].link, cases[i].m->b, cases[i].m->n, d);
		lanq_check(&c, r, AF_INET, &none);
		lanq_check_counts(&c, t, d, 1, cases[i].counter, 1);
		check_end(&c);
	}
	check_start(&c, "slp_nothing_reply_direction");
	lanq_send(t, G4, SENT4, rq.b, rq.n, d);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_REPLY, rq.b, rq.n) >= 0, "%s",
		       cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET, &none);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_hostile(void)
{
	static const char *const conns[] = { G4, "udp [fd00:1::1]:40000 > [ff02::116]:427",
					     "udp 10.0.1.1:40000 > 10.0.1.255:427",
					     "udp 10.0.1.2:427 > 10.0.1.1:40000 expected" };
	static const char *const links[] = { SENT4, ARRIVED4, NULL, "in 0 out 2 dst multicast",
					     "in 0 out 2 net 10.0.1.0/24 dst broadcast",
					     "in 0 out 2 net fd00:1::/64 dst multicast" };
	struct msg m[3] = { slp_msg(2, 1, 0), slp_msg(2, 6, 0), slp_msg(2, 9, 0) };
	const uint8_t *samples[3] = { m[0].b, m[1].b, m[2].b };
	size_t lens[3] = { m[0].n, m[1].n, m[2].n };
	static const char *const any[] = { "answers=any", NULL };
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);

	lanq_hostile(t, "hostile_link", conns, LANQ_ARRAY_LEN(conns), links,
		     LANQ_ARRAY_LEN(links), samples, lens, 3, 3000);
	cth_plugtest_free(t);
	t = lanq_new(&cth_plugin, any);
	lanq_hostile(t, "hostile_any", conns, LANQ_ARRAY_LEN(conns), links,
		     LANQ_ARRAY_LEN(links), samples, lens, 3, 3000);
	cth_plugtest_free(t);
}

int main(void)
{
	test_parse();
	test_desc();
	test_requests();
	test_keys();
	test_not_requests();
	test_hostile();
	return check_exit();
}
