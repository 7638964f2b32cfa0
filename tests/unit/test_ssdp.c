/* SPDX-License-Identifier: MIT */
/*
 * SSDP plugin unit test: the parsers (start line in any case and spacing,
 * the header block's bounds, header names in any case with any spacing,
 * duplicates, http:// URLs naming IPv4 and [IPv6] addresses, host names
 * and zones refused, CALLBACK lists), and the plugin's packet callback on
 * the daemon's host code (plugrun.h): the M-SEARCH to 239.255.255.250,
 * ff02::c and ff05::c (PERMANENT, helped, from anywhere or the link's
 * network; none known: nothing), seen twice (the kernel's loop-back
 * clone), under SNAT;
 * NOTIFY and unicast M-SEARCH (nothing); the answer's LOCATION (own
 * address only, or any with location_own = no; v6; malformed); GENA
 * SUBSCRIBE CALLBACK (own address, NAT rewrite, split across segments,
 * another host refused) and NOTIFY renewal; the counters; deterministic
 * fuzzing.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x55d9190055d91900ull
#include "plugtest.h"

#include "runtime/keys.h"
#include "../../plugins/ssdp/ssdp.h"
#include "../../plugins/ssdp/ssdp_parse.h"

/* The VM topology's addresses (tests/lib/topo.sh): the querier on the
 * client's link, a device on the same link and one on the server's. */
#define QUERIER4 "10.0.1.2"
#define DEVICE4 "10.0.1.3"
#define OTHER4 "10.0.2.2"
#define ROUTER_SV4 "10.0.2.1"
#define GROUP4 "239.255.255.250"
#define QUERIER6 "fd00:1::2"
#define DEVICE6 "fd00:1::3"
#define GROUP6 "ff02::c"
#define GROUP6_SITE "ff05::c"
#define QPORT 50000
#define NAT_PORT 40001
#define HTTP_PORT 49152
#define CB_PORT 49200

#define MSEARCH "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\n" \
		"MAN: \"ssdp:discover\"\r\nMX: 2\r\nST: ssdp:all\r\n\r\n"

/* ---------------------------------------------------------------- parsers */

struct parse_case {
	const char *name;
	const char *text;
	int ret;
	enum ssdp_kind kind;
	unsigned int status;
	bool complete;
};

static void test_parse(void)
{
	static const struct parse_case cases[] = {
		{ "msearch", MSEARCH, 0, SSDP_MSEARCH, 0, true },
		{ "msearch_lower_tabs", "m-search\t*  \tHTTP/1.1\nST: x\n\n", 0, SSDP_MSEARCH, 0, true },
		{ "msearch_datagram_end", "M-SEARCH * HTTP/1.1\r\nST: x\r\n", -EAGAIN, SSDP_MSEARCH,
		  0, false },
		{ "notify", "NOTIFY * HTTP/1.1\r\nNTS: ssdp:alive\r\n\r\n", 0, SSDP_NOTIFY, 0, true },
		{ "subscribe", "subscribe /ev HTTP/1.1\r\n\r\n", 0, SSDP_SUBSCRIBE, 0, true },
		{ "get", "GET /desc.xml HTTP/1.0\r\n\r\n", 0, SSDP_REQUEST, 0, true },
		{ "response", "HTTP/1.1 200 OK\r\nLOCATION: x\r\n\r\n", 0, SSDP_RESPONSE, 200, true },
		{ "response_no_reason", "http/1.1 200\r\n\r\n", 0, SSDP_RESPONSE, 200, true },
		{ "start_line_split", "M-SEARCH * HT", -EAGAIN, SSDP_MSEARCH, 0, false },
		{ "no_version", "M-SEARCH *\r\n\r\n", -EINVAL, 0, 0, false },
		{ "version_2", "M-SEARCH * HTTP/2.0\r\n\r\n", -EINVAL, 0, 0, false },
		{ "extra_word", "M-SEARCH * HTTP/1.1 x\r\n\r\n", -EINVAL, 0, 0, false },
		{ "msearchx", "M-SEARCHX * HTTP/1.1\r\n\r\n", 0, SSDP_REQUEST, 0, true },
		{ "control_byte", "M-SEARCH \001 HTTP/1.1\r\n\r\n", -EINVAL, 0, 0, false },
		{ "status_two_digits", "HTTP/1.1 20 OK\r\n\r\n", -EINVAL, 0, 0, false },
		{ "status_four_digits", "HTTP/1.1 2000\r\n\r\n", -EINVAL, 0, 0, false },
	};
	struct ssdp_msg msg;
	struct check c;
	char *big;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		const struct parse_case *pc = &cases[i];
		uint8_t *buf = dup_exact(pc->text, strlen(pc->text));
		int ret = ssdp_parse(buf, strlen(pc->text), &msg);

		check_start(&c, "parse_%s", pc->name);
		check_ret(&c, ret, pc->ret);
		if (ret == 0 || (ret == -EAGAIN && msg.head_len))
			check_that(&c, msg.kind == pc->kind && msg.status == pc->status,
				   "kind %s status %u", ssdp_kind_name(msg.kind), msg.status);
		check_that(&c, msg.complete == pc->complete, "complete %d", msg.complete);
		check_that(&c, ret != -EINVAL || msg.why, "no why");
		check_end(&c);
		free(buf);
	}

	/* bounds: headers past SSDP_HEAD_MAX, more than SSDP_LINES_MAX lines */
	big = malloc(SSDP_HEAD_MAX + 64);
	check_start(&c, "parse_bounds");
	snprintf(big, SSDP_HEAD_MAX + 64, "NOTIFY * HTTP/1.1\r\nX: ");
	memset(big + strlen(big), 'a', SSDP_HEAD_MAX);
	big[SSDP_HEAD_MAX + 20] = '\0';
	check_ret(&c, ssdp_parse((const uint8_t *)big, strlen(big), &msg), -EINVAL);
	check_ret(&c, ssdp_parse((const uint8_t *)big, SSDP_HEAD_MAX - 1, &msg), -EAGAIN);
	big[0] = '\0';
	strcat(big, "NOTIFY * HTTP/1.1\r\n");
	for (unsigned int i = 0; i <= SSDP_LINES_MAX; i++)
		strcat(big, "X: y\r\n");
	strcat(big, "\r\n");
	check_ret(&c, ssdp_parse((const uint8_t *)big, strlen(big), &msg), -EINVAL);
	check_end(&c);
	free(big);
}

