/* SPDX-License-Identifier: MIT */
/*
 * DHCPv6 plugin unit test: the message type table, the declarations, and
 * the plugin through the plugin kit's harness with the link view
 * (lanq.h): each client message to ff02::1:2 with its master timeout,
 * sent by this host or arriving, from port 546 or another, answers =
 * link (fe80::/10, whatever the link view knows) and any, the directions
 * switched off, a message queued twice, the other types (never dropped),
 * short datagrams, other destinations, and hostile input.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define LANQ_NAME "dhcpv6"
#include "lanq.h"

#include "../../plugins/dhcpv6/dhcpv6.h"
#include "../../plugins/dhcpv6/dhcpv6_parse.h"

#define C6 "udp [fe80::2]:546 > [ff02::1:2]:547"
#define SENT "in 0 out 2 net fe80::/64 dst multicast"
#define ARRIVED "in 2 out 0 net fe80::/64 dst multicast"

static const struct lanq_want want = { "fe80::", 10, 0, "fe80::2", 546 };
static const struct lanq_want none = { NULL, 0, 0, NULL, 0 };

/* msg-type, transaction-id, an Elapsed Time option */
static const uint8_t *msg(uint8_t type)
{
	static uint8_t m[10];

	memcpy(m, (const uint8_t[]){ 0, 0xab, 0xcd, 0xef, 0, 8, 0, 2, 0, 0 }, sizeof(m));
	m[0] = type;
	return m;
}

static void test_types(void)
{
	static const struct {
		uint8_t type;
		const char *name;
		uint32_t timeout;
	} types[] = {
		{ 1, "SOLICIT", 120 }, { 2, "ADVERTISE", 0 }, { 3, "REQUEST", 30 },
		{ 4, "CONFIRM", 4 }, { 5, "RENEW", 600 }, { 6, "REBIND", 600 }, { 7, "REPLY", 0 },
		{ 8, "RELEASE", 1 }, { 9, "DECLINE", 1 }, { 10, "RECONFIGURE", 0 },
		{ 11, "INFORMATION-REQUEST", 120 }, { 12, "RELAY-FORW", 0 },
		{ 13, "RELAY-REPL", 0 }, { 14, "LEASEQUERY", 0 }, { 20, "DHCPV4-QUERY", 0 },
		{ 0, "type?", 0 }, { 22, "type?", 0 }, { 255, "type?", 0 },
	};
	uint8_t type = 99;
	struct check c;

	check_start(&c, "dhcpv6_type_table");
	for (size_t i = 0; i < LANQ_ARRAY_LEN(types); i++)
		check_that(&c, dhcpv6_client_timeout(types[i].type) == types[i].timeout &&
			   strcmp(dhcpv6_type_name(types[i].type), types[i].name) == 0,
			   "type %u: %s %u", types[i].type, dhcpv6_type_name(types[i].type),
			   dhcpv6_client_timeout(types[i].type));
	check_end(&c);

	check_start(&c, "dhcpv6_parse");
	check_that(&c, dhcpv6_parse(msg(1), 4, &type) == 0 && type == 1, "4 bytes: type %u", type);
	check_that(&c, dhcpv6_parse(msg(1), 3, &type) == -EINVAL && type == 0, "3 bytes");
	check_that(&c, dhcpv6_parse(msg(1), 0, &type) == -EINVAL, "empty");
	check_end(&c);
}

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	static const char *const keys[] = { "ports", "outgoing", "incoming", "answers" };
	static const char *const counters[] = { "messages", "other", "expect_errors",
						"malformed", "ignored" };
	struct check c;

	check_start(&c, "dhcpv6_desc");
	check_that(&c, strcmp(d->name, "dhcpv6") == 0 && d->protocols == CTH_PROTO_UDP &&
		   d->families == CTH_FAMILY_IPV6 && d->priv_size == 0, "name %s", d->name);
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "dhcpv6") == 0 &&
		   d->classes[0].max == 1 && d->classes[0].timeout == 300, "class");
	check_that(&c, d->n_keys == LANQ_ARRAY_LEN(keys), "%u keys", d->n_keys);
	for (unsigned int i = 0; i < d->n_keys && i < LANQ_ARRAY_LEN(keys); i++)
		check_that(&c, strcmp(d->keys[i].name, keys[i]) == 0 && d->keys[i].doc,
			   "key %u: %s", i, d->keys[i].name);
	if (d->n_keys == LANQ_ARRAY_LEN(keys))
		check_that(&c, strcmp(d->keys[0].def, "547") == 0 &&
			   d->keys[1].flags == CTH_KEY_RULE_OUTPUT &&
			   d->keys[2].flags == CTH_KEY_RULE_PREROUTING &&
			   strcmp(d->keys[3].def, "link") == 0, "key flags and defaults");
	check_that(&c, d->n_counters == DHCPV6_C_COUNT, "%u counters", d->n_counters);
	for (unsigned int i = 0; i < d->n_counters && i < LANQ_ARRAY_LEN(counters); i++)
		check_that(&c, strcmp(d->counters[i].name, counters[i]) == 0,
			   "counter %u: %s", i, d->counters[i].name);
	check_end(&c);
}

