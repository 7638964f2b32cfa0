/* SPDX-License-Identifier: MIT */
/*
 * Amanda plugin unit test: the reply parser (the header, the CONNECT
 * line, every way a line can be refused), and the plugin's packet
 * callback on the daemon's host code (plugrun.h): the three streams over
 * IPv4 and IPv6, the master's timeout, requests and other packets, under
 * SNAT and DNAT (follow the master; a port taken on the dialled address
 * moved and rewritten, also longer), expectation errors, the counters.
 * Deterministic fuzzing of the reply.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0xa3a4da10080ull
#include "plugtest.h"

#include "runtime/keys.h"
#include "../../plugins/amanda/amanda.h"
#include "../../plugins/amanda/amanda_parse.h"

/* The backup server (the UDP request's sender) and the client's amandad. */
#define SERVER4 "10.0.1.2"
#define CLIENT4 "10.0.2.2"
#define ROUTER_CL4 "10.0.1.1"
#define ROUTER_SV4 "10.0.2.1"
#define SERVER6 "fd00:1::2"
#define CLIENT6 "fd00:2::2"
#define ROUTER_CL6 "fd00:1::1"
#define SPORT 858

#define HDR "Amanda 3.5 REP HANDLE 000-40a1b2c3 SEQ 1733011200\n"
#define REQ "Amanda 3.5 REQ HANDLE 000-40a1b2c3 SEQ 1733011200\nSERVICE sendbackup\n"
#define REP3 HDR "CONNECT DATA 50001 MESG 50002 INDEX 50003\nOPTIONS features=9ffe00;\n"

/* ---------------------------------------------------------------- parser */

struct parse_case {
	const char *name;
	const char *text;
	int ret;
	uint16_t port[AMANDA_STREAMS];
	const char *why;
};