static void test_header(void)
{
	static const struct {
		const char *name, *text, *value;
		int ret;
	} cases[] = {
		{ "upper", "HTTP/1.1 200 OK\r\nLOCATION: http://a/\r\n\r\n", "http://a/", 1 },
		{ "mixed_case_no_space", "HTTP/1.1 200 OK\r\nLocation:http://a/\r\n\r\n",
		  "http://a/", 1 },
		{ "spaces_around", "HTTP/1.1 200 OK\r\nlocation \t:  http://a/ \t\r\n\r\n",
		  "http://a/", 1 },
		{ "bare_lf", "HTTP/1.1 200 OK\nST: x\nLOCATION: v\n\n", "v", 1 },
		{ "last_line_no_lf", "HTTP/1.1 200 OK\r\nLOCATION: v", "v", 1 },
		{ "absent", "HTTP/1.1 200 OK\r\nST: x\r\n\r\n", NULL, 0 },
		{ "longer_name", "HTTP/1.1 200 OK\r\nLOCATIONS: v\r\n\r\n", NULL, 0 },
		{ "folded_not_a_header", "HTTP/1.1 200 OK\r\nX: a\r\n LOCATION: v\r\n\r\n", NULL,
		  0 },
		{ "in_start_line", "LOCATION: v\r\n\r\n", NULL, 0 },
		{ "after_empty_line", "HTTP/1.1 200 OK\r\n\r\nLOCATION: v\r\n", NULL, 0 },
		{ "twice", "HTTP/1.1 200 OK\r\nLOCATION: a\r\nlocation: b\r\n\r\n", NULL, -EINVAL },
	};
	struct check c;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t len = strlen(cases[i].text), voff = 0, vlen = 0;
		uint8_t *buf = dup_exact(cases[i].text, len);
		struct ssdp_msg msg;
		int ret;

		ssdp_parse(buf, len, &msg);
		check_start(&c, "header_%s", cases[i].name);
		ret = ssdp_header(buf, msg.head_len, "LOCATION", &voff, &vlen);
		check_ret(&c, ret, cases[i].ret);
		if (ret == 1)
			check_that(&c, vlen == strlen(cases[i].value) &&
				   memcmp(buf + voff, cases[i].value, vlen) == 0, "value '%.*s'",
				   (int)vlen, buf + voff);
		check_end(&c);
		free(buf);
	}
}