static void test_client_messages(void)
{
	static const struct {
		uint8_t type;
		const char *name;
		uint32_t timeout;
	} client[] = {
		{ 1, "solicit", 120 }, { 3, "request", 30 }, { 4, "confirm", 4 },
		{ 5, "renew", 600 }, { 6, "rebind", 600 }, { 8, "release", 1 },
		{ 9, "decline", 1 }, { 11, "information_request", 120 },
	};
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;

	for (size_t i = 0; i < LANQ_ARRAY_LEN(client); i++) {
		check_start(&c, "dhcpv6_%s", client[i].name);
		r = lanq_send(t, C6, SENT, msg(client[i].type), 10, d);
		lanq_check(&c, r, AF_INET6, &want);
		check_that(&c, r->has_timeout && r->timeout == client[i].timeout,
			   "master timeout %u, want %u", r->has_timeout ? r->timeout : 0,
			   client[i].timeout);
		lanq_check_counts(&c, t, d, 1, DHCPV6_C_MESSAGES, 1);
		check_end(&c);
	}

	/* answers go to 546 whatever port the client sent from */
	check_start(&c, "dhcpv6_client_port_not_546");
	r = lanq_send(t, "udp [fe80::2]:40000 > [ff02::1:2]:547", SENT, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &want);
	check_end(&c);

	check_start(&c, "dhcpv6_arrived");
	r = lanq_send(t, C6, ARRIVED, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &want);
	check_end(&c);

	/* the network is fe80::/10 whatever the link view knows */
	check_start(&c, "dhcpv6_no_link_network");
	r = lanq_send(t, C6, "in 0 out 2 dst multicast", msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &want);
	r = lanq_send(t, "udp [fd00:1::2]:546 > [ff02::1:2]:547",
		      "in 0 out 2 net fd00:1::/64 dst multicast", msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &(struct lanq_want){ "fe80::", 10, 0, "fd00:1::2", 546 });
	check_end(&c);

	check_start(&c, "dhcpv6_sent_twice_same");
	r = lanq_send(t, C6, SENT, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &want);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_ORIGINAL, msg(1), 10) >= 0, "%s",
		       cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET6, &want);
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

	t = lanq_new(&cth_plugin, any);
	check_start(&c, "dhcpv6_answers_any");
	r = lanq_send(t, C6, SENT, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &(struct lanq_want){ "::", 0, 0, "fe80::2", 546 });
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_out);
	check_start(&c, "dhcpv6_outgoing_no");
	r = lanq_send(t, C6, SENT, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &none);
	check_that(&c, !r->has_timeout, "timeout set");
	lanq_check_counts(&c, t, d, 1, DHCPV6_C_IGNORED, 1);
	r = lanq_send(t, C6, ARRIVED, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &want);
	check_end(&c);
	cth_plugtest_free(t);

	t = lanq_new(&cth_plugin, no_in);
	check_start(&c, "dhcpv6_incoming_no");
	r = lanq_send(t, C6, ARRIVED, msg(1), 10, d);
	lanq_check(&c, r, AF_INET6, &none);
	lanq_check_counts(&c, t, d, 1, DHCPV6_C_IGNORED, 1);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_others(void)
{
	static const struct {
		const char *name;
		const char *conn;
		uint8_t type;
		size_t len;
		unsigned int counter;
	} cases[] = {
		{ "advertise", C6, 2, 10, DHCPV6_C_OTHER },
		{ "reply", C6, 7, 10, DHCPV6_C_OTHER },
		{ "relay_forw", C6, 12, 10, DHCPV6_C_OTHER },
		/* conntrackd drops these */
		{ "leasequery", C6, 14, 10, DHCPV6_C_OTHER },
		{ "dhcpv4_query", C6, 20, 10, DHCPV6_C_OTHER },
		{ "type_255", C6, 255, 10, DHCPV6_C_OTHER },
		{ "type_0", C6, 0, 10, DHCPV6_C_OTHER },
		{ "three_bytes", C6, 1, 3, DHCPV6_C_MALFORMED },
		{ "one_byte", C6, 1, 1, DHCPV6_C_MALFORMED },
		{ "unicast_to_server", "udp [fe80::2]:546 > [fe80::1]:547", 1, 10,
		  DHCPV6_C_IGNORED },
		{ "all_dhcp_servers", "udp [fd00:1::2]:546 > [ff05::1:3]:547", 1, 10,
		  DHCPV6_C_IGNORED },
		{ "expected", "udp [fe80::1]:547 > [fe80::2]:546 expected", 7, 10,
		  DHCPV6_C_IGNORED },
	};
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);
	const struct cth_plugtest_result *r;
	uint64_t d[CTH_COUNTER_MAX];
	struct check c;

	for (size_t i = 0; i < LANQ_ARRAY_LEN(cases); i++) {
		check_start(&c, "dhcpv6_nothing_%s", cases[i].name);
		r = lanq_send(t, cases[i].conn, SENT, msg(cases[i].type), cases[i].len, d);
		lanq_check(&c, r, AF_INET6, &none);
		check_that(&c, !r->has_timeout, "timeout set");
		lanq_check_counts(&c, t, d, 1, cases[i].counter, 1);
		check_end(&c);
	}
	check_start(&c, "dhcpv6_nothing_reply_direction");
	lanq_send(t, C6, SENT, msg(1), 10, d);
	if (check_that(&c, cth_plugtest_packet(t, CTH_DIR_REPLY, msg(1), 10) >= 0, "%s",
		       cth_plugtest_error(t)))
		lanq_check(&c, cth_plugtest_result(t), AF_INET6, &none);
	check_end(&c);
	cth_plugtest_free(t);
}

static void test_hostile(void)
{
	static const char *const conns[] = { C6, "udp [fd00:1::2]:40000 > [ff02::1:2]:547",
					     "udp [fe80::2]:546 > [fe80::1]:547",
					     "udp [fe80::1]:547 > [fe80::2]:546 expected" };
	static const char *const links[] = { SENT, ARRIVED, NULL, "in 0 out 2" };
	uint8_t m[3][10];
	const uint8_t *samples[3] = { m[0], m[1], m[2] };
	static const size_t lens[3] = { 10, 10, 10 };
	static const char *const any[] = { "answers=any", NULL };
	struct cth_plugtest *t = lanq_new(&cth_plugin, NULL);

	memcpy(m[0], msg(1), 10);
	memcpy(m[1], msg(5), 10);
	memcpy(m[2], msg(11), 10);
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
	test_types();
	test_desc();
	test_client_messages();
	test_keys();
	test_others();
	test_hostile();
	return check_exit();
}