static const struct parse_case parse_cases[] = {
	{ "three", REP3, 1, { 50001, 50002, 50003 }, NULL },
	{ "any_order", HDR "CONNECT INDEX 3 DATA 1 MESG 2\n", 1, { 1, 2, 3 }, NULL },
	{ "data_only", HDR "CONNECT DATA 50001\n", 1, { 50001, 0, 0 }, NULL },
	{ "crlf", HDR "CONNECT DATA 7 MESG 8\r\n", 1, { 7, 8, 0 }, NULL },
	{ "no_newline_end", HDR "CONNECT DATA 65535", 1, { 65535, 0, 0 }, NULL },
	{ "tabs_and_spaces", HDR "CONNECT  DATA\t1  MESG 2 \n", 1, { 1, 2, 0 }, NULL },
	{ "other_stream_kept_out", HDR "CONNECT STATE 9 DATA 1\n", 1, { 1, 0, 0 }, NULL },
	{ "second_line", HDR "OPTIONS x;\nCONNECT MESG 4\n", 1, { 0, 4, 0 }, NULL },
	{ "first_connect_counts", HDR "CONNECT DATA 1\nCONNECT MESG 2\n", 1, { 1, 0, 0 }, NULL },
	{ "prep", "Amanda 2.6 PREP HANDLE x SEQ 1\nCONNECT DATA 5\n", 1, { 5, 0, 0 }, NULL },
	{ "request", REQ, 0, { 0 }, NULL },
	{ "request_with_connect", "Amanda 3.5 REQ HANDLE x SEQ 1\nCONNECT DATA 1\n", 0, { 0 },
	  NULL },
	{ "ack", "Amanda 3.5 ACK HANDLE x SEQ 1\n", 0, { 0 }, NULL },
	{ "reply_without_connect", HDR "OPTIONS features=1;\n", 0, { 0 }, NULL },
	{ "connect_inside_line", HDR "ERROR CONNECT DATA 5\n", 0, { 0 }, NULL },
	{ "connect_lower_case", HDR "connect DATA 5\n", 0, { 0 }, NULL },
	{ "connect_no_space", HDR "CONNECTDATA 5\n", 0, { 0 }, NULL },
	{ "header_only", "Amanda 3.5 REP", 0, { 0 }, NULL },
	{ "not_amanda", "CONNECT DATA 50001\n", -EINVAL, { 0 }, "no Amanda header" },
	{ "empty_version", "Amanda . REP HANDLE\nCONNECT DATA 1\n", -EINVAL, { 0 },
	  "no Amanda header" },
	{ "lower_amanda", "amanda 3.5 REP x\nCONNECT DATA 1\n", -EINVAL, { 0 },
	  "no Amanda header" },
	{ "port_wraps_in_kernel", HDR "CONNECT DATA 99999\n", -EINVAL, { 0 }, "above 65535" },
	{ "port_65536", HDR "CONNECT DATA 65536\n", -EINVAL, { 0 }, "above 65535" },
	{ "port_zero", HDR "CONNECT DATA 0\n", -EINVAL, { 0 }, "port 0" },
	{ "port_zeros", HDR "CONNECT DATA 00000\n", -EINVAL, { 0 }, "port 0" },
	{ "six_digits", HDR "CONNECT DATA 050001\n", -EINVAL, { 0 }, "more than 5 digits" },
	{ "many_digits", HDR "CONNECT DATA 0000000000000000000001\n", -EINVAL, { 0 },
	  "more than 5 digits" },
	{ "letter_in_port", HDR "CONNECT DATA 5o001\n", -EINVAL, { 0 }, "not a decimal" },
	{ "negative", HDR "CONNECT DATA -1\n", -EINVAL, { 0 }, "not a decimal" },
	{ "signed", HDR "CONNECT DATA +5\n", -EINVAL, { 0 }, "not a decimal" },
	{ "hex", HDR "CONNECT DATA 0x10\n", -EINVAL, { 0 }, "not a decimal" },
	{ "no_port", HDR "CONNECT DATA\n", -EINVAL, { 0 }, "without a port" },
	{ "no_port_blank", HDR "CONNECT DATA \n", -EINVAL, { 0 }, "without a port" },
	{ "twice", HDR "CONNECT DATA 1 DATA 2\n", -EINVAL, { 0 }, "named twice" },
	{ "lower_name", HDR "CONNECT data 1\n", -EINVAL, { 0 }, "upper-case" },
	{ "long_name", HDR "CONNECT ABCDEFGHIJKLMNOPQ 1\n", -EINVAL, { 0 }, "too long" },
	{ "no_stream", HDR "CONNECT \n", -EINVAL, { 0 }, "without a stream" },
	{ "only_other", HDR "CONNECT STATE 5\n", -EINVAL, { 0 }, "no DATA" },
	{ "nul_in_line", HDR "CONNECT DATA 1\0 MESG 2\n", -EINVAL, { 0 }, "not a decimal" },
	{ "garbage_after", HDR "CONNECT DATA 1 MESG\n", -EINVAL, { 0 }, "without a port" },
};

static void test_parse(void)
{
	for (size_t i = 0; i < ARRAY_LEN(parse_cases); i++) {
		const struct parse_case *pc = &parse_cases[i];
		/* sizeof would count the literal's NUL: nul_in_line has one inside */
		size_t len = strlen(pc->text);
		struct amanda_msg m;
		struct check c;
		uint8_t *buf;
		int ret;

		if (strcmp(pc->name, "nul_in_line") == 0)
			len = sizeof(HDR "CONNECT DATA 1\0 MESG 2\n") - 1;
		buf = dup_exact(pc->text, len);
		check_start(&c, "parse_%s", pc->name);
		ret = amanda_parse(buf, len, &m);
		check_ret(&c, ret, pc->ret);
		if (ret < 0)
			check_that(&c, m.why && strstr(m.why, pc->why), "why '%s', want '%s'",
				   m.why ? m.why : "(none)", pc->why);
		for (unsigned int s = 0; s < AMANDA_STREAMS; s++) {
			check_that(&c, m.stream[s].port == (ret == 1 ? pc->port[s] : 0),
				   "%s port %u, want %u", amanda_stream_name(s), m.stream[s].port,
				   pc->port[s]);
			if (ret == 1 && m.stream[s].port) {
				uint32_t v = 0;

				/* off/len are the digits in the datagram */
				check_that(&c, cth_parse_uint(buf + m.stream[s].off, m.stream[s].len,
							      65535, &v, NULL) == 0 &&
					   v == m.stream[s].port, "%s digits", amanda_stream_name(s));
			}
		}
		check_end(&c);
		free(buf);
	}
}

/* ---------------------------------------------------------------- runs */

struct run {
	struct plugrun *f;
	struct conn c;
	struct counts before;
	int v;
};