static void test_url(void)
{
	static const struct {
		const char *name, *text;
		int family, ret;
		const char *addr;
		uint16_t port;
		const char *host;
	} cases[] = {
		{ "v4_port", "http://10.0.1.3:49152/desc.xml", V4, 0, "10.0.1.3", 49152,
		  "10.0.1.3:49152" },
		{ "v4_default_port", "HTTP://10.0.1.3/desc.xml", V4, 0, "10.0.1.3", 80, "10.0.1.3" },
		{ "v4_bare", "http://10.0.1.3", V4, 0, "10.0.1.3", 80, "10.0.1.3" },
		{ "v4_in_brackets", "http://10.0.1.3:5000>", V4, 0, "10.0.1.3", 5000,
		  "10.0.1.3:5000" },
		{ "v6", "http://[fd00:1::3]:49152/d", V6, 0, "fd00:1::3", 49152,
		  "[fd00:1::3]:49152" },
		{ "v6_default_port", "http://[fe80::1]/", V6, 0, "fe80::1", 80, "[fe80::1]" },
		{ "name", "http://printer.local:80/", V4, -ENOENT, NULL, 0, NULL },
		{ "name_digits_first", "http://10.0.1.3.example/", V4, -ENOENT, NULL, 0, NULL },
		{ "v6_on_v4", "http://[fd00:1::3]/", V4, -ENOENT, NULL, 0, NULL },
		{ "v4_on_v6", "http://10.0.1.3/", V6, -ENOENT, NULL, 0, NULL },
		{ "v6_zone", "http://[fe80::1%25eth0]/", V6, -ENOENT, NULL, 0, NULL },
		{ "https", "https://10.0.1.3/", V4, -EINVAL, NULL, 0, NULL },
		{ "bad_quad", "http://10.0.1.300/", V4, -EINVAL, NULL, 0, NULL },
		{ "port_0", "http://10.0.1.3:0/", V4, -EINVAL, NULL, 0, NULL },
		{ "port_65536", "http://10.0.1.3:65536/", V4, -EINVAL, NULL, 0, NULL },
		{ "port_long", "http://10.0.1.3:0000080/", V4, -EINVAL, NULL, 0, NULL },
		{ "port_empty", "http://10.0.1.3:/", V4, -EINVAL, NULL, 0, NULL },
		{ "port_junk", "http://10.0.1.3:80x/", V4, -EINVAL, NULL, 0, NULL },
		{ "userinfo", "http://a@10.0.1.3/", V4, -ENOENT, NULL, 0, NULL },
		{ "v6_unclosed", "http://[fd00:1::3", V6, -EINVAL, NULL, 0, NULL },
	};
	struct ssdp_url u;
	struct check c;
	size_t uoff, ulen;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t len = strlen(cases[i].text);
		uint8_t *buf = dup_exact(cases[i].text, len);
		int ret = ssdp_url_parse(buf, len, cases[i].family, &u);

		check_start(&c, "url_%s", cases[i].name);
		check_ret(&c, ret, cases[i].ret);
		if (ret == 0) {
			check_that(&c, addr_is(cases[i].family, &u.addr, cases[i].addr) &&
				   u.port == cases[i].port, "port %u", u.port);
			check_that(&c, u.host_len == strlen(cases[i].host) &&
				   memcmp(buf + u.host_off, cases[i].host, u.host_len) == 0,
				   "host '%.*s'", (int)u.host_len, buf + u.host_off);
		}
		check_end(&c);
		free(buf);
	}

	check_start(&c, "callback_first");
	check_ret(&c, ssdp_callback_first((const uint8_t *)"<http://a/><http://b/>", 22, &uoff,
					  &ulen), 0);
	check_that(&c, uoff == 1 && ulen == 9, "url at %zu, %zu bytes", uoff, ulen);
	check_ret(&c, ssdp_callback_first((const uint8_t *)"http://a/", 9, &uoff, &ulen), -EINVAL);
	check_ret(&c, ssdp_callback_first((const uint8_t *)"<http://a/", 10, &uoff, &ulen),
		  -EINVAL);
	check_ret(&c, ssdp_callback_first((const uint8_t *)"<", 1, &uoff, &ulen), -EINVAL);
	check_end(&c);
}

/* ---------------------------------------------------------------- the plugin */

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	static const char *const names[SSDP_C_COUNT] = {
		"msearch", "no_link", "location", "location_refused", "callback",
		"callback_refused", "notify", "expect_errors", "malformed", "other",
	};
	struct ssdp_config cfg;
	char err[256] = "";
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, d->abi_version == CTH_ABI_VERSION && d->size == sizeof(*d), "ABI");
	check_that(&c, strcmp(d->name, "ssdp") == 0 &&
		   d->protocols == (CTH_PROTO_UDP | CTH_PROTO_TCP) &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "name, protocols, families");
	check_that(&c, d->priv_size == 0 && d->config_size == sizeof(struct ssdp_config),
		   "sizes");
	check_that(&c, d->n_classes == 2 && strcmp(d->classes[SSDP_CLASS].name, "ssdp") == 0 &&
		   d->classes[SSDP_CLASS].max == 8 && d->classes[SSDP_CLASS].timeout == 300 &&
		   strcmp(d->classes[SSDP_CLASS_HTTP].name, "http") == 0 &&
		   d->classes[SSDP_CLASS_HTTP].max == 8 &&
		   d->classes[SSDP_CLASS_HTTP].timeout == 300, "classes");
	check_that(&c, d->n_counters == SSDP_C_COUNT, "%u counters", d->n_counters);
	for (unsigned int i = 0; i < SSDP_C_COUNT && i < d->n_counters; i++)
		check_that(&c, strcmp(d->counters[i].name, names[i]) == 0 && d->counters[i].help,
			   "counter %u: %s", i, d->counters[i].name);
	check_end(&c);

	check_start(&c, "plugin_keys");
	check_that(&c, keys_decl_check(d, err, sizeof(err)) == 0, "declarations: %s", err);
	memset(&cfg, 0, sizeof(cfg));
	for (unsigned int i = 0; i < d->n_keys; i++)
		check_that(&c, keys_parse(&d->keys[i], d->keys[i].def, &cfg) == 0, "default of %s",
			   d->keys[i].name);
	check_that(&c, cfg.ports.n == 1 && cfg.ports.port[0] == 1900 && cfg.outgoing &&
		   cfg.incoming && cfg.location_own && cfg.answers == SSDP_ANSWERS_LINK,
		   "defaults");
	check_that(&c, plug_key("outgoing") && plug_key("outgoing")->flags == CTH_KEY_RULE_OUTPUT &&
		   plug_key("incoming") &&
		   plug_key("incoming")->flags == CTH_KEY_RULE_PREROUTING &&
		   plug_key("ports")->flags == CTH_KEY_RULE_PORTS, "rule flags");
	check_that(&c, keys_parse(keys_find(d, "answers"), "any", &cfg) == 0 &&
		   cfg.answers == SSDP_ANSWERS_ANY &&
		   keys_parse(keys_find(d, "answers"), "subnet", &cfg) == -EINVAL &&
		   keys_parse(keys_find(d, "location_own"), "no", &cfg) == 0 && !cfg.location_own,
		   "answers, location_own");
	check_end(&c);
}

/* The querier's M-SEARCH to group at QPORT -> 1900: the flow's first
 * packet, not confirmed. */
static void query_conn(struct conn *c, int family, const char *group)
{
	conn_init(c, family, UDP, family == V6 ? QUERIER6 : QUERIER4, QPORT, group, 1900);
	c->ct_status = 0;
}

static int run_text(struct plugrun *f, struct conn *c, enum cth_dir dir, enum cth_ctinfo ci,
		    const char *text)
{
	uint8_t *buf = dup_exact(text, strlen(text));
	int v;

	v = run_ctinfo(f, c, dir, ci, 0, buf, strlen(text));
	free(buf);
	return v;
}

/* Exactly one expectation: proto, class, from src (NULL: any) to dst:dport,
 * any source port, flags as want (NAT aside). */
static void check_one(struct check *ck, const struct plugrun *f, int family, uint8_t proto,
		      unsigned int class, const char *src, const char *dst, uint16_t dport,
		      unsigned int flags)
{
	const struct cth_expect *e = &f->exp[0];
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (!check_that(ck, f->n_exp == 1, "%u expectations", f->n_exp))
		return;
	check_that(ck, e->family == family && e->proto == proto && e->class == class &&
		   e->sport == 0 && f->exp_rc[0] == 0, "family %u proto %u class %u sport %u rc %d",
		   e->family, e->proto, e->class, e->sport, f->exp_rc[0]);
	check_that(ck, (e->flags & ~(unsigned)CTH_EXPECT_NAT) == flags, "flags %#x, want %#x",
		   e->flags, flags);
	check_that(ck, (src == NULL || addr_is(family, &e->src, src)) &&
		   addr_is(family, &e->dst, dst) && e->dport == dport,
		   "expected %s > %s:%u, want %s > %s:%u", addr_str(family, &e->src, a, sizeof(a)),
		   addr_str(family, &e->dst, b, sizeof(b)), e->dport, src ? src : "any", dst, dport);
}

#define PERM_HELPER (CTH_EXPECT_PERMANENT | CTH_EXPECT_HELPER)