static void conn_new(struct run *r, int family)
{
	conn_free(&r->c);
	if (family == V6)
		conn_init(&r->c, V6, UDP, SERVER6, SPORT, CLIENT6, 10080);
	else
		conn_init(&r->c, V4, UDP, SERVER4, SPORT, CLIENT4, 10080);
	plugrun_answers_reset(r->f);
}

static int send_n(struct run *r, enum cth_dir dir, const void *text, size_t len)
{
	uint8_t *buf = dup_exact(text, len);

	counts_take(r->f, &r->before);
	r->v = run_ctinfo(r->f, &r->c, dir, established(dir), 0, buf, len);
	free(buf);
	return r->v;
}

static int tx(struct run *r, enum cth_dir dir, const char *text)
{
	return send_n(r, dir, text, strlen(text));
}

/* Expectation i: TCP, class amanda, from src any port to dst:dport. */
static void check_stream(struct check *ck, const struct plugrun *f, unsigned int i,
			 const char *src, const char *dst, uint16_t dport)
{
	const struct cth_expect *e = &f->exp[i];
	char b1[64], b2[64];

	if (!check_that(ck, i < f->n_exp, "no expectation %u (have %u)", i, f->n_exp))
		return;
	check_that(ck, e->class == AMANDA_CLASS && e->proto == TCP && e->sport == 0,
		   "exp %u: class %u proto %u sport %u", i, e->class, e->proto, e->sport);
	check_that(ck, addr_is(e->family, &e->src, src) && addr_is(e->family, &e->dst, dst) &&
		   e->dport == dport, "exp %u: %s > %s:%u, want %s > %s:%u", i,
		   addr_str(e->family, &e->src, b1, sizeof(b1)),
		   addr_str(e->family, &e->dst, b2, sizeof(b2)), e->dport, src, dst, dport);
	check_that(ck, !(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "exp %u: flags %#x", i,
		   e->flags);
	check_that(ck, f->exp_rc[i] == 0, "exp %u: host answered %d", i, f->exp_rc[i]);
}

static void check_run(struct check *ck, const struct run *r, int verdict, unsigned int n_exp,
		      const char *counts)
{
	check_that(ck, r->v == verdict, "verdict %d, want %d", r->v, verdict);
	check_that(ck, r->f->n_exp == n_exp, "%u expectations, want %u", r->f->n_exp, n_exp);
	check_clean(ck, r->f);
	check_counts(ck, r->f, &r->before, counts);
}

/* ---------------------------------------------------------------- descriptor */

static void test_desc(void)
{
	const struct cth_plugin_desc *d = &cth_plugin;
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, d->abi_version == CTH_ABI_VERSION && d->size == sizeof(*d), "ABI");
	check_that(&c, strcmp(d->name, "amanda") == 0, "name %s", d->name);
	check_that(&c, d->protocols == CTH_PROTO_UDP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "protocols, families");
	check_that(&c, d->priv_size == 0 && d->priv_version == 0, "no private state");
	/* the kernel's policy: three streams, 180 s */
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "amanda") == 0 &&
		   d->classes[0].max == 3 && d->classes[0].timeout == 180, "class");
	check_end(&c);

	check_start(&c, "plugin_keys_parsed");
	{
		struct amanda_config cfg;
		char err[256] = "";
		uint16_t rp[4];

		check_that(&c, keys_decl_check(d, err, sizeof(err)) == 0, "declarations: %s", err);
		memset(&cfg, 0, sizeof(cfg));
		for (unsigned int i = 0; i < d->n_keys; i++)
			check_that(&c, keys_parse(&d->keys[i], d->keys[i].def, &cfg) == 0,
				   "default of %s", d->keys[i].name);
		check_that(&c, cfg.ports.n == 1 && cfg.ports.port[0] == 10080 &&
			   cfg.master_timeout == 300, "defaults");
		check_that(&c, keys_rule_ports(d, &cfg, rp, 4) == 1 && rp[0] == 10080,
			   "--print-rules port");
		check_that(&c, keys_parse(keys_find(d, "master_timeout"), "0", &cfg) == -EINVAL &&
			   keys_parse(keys_find(d, "master_timeout"), "86401", &cfg) == -EINVAL,
			   "master_timeout range");
		check_that(&c, keys_parse(keys_find(d, "master_timeout"), "600", &cfg) == 0 &&
			   cfg.master_timeout == 600, "master_timeout = 600");
	}
	check_end(&c);

	check_start(&c, "plugin_counters");
	{
		static const char *const names[AMANDA_C_COUNT] = {
			"connects", "expectations", "expect_errors", "nat_rewrites", "malformed",
			"other",
		};

		check_that(&c, d->n_counters == AMANDA_C_COUNT, "%u counters", d->n_counters);
		for (unsigned int i = 0; i < AMANDA_C_COUNT && i < d->n_counters; i++)
			check_that(&c, strcmp(d->counters[i].name, names[i]) == 0 &&
				   d->counters[i].help, "counter %u", i);
	}
	check_end(&c);
}