static void test_query(struct plugrun *f)
{
	static const struct {
		const char *name, *group;
		int family;
	} groups[] = {
		{ "v4", GROUP4, V4 }, { "v6_link", GROUP6, V6 }, { "v6_site", GROUP6_SITE, V6 },
	};
	struct counts before;
	struct conn c;
	struct check ck;
	int v;

	for (size_t i = 0; i < ARRAY_LEN(groups); i++) {
		check_start(&ck, "query_any_%s", groups[i].name);
		query_conn(&c, groups[i].family, groups[i].group);
		conn_configure(&c, "answers", "any");
		counts_take(f, &before);
		v = run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_one(&ck, f, groups[i].family, UDP, SSDP_CLASS, NULL,
			  groups[i].family == V6 ? QUERIER6 : QUERIER4, QPORT,
			  PERM_HELPER | CTH_EXPECT_ANY_SRC);
		check_that(&ck, f->exp_how[0] == 0, "asked with %#x", f->exp_how[0]);
		check_clean(&ck, f);
		check_no_edit(&ck, f);
		check_counts(&ck, f, &before, "msearch=1");
		check_end(&ck);
		conn_free(&c);
	}

	/* answers = link (the default) on a host that shows no network for
	 * the query's link (plugrun's host has no link view): nothing
	 * opened rather than answers from anywhere */
	check_start(&ck, "query_link_unknown");
	query_conn(&c, V4, GROUP4);
	counts_take(f, &before);
	v = run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp", v,
		   f->n_exp);
	check_clean(&ck, f);
	check_counts(&ck, f, &before, "no_link=1");
	check_end(&ck);
	conn_free(&c);

	/* answers = link: from the network cth_link() names, masked */
	{
		static const struct {
			const char *name, *group, *net, *want;
			int family;
			uint32_t in;
			const char *key, *val, *counter;
		} links[] = {
			{ "link_v4_local", GROUP4, "10.0.1.0", "10.0.1.0", V4, 0, NULL, NULL,
			  "msearch=1" },
			{ "link_v4_arrived", GROUP4, "10.0.1.0", "10.0.1.0", V4, 2, NULL, NULL,
			  "msearch=1" },
			{ "link_v6", GROUP6, "fd00:1::", "fd00:1::", V6, 0, NULL, NULL, "msearch=1" },
			{ "link_outgoing_no", GROUP4, "10.0.1.0", NULL, V4, 0, "outgoing", "no",
			  "other=1" },
			{ "link_incoming_no", GROUP4, "10.0.1.0", NULL, V4, 2, "incoming", "no",
			  "other=1" },
			{ "link_incoming_no_local", GROUP4, "10.0.1.0", "10.0.1.0", V4, 0, "incoming",
			  "no", "msearch=1" },
		};

		for (size_t i = 0; i < ARRAY_LEN(links); i++) {
			check_start(&ck, "query_%s", links[i].name);
			query_conn(&c, links[i].family, links[i].group);
			if (links[i].key)
				conn_configure(&c, links[i].key, links[i].val);
			memset(&f->link, 0, sizeof(f->link));
			f->has_link = true;
			f->link.in_ifindex = links[i].in;
			f->link.out_ifindex = links[i].in ? 0 : 2;
			f->link.dst_kind = CTH_DST_MULTICAST;
			f->link.net_prefix = links[i].family == V6 ? 64 : 24;
			f->link.net = addr_of(links[i].family, links[i].net);
			counts_take(f, &before);
			v = run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
			f->has_link = false;
			check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
			if (links[i].want) {
				check_one(&ck, f, links[i].family, UDP, SSDP_CLASS, links[i].want,
					  links[i].family == V6 ? QUERIER6 : QUERIER4, QPORT,
					  PERM_HELPER | CTH_EXPECT_SRC_PREFIX);
				check_that(&ck, f->n_exp == 1 &&
					   f->exp[0].src_prefix == f->link.net_prefix,
					   "prefix %u", f->n_exp ? f->exp[0].src_prefix : 0);
			} else {
				check_that(&ck, f->n_exp == 0, "%u expectations", f->n_exp);
			}
			check_clean(&ck, f);
			check_counts(&ck, f, &before, links[i].counter);
			check_end(&ck);
			conn_free(&c);
		}
	}

	/* the kernel loops a clone of a locally sent multicast back through
	 * POST_ROUTING first: the same query twice, the same expectation */
	check_start(&ck, "query_twice_same");
	{
		struct cth_expect first;

		query_conn(&c, V4, GROUP4);
		conn_configure(&c, "answers", "any");
		run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
		first = f->exp[0];
		v = run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
		check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 1 &&
			   memcmp(&first.dst, &f->exp[0].dst, sizeof(first.dst)) == 0 &&
			   first.dport == f->exp[0].dport && first.flags == f->exp[0].flags,
			   "second copy differs");
		check_clean(&ck, f);
		conn_free(&c);
	}
	check_end(&ck);

	/* SNAT of the querier: the answers come to the NAT address and follow
	 * the master back (cth_expect_back) */
	check_start(&ck, "query_snat");
	query_conn(&c, V4, GROUP4);
	conn_configure(&c, "answers", "any");
	conn_snat(&c, ROUTER_SV4, NAT_PORT);
	v = run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
	check_one(&ck, f, V4, UDP, SSDP_CLASS, NULL, ROUTER_SV4, NAT_PORT,
		  PERM_HELPER | CTH_EXPECT_ANY_SRC);
	check_exp_nat(&ck, f, 0, R, QUERIER4, QPORT);
	check_clean(&ck, f);
	conn_free(&c);
	check_end(&ck);

	/* nothing for what is not an M-SEARCH to a group */
	{
		static const struct {
			const char *name, *dst, *text, *counter;
		} none[] = {
			{ "notify_alive", GROUP4, "NOTIFY * HTTP/1.1\r\nNTS: ssdp:alive\r\n\r\n",
			  "other=1" },
			{ "unicast_msearch", DEVICE4, MSEARCH, "other=1" },
			{ "other_group", "239.255.255.251", MSEARCH, "other=1" },
			{ "garbage", GROUP4, "\x01\x02garbage\r\n", "malformed=1" },
			{ "split_start_line", GROUP4, "M-SEARCH * HTTP/1.1", "malformed=1" },
			{ "response_to_group", GROUP4, "HTTP/1.1 200 OK\r\n\r\n", "other=1" },
		};

		for (size_t i = 0; i < ARRAY_LEN(none); i++) {
			check_start(&ck, "query_none_%s", none[i].name);
			query_conn(&c, V4, none[i].dst);
			conn_configure(&c, "answers", "any");
			counts_take(f, &before);
			v = run_text(f, &c, O, CTH_CT_NEW, none[i].text);
			check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp",
				   v, f->n_exp);
			check_clean(&ck, f);
			check_counts(&ck, f, &before, none[i].counter);
			check_end(&ck);
			conn_free(&c);
		}
	}

	/* a failure drops the query (the querier repeats it), unless the
	 * host's rule refused it */
	check_start(&ck, "query_expect_error");
	query_conn(&c, V4, GROUP4);
	conn_configure(&c, "answers", "any");
	f->expect_err = -ENOMEM;
	counts_take(f, &before);
	v = run_text(f, &c, O, CTH_CT_NEW, MSEARCH);
	f->expect_err = 0;
	check_that(&ck, v == CTH_VERDICT_DROP, "verdict %d", v);
	check_counts(&ck, f, &before, "expect_errors=1");
	conn_free(&c);
	check_end(&ck);
}