/* ---------------------------------------------------------------- routed */

static void test_plain(struct run *r)
{
	struct check ck;

	for (int v6 = 0; v6 < 2; v6++) {
		const char *srv = v6 ? SERVER6 : SERVER4, *cli = v6 ? CLIENT6 : CLIENT4;

		check_start(&ck, "three_streams_%s", v6 ? "v6" : "v4");
		conn_new(r, v6 ? V6 : V4);
		tx(r, R, REP3);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
		check_stream(&ck, r->f, 0, srv, cli, 50001);
		check_stream(&ck, r->f, 1, srv, cli, 50002);
		check_stream(&ck, r->f, 2, srv, cli, 50003);
		check_that(&ck, r->f->exp_how[0] == 0 && r->f->exp[0].fn == NULL,
			   "routed: with the verdict, no NAT");
		check_that(&ck, r->f->has_timeout && r->f->timeout == 300, "master timeout %u",
			   r->f->timeout);
		check_no_edit(&ck, r->f);
		check_end(&ck);
	}

	check_start(&ck, "request_opens_nothing");
	conn_new(r, V4);
	tx(r, O, REQ);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "other=1");
	check_that(&ck, !r->f->has_timeout, "the request sets no timeout");
	check_end(&ck);

	/* a CONNECT line from the server's side opens nothing either */
	check_start(&ck, "connect_from_server");
	tx(r, O, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "other=1");
	check_end(&ck);

	check_start(&ck, "ack_refreshes_master");
	tx(r, R, "Amanda 3.5 ACK HANDLE 000-40a1b2c3 SEQ 1733011200\n");
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "other=1");
	check_that(&ck, r->f->has_timeout && r->f->timeout == 300, "timeout");
	check_end(&ck);

	check_start(&ck, "master_timeout_key");
	check_that(&ck, conn_configure(&r->c, "master_timeout", "42") == 0, "configure");
	tx(r, R, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
	check_that(&ck, r->f->has_timeout && r->f->timeout == 42, "timeout %u", r->f->timeout);
	check_end(&ck);

	check_start(&ck, "retransmitted_reply");
	conn_new(r, V4);
	tx(r, R, REP3);
	tx(r, R, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
	check_end(&ck);

	check_start(&ck, "expected_stream_passed");
	conn_new(r, V4);
	r->c.ct_status |= CTH_CT_EXPECTED;
	tx(r, R, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, "");
	check_end(&ck);
}

/* ---------------------------------------------------------------- hostile */

static void test_hostile(struct run *r)
{
	static const struct {
		const char *name, *text;
		const char *counts;
	} cases[] = {
		{ "kernel_wrap_99999", HDR "CONNECT DATA 99999 MESG 50002\n", "malformed=1" },
		{ "zero_stops_kernel", HDR "CONNECT DATA 0 MESG 50002\n", "malformed=1" },
		{ "connect_anywhere", HDR "OPTIONS CONNECT DATA 50001 \n", "other=1" },
		{ "not_amanda", "GET / HTTP/1.0\r\n\r\nCONNECT DATA 1\n", "malformed=1" },
		{ "binary", "\x00\xff\x80garbage", "malformed=1" },
		{ "xdata", HDR "CONNECT XDATA 50001\n", "malformed=1" },
		{ "trailing_junk", HDR "CONNECT DATA 50001x\n", "malformed=1" },
	};
	struct check ck;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		check_start(&ck, "hostile_%s", cases[i].name);
		conn_new(r, V4);
		send_n(r, R, cases[i].text, strlen(cases[i].text) ? strlen(cases[i].text) : 1);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 0, cases[i].counts);
		check_no_edit(&ck, r->f);
		check_end(&ck);
	}

	/* a full datagram of CONNECT pairs: bounded, nothing but the three */
	check_start(&ck, "hostile_many_pairs");
	{
		static char big[8192];
		size_t n = (size_t)snprintf(big, sizeof(big), HDR "CONNECT DATA 1 MESG 2 INDEX 3");

		while (n + 16 < sizeof(big))
			n += (size_t)snprintf(big + n, sizeof(big) - n, " OTHER%c 9", 'A' + (int)(n % 26));
		conn_new(r, V4);
		send_n(r, R, big, n);
		check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
	}
	check_end(&ck);
}

/* ---------------------------------------------------------------- NAT */

static void test_nat(struct run *r)
{
	struct check ck;

	/* the server masqueraded: nothing to rewrite, the streams follow
	 * the master (their source becomes 10.0.2.1) */
	check_start(&ck, "nat_snat_server");
	conn_new(r, V4);
	conn_snat(&r->c, ROUTER_SV4, SPORT);
	tx(r, R, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
	check_stream(&ck, r->f, 0, SERVER4, CLIENT4, 50001);
	check_exp_nat(&ck, r->f, 0, O, CLIENT4, 50001);
	check_exp_nat(&ck, r->f, 2, O, CLIENT4, 50003);
	check_that(&ck, r->f->exp_how[0] == CTH_EXPECT_SYNC, "NAT: SYNC");
	check_no_edit(&ck, r->f);
	check_end(&ck);

	/* amandad port-forwarded: the server dials 10.0.1.1 */
	check_start(&ck, "nat_dnat_client");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 10080);
	tx(r, R, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
	check_stream(&ck, r->f, 1, SERVER4, ROUTER_CL4, 50002);
	check_exp_nat(&ck, r->f, 1, O, CLIENT4, 50002);
	check_no_edit(&ck, r->f);
	check_end(&ck);

	/* beyond the kernel: IPv6 NAT */
	check_start(&ck, "nat_dnat_v6");
	conn_new(r, V6);
	conn_dnat(&r->c, ROUTER_CL6, 10080);
	tx(r, R, REP3);
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 3, "connects=1,expectations=3");
	check_stream(&ck, r->f, 2, SERVER6, ROUTER_CL6, 50003);
	check_exp_nat(&ck, r->f, 2, O, CLIENT6, 50003);
	check_end(&ck);

	/* MESG's port taken on the dialled address: the next free one,
	 * written into the reply, same length */
	check_start(&ck, "nat_busy_same_length");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 10080);
	r->f->busy[r->f->n_busy++] = 50002;
	r->f->busy[r->f->n_busy++] = 50003;
	tx(r, R, REP3);
	/* DATA 50001 made; MESG: 50002, 50003 taken, 50004; INDEX: 50003
	 * taken, 50004 (the stand-in knows only the listed ports) */
	check_that(&ck, r->v == CTH_VERDICT_ACCEPT, "verdict %d", r->v);
	check_clean(&ck, r->f);
	check_that(&ck, r->f->n_edit == 2, "%u edits", r->f->n_edit);
	check_that(&ck, r->f->n_edit >= 1 && r->f->edit[0].repl_len == 5 &&
		   memcmp(r->f->edit[0].repl, "50004", 5) == 0, "MESG rewritten to 50004");
	check_counts(&ck, r->f, &r->before, "connects=1,expectations=3,nat_rewrites=2");
	check_end(&ck);

	/* 9999 taken: 10000 is one digit longer; the UDP length grows */
	check_start(&ck, "nat_busy_longer");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 10080);
	r->f->busy[r->f->n_busy++] = 9999;
	tx(r, R, HDR "CONNECT DATA 9999\n");
	check_run(&ck, r, CTH_VERDICT_ACCEPT, 2, "connects=1,expectations=1,nat_rewrites=1");
	check_that(&ck, r->f->exp_rc[0] == -EBUSY && r->f->exp[1].dport == 10000,
		   "9999 busy, then %u", r->f->exp[1].dport);
	check_exp_nat(&ck, r->f, 1, O, CLIENT4, 9999);
	check_out(&ck, r->f, HDR "CONNECT DATA 10000\n");
	check_end(&ck);

	/* every port tried taken: the reply is dropped (the kernel too) */
	check_start(&ck, "nat_all_busy_drops");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 10080);
	r->f->busy_left = 1000;
	tx(r, R, REP3);
	check_that(&ck, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_clean(&ck, r->f);
	check_counts(&ck, r->f, &r->before, "connects=1,expect_errors=1");
	check_end(&ck);

	/* at the top of the port range no wrap to low ports */
	check_start(&ck, "nat_busy_65535");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 10080);
	r->f->busy[r->f->n_busy++] = 65535;
	tx(r, R, HDR "CONNECT DATA 65535\n");
	check_that(&ck, r->v == CTH_VERDICT_DROP && r->f->n_exp == 1, "verdict %d, %u exp", r->v,
		   r->f->n_exp);
	check_end(&ck);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(struct run *r)
{
	struct check ck;

	check_start(&ck, "expect_error_drops");
	conn_new(r, V4);
	r->f->expect_err = -ENOMEM;
	tx(r, R, REP3);
	/* with the verdict: the stand-in's error reaches no one, the
	 * plugin counts what the host took */
	check_that(&ck, r->v == CTH_VERDICT_ACCEPT || r->v == CTH_VERDICT_DROP, "verdict");
	check_clean(&ck, r->f);
	check_end(&ck);

	/* under NAT the kernel answers at once: a transient error drops
	 * the reply (its retransmission asks again), as the kernel does */
	check_start(&ck, "nat_expect_error_drops");
	conn_new(r, V4);
	conn_dnat(&r->c, ROUTER_CL4, 10080);
	r->f->expect_err = -ENOMEM;
	tx(r, R, REP3);
	check_that(&ck, r->v == CTH_VERDICT_DROP && r->f->n_exp == 1, "verdict %d, %u exp", r->v,
		   r->f->n_exp);
	check_clean(&ck, r->f);
	check_counts(&ck, r->f, &r->before, "connects=1,expect_errors=1");
	check_end(&ck);
}