/* The device's answer: the expected connection DEVICE:1900 -> querier. */
static void answer_conn(struct conn *c, int family)
{
	if (family == V6)
		conn_init(c, V6, UDP, DEVICE6, 1900, QUERIER6, QPORT);
	else
		conn_init(c, V4, UDP, DEVICE4, 1900, QUERIER4, QPORT);
	c->ct_status = CTH_CT_EXPECTED;
}

static void test_answer(struct plugrun *f)
{
	static const struct {
		const char *name;
		int family;
		const char *text;
		const char *dst;   /* NULL: nothing expected */
		uint16_t port;
		const char *counter;
		bool any_location;
	} cases[] = {
		{ "own", V4, "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=1800\r\n"
		  "LOCATION: http://10.0.1.3:49152/desc.xml\r\nST: upnp:rootdevice\r\n\r\n",
		  DEVICE4, HTTP_PORT, "location=1", false },
		{ "own_lower_spaced", V4, "HTTP/1.1 200 OK\r\nlocation  :http://10.0.1.3/d\r\n\r\n",
		  DEVICE4, 80, "location=1", false },
		{ "own_v6", V6, "HTTP/1.1 200 OK\r\nLocation: http://[fd00:1::3]:49152/d\r\n\r\n",
		  DEVICE6, HTTP_PORT, "location=1", false },
		{ "third_host", V4, "HTTP/1.1 200 OK\r\nLOCATION: http://10.0.2.2:22/\r\n\r\n",
		  NULL, 0, "location_refused=1", false },
		{ "third_host_allowed", V4, "HTTP/1.1 200 OK\r\nLOCATION: http://10.0.2.2:8080/\r\n\r\n",
		  OTHER4, 8080, "location=1", true },
		{ "name", V4, "HTTP/1.1 200 OK\r\nLOCATION: http://nas.local:80/\r\n\r\n", NULL, 0,
		  "malformed=1", false },
		{ "two_locations", V4, "HTTP/1.1 200 OK\r\nLOCATION: http://10.0.1.3/\r\n"
		  "LOCATION: http://10.0.2.2:22/\r\n\r\n", NULL, 0, "malformed=1", false },
		{ "no_location", V4, "HTTP/1.1 200 OK\r\nST: x\r\n\r\n", NULL, 0, "other=1", false },
		{ "error_status", V4, "HTTP/1.1 404 Not Found\r\nLOCATION: http://10.0.1.3/\r\n\r\n",
		  NULL, 0, "other=1", false },
		{ "garbage", V4, "\x7f\x01", NULL, 0, "malformed=1", false },
	};
	struct counts before;
	struct conn c;
	struct check ck;
	int v;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		check_start(&ck, "answer_%s", cases[i].name);
		answer_conn(&c, cases[i].family);
		if (cases[i].any_location)
			conn_configure(&c, "location_own", "no");
		counts_take(f, &before);
		v = run_text(f, &c, O, CTH_CT_RELATED, cases[i].text);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		if (cases[i].dst)
			check_one(&ck, f, cases[i].family, TCP, SSDP_CLASS_HTTP,
				  cases[i].family == V6 ? QUERIER6 : QUERIER4, cases[i].dst,
				  cases[i].port, PERM_HELPER);
		else
			check_that(&ck, f->n_exp == 0, "%u expectations", f->n_exp);
		check_clean(&ck, f);
		check_no_edit(&ck, f);
		check_counts(&ck, f, &before, cases[i].counter);
		check_end(&ck);
		conn_free(&c);
	}

	/* the answer to an SNATed query (to the NAT address, mapped back):
	 * the LOCATION from the querier's own address to the device's, not
	 * following the master (which maps the source to the group) */
	check_start(&ck, "answer_to_snat_query");
	conn_init(&c, V4, UDP, OTHER4, 1900, QUERIER4, QPORT);
	conn_dnat(&c, ROUTER_SV4, NAT_PORT);
	c.ct_status = CTH_CT_EXPECTED;
	v = run_text(f, &c, O, CTH_CT_RELATED,
		     "HTTP/1.1 200 OK\r\nLOCATION: http://10.0.2.2:49152/d.xml\r\n\r\n");
	check_one(&ck, f, V4, TCP, SSDP_CLASS_HTTP, QUERIER4, OTHER4, HTTP_PORT, PERM_HELPER);
	check_that(&ck, f->n_exp == 1 && !(f->exp[0].flags & CTH_EXPECT_NAT) && !f->exp[0].fn,
		   "follows the master");
	check_clean(&ck, f);
	conn_free(&c);
	check_end(&ck);

	check_start(&ck, "answer_reply_direction");
	answer_conn(&c, V4);
	v = run_text(f, &c, R, CTH_CT_ESTABLISHED_REPLY, cases[0].text);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp", v,
		   f->n_exp);
	conn_free(&c);
	check_end(&ck);
}

#define SUBSCRIBE4 "SUBSCRIBE /evt HTTP/1.1\r\nHOST: 10.0.1.3:49152\r\n" \
		   "CALLBACK: <http://10.0.1.2:49200/cb>\r\nNT: upnp:event\r\nTIMEOUT: Second-1800\r\n\r\n"

/* The querier's HTTP connection to the device (LOCATION's expectation). */
static void http_conn(struct conn *c, int family)
{
	if (family == V6)
		conn_init(c, V6, TCP, QUERIER6, 40000, DEVICE6, HTTP_PORT);
	else
		conn_init(c, V4, TCP, QUERIER4, 40000, DEVICE4, HTTP_PORT);
	c->ct_status = CTH_CT_EXPECTED | CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY;
}

static void test_gena(struct plugrun *f)
{
	struct counts before;
	struct conn c;
	struct check ck;
	int v;

	check_start(&ck, "subscribe_own");
	http_conn(&c, V4);
	counts_take(f, &before);
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED, SUBSCRIBE4);
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_one(&ck, f, V4, TCP, SSDP_CLASS_HTTP, DEVICE4, QUERIER4, CB_PORT, CTH_EXPECT_HELPER);
	check_no_edit(&ck, f);
	check_clean(&ck, f);
	check_counts(&ck, f, &before, "callback=1");
	conn_free(&c);
	check_end(&ck);

	check_start(&ck, "subscribe_v6");
	http_conn(&c, V6);
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED,
		     "subscribe /evt HTTP/1.1\r\ncallback:<http://[fd00:1::2]:49200/cb>\r\n\r\n");
	check_one(&ck, f, V6, TCP, SSDP_CLASS_HTTP, DEVICE6, QUERIER6, CB_PORT, CTH_EXPECT_HELPER);
	conn_free(&c);
	check_end(&ck);

	check_start(&ck, "subscribe_other_host");
	http_conn(&c, V4);
	counts_take(f, &before);
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED,
		     "SUBSCRIBE /evt HTTP/1.1\r\nCALLBACK: <http://10.0.1.9:22/>\r\n\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp", v, f->n_exp);
	check_counts(&ck, f, &before, "callback_refused=1");
	conn_free(&c);
	check_end(&ck);

	check_start(&ck, "subscribe_renewal");
	http_conn(&c, V4);
	counts_take(f, &before);
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED,
		     "SUBSCRIBE /evt HTTP/1.1\r\nSID: uuid:1\r\nTIMEOUT: Second-1800\r\n\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp", v, f->n_exp);
	check_counts(&ck, f, &before, "other=1");
	conn_free(&c);
	check_end(&ck);

	/* SNAT of the subscriber: the CALLBACK's address becomes the NAT
	 * address, the port stays, the event connection follows the master */
	check_start(&ck, "subscribe_snat_rewrite");
	http_conn(&c, V4);
	conn_snat(&c, ROUTER_SV4, NAT_PORT);
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED, SUBSCRIBE4);
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_one(&ck, f, V4, TCP, SSDP_CLASS_HTTP, DEVICE4, ROUTER_SV4, CB_PORT, CTH_EXPECT_HELPER);
	check_exp_nat(&ck, f, 0, R, QUERIER4, CB_PORT);
	check_out(&ck, f, "SUBSCRIBE /evt HTTP/1.1\r\nHOST: 10.0.1.3:49152\r\n"
		  "CALLBACK: <http://10.0.2.1:49200/cb>\r\nNT: upnp:event\r\nTIMEOUT: Second-1800\r\n\r\n");
	check_clean(&ck, f);
	conn_free(&c);
	check_end(&ck);

	/* headers across segments: kept until the CALLBACK line is whole */
	check_start(&ck, "subscribe_split");
	http_conn(&c, V4);
	{
		static const char one[] = "SUBSCRIBE /evt HTTP/1.1\r\nHOST: 10.0.1.3:49152\r\nCALL";
		static const char two[] = "BACK: <http://10.0.1.2:49200/cb>\r\n\r\n";

		v = run_stream(f, &c, O, one, strlen(one));
		check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0 && f->keep_asked &&
			   f->keep_off == 0, "first segment: %d, %u exp, keep %d", v, f->n_exp,
			   f->keep_asked);
		v = run_stream(f, &c, O, two, strlen(two));
		check_one(&ck, f, V4, TCP, SSDP_CLASS_HTTP, DEVICE4, QUERIER4, CB_PORT, CTH_EXPECT_HELPER);
		check_that(&ck, !f->keep_asked, "kept again");
	}
	conn_free(&c);
	check_end(&ck);

	check_start(&ck, "http_not_expected");
	http_conn(&c, V4);
	c.ct_status = CTH_CT_CONFIRMED;
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED, SUBSCRIBE4);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "verdict %d, %u exp", v, f->n_exp);
	conn_free(&c);
	check_end(&ck);

	/* NOTIFY on the device's event connection: the next one expected,
	 * this connection as master */
	check_start(&ck, "notify_renews");
	conn_init(&c, V4, TCP, DEVICE4, 41000, QUERIER4, CB_PORT);
	c.ct_status = CTH_CT_EXPECTED | CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY;
	counts_take(f, &before);
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED,
		     "NOTIFY /cb HTTP/1.1\r\nNT: upnp:event\r\nSEQ: 0\r\n\r\n");
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_one(&ck, f, V4, TCP, SSDP_CLASS_HTTP, DEVICE4, QUERIER4, CB_PORT, CTH_EXPECT_HELPER);
	check_counts(&ck, f, &before, "notify=1");
	conn_free(&c);
	check_end(&ck);

	check_start(&ck, "notify_dnat_follows");
	conn_init(&c, V4, TCP, DEVICE4, 41000, QUERIER4, CB_PORT);
	conn_dnat(&c, ROUTER_SV4, CB_PORT);
	c.ct_status = CTH_CT_EXPECTED | CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY;
	v = run_text(f, &c, O, CTH_CT_ESTABLISHED, "NOTIFY /cb HTTP/1.1\r\n\r\n");
	check_one(&ck, f, V4, TCP, SSDP_CLASS_HTTP, DEVICE4, ROUTER_SV4, CB_PORT, CTH_EXPECT_HELPER);
	check_exp_nat(&ck, f, 0, O, QUERIER4, CB_PORT);
	conn_free(&c);
	check_end(&ck);
}