/* ---------------------------------------------------------------- fuzz */

static void test_fuzz(struct run *r)
{
	static const struct mutate_how how = {
		"CONNECT DATA MESG INDEX Amanda REP 0123456789 \n\r\t", 5, 7, 3 };
	static const char *const seeds[] = {
		REP3, HDR "CONNECT DATA 9999\n", HDR "CONNECT INDEX 1 MESG 65535\r\n", REQ,
	};
	unsigned int rounds = 20000;
	struct check ck;
	uint8_t buf[512];

	check_start(&ck, "fuzz_replies_%u", rounds);
	for (unsigned int i = 0; i < rounds && !ck.failed; i++) {
		const char *s = seeds[rng_below(ARRAY_LEN(seeds))];
		size_t len = strlen(s);
		struct amanda_msg m;
		int ret;

		conn_new(r, rng_below(3) ? V4 : V6);
		if (rng_below(3) == 0)
			conn_dnat(&r->c, r->c.t[0].family == V6 ? ROUTER_CL6 : ROUTER_CL4, 10080);
		if (rng_below(4) == 0)
			r->f->busy[r->f->n_busy++] = (uint16_t)(50000 + rng_below(5));
		memcpy(buf, s, len);
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		if (len == 0)
			continue;
		ret = amanda_parse(buf, len, &m);
		send_n(r, R, buf, len);
		check_that(&ck, r->v == CTH_VERDICT_ACCEPT, "round %u: verdict %d", i, r->v);
		check_clean(&ck, r->f);
		check_that(&ck, ret == 1 ? r->f->n_exp >= m.n_streams : r->f->n_exp == 0,
			   "round %u: parse %d, %u streams, %u expectations", i, ret, m.n_streams,
			   r->f->n_exp);
		for (unsigned int e = 0; e < r->f->n_exp; e++)
			check_that(&ck, r->f->exp[e].proto == TCP && r->f->exp[e].dport != 0,
				   "round %u: exp %u", i, e);
	}
	check_end(&ck);
}

int main(void)
{
	struct run r = { .f = plugrun_new() };

	test_parse();
	test_desc();
	conn_new(&r, V4);
	test_plain(&r);
	test_hostile(&r);
	test_nat(&r);
	test_errors(&r);
	test_fuzz(&r);
	conn_free(&r.c);
	plugrun_free(r.f);
	return check_exit();
}