/* ---------------------------------------------------------------- fuzzing */

/* Mutated queries, answers and SUBSCRIBEs: always ACCEPT unless the
 * kernel side fails, at most one expectation, never a host rule broken,
 * and a LOCATION or CALLBACK expectation only to the sender's own address. */
static void test_fuzz(struct plugrun *f)
{
	static const struct mutate_how how = { "LOCATION\0CALLBACK\0http://\0:<>[]/ \r\n"
					       "0123456789.", 6, 7, 4 };
	static const char *const seeds[] = {
		MSEARCH,
		"HTTP/1.1 200 OK\r\nLOCATION: http://10.0.1.3:49152/desc.xml\r\n\r\n",
		SUBSCRIBE4,
		"NOTIFY /cb HTTP/1.1\r\n\r\n",
	};
	unsigned int expected = 0, rounds = 30000;
	uint8_t buf[1024];
	struct conn c;
	struct check ck;

	check_start(&ck, "fuzz_messages_%u", rounds);
	for (unsigned int i = 0; i < rounds && !ck.failed; i++) {
		unsigned int s = rng_below(ARRAY_LEN(seeds));
		size_t len = strlen(seeds[s]);
		uint8_t *p;
		int v;

		if (s == 0)
			query_conn(&c, V4, GROUP4);
		else if (s == 1)
			answer_conn(&c, V4);
		else
			http_conn(&c, V4);
		conn_configure(&c, "answers", "any");
		memcpy(buf, seeds[s], len);
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		if (len == 0) {
			conn_free(&c);
			continue;
		}
		p = dup_exact(buf, len);
		v = run_ctinfo(f, &c, O, s == 0 ? CTH_CT_NEW : CTH_CT_ESTABLISHED, 0, p, len);
		free(p);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "round %u: verdict %d", i, v);
		check_clean(&ck, f);
		check_that(&ck, f->n_exp <= 1, "round %u: %u expectations", i, f->n_exp);
		if (f->n_exp == 1 && s == 1)
			check_that(&ck, addr_is(V4, &f->exp[0].dst, DEVICE4), "round %u: LOCATION to "
				   "another host", i);
		if (f->n_exp == 1 && s == 2)
			check_that(&ck, addr_is(V4, &f->exp[0].dst, QUERIER4), "round %u: CALLBACK to "
				   "another host", i);
		expected += f->n_exp;
		conn_free(&c);
	}
	check_that(&ck, expected > rounds / 20 && expected < rounds, "%u of %u expected", expected,
		   rounds);
	check_end(&ck);
}

int main(void)
{
	struct plugrun *f;

	test_parse();
	test_header();
	test_url();

	f = plugrun_new();
	test_desc();
	test_query(f);
	test_answer(f);
	test_gena(f);
	test_fuzz(f);
	plugrun_free(f);

	return check_exit();
}
