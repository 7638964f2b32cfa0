/* SPDX-License-Identifier: MIT */
/*
 * IRC plugin unit test: the DCC line parser (every offer type, tags and
 * prefixes, quoted file names, the three address forms, strict numbers,
 * incomplete lines), then the plugin's packet callback on the daemon's
 * host code (plugrun.h): offers over IPv4 and IPv6, several in a segment
 * and after other commands, lines split across segments (cth_keep),
 * forged addresses, passive offers, the other family, the reply
 * direction, NAT (the rewrite, a taken port, IPv6, a split offer whose
 * address left already), kernel errors, hostile input, the counters.
 * Deterministic fuzzing.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x4952430000001a0bull
#include "plugtest.h"

#include "../../plugins/irc/irc.h"
#include "../../plugins/irc/irc_parse.h"

/* The VM topology's addresses (tests/lib/topo.sh): the client at CPORT
 * talks to the IRC server's 6667; under SNAT it shows as ROUTER_SV. */
#define CLIENT4 "10.0.1.2"
#define CLIENT4_DEC "167772418"    /* 10.0.1.2 as one number */
#define SERVER4 "10.0.2.2"
#define ROUTER_SV4 "10.0.2.1"
#define ROUTER_SV4_DEC "167772673" /* 10.0.2.1 */
#define OTHER4_DEC "3221226083"    /* 192.0.2.99 */
#define CLIENT6 "fd00:1::2"
#define SERVER6 "fd00:2::2"
#define ROUTER_SV6 "fd00:2::1"
#define CPORT 40000
#define NAT_PORT 61000

/* ---------------------------------------------------------------- parser */

struct parse_case {
	const char *name;
	const char *line;
	bool complete;
	int ret;             /* irc_parse_line()'s */
	const char *type;
	int family;
	const char *addr;
	uint16_t port;
	const char *addr_text; /* what the address span holds */
};

static const struct parse_case parse_cases[] = {
	{ "parse_send", "PRIVMSG bob :\1DCC SEND file.txt " CLIENT4_DEC " 5000 1234\1", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_send_crlf_seen_as_line", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 5000\1\r", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_chat", "PRIVMSG bob :\1DCC CHAT chat " CLIENT4_DEC " 6000\1", true,
	  IRC_PARSE_DCC, "CHAT", V4, CLIENT4, 6000, CLIENT4_DEC },
	{ "parse_tsend", "PRIVMSG bob :\1DCC TSEND f " CLIENT4_DEC " 1\1", true,
	  IRC_PARSE_DCC, "TSEND", V4, CLIENT4, 1, CLIENT4_DEC },
	{ "parse_schat", "PRIVMSG bob :\1DCC SCHAT chat " CLIENT4_DEC " 65535\1", true,
	  IRC_PARSE_DCC, "SCHAT", V4, CLIENT4, 65535, CLIENT4_DEC },
	{ "parse_move", "PRIVMSG bob :\1DCC MOVE f " CLIENT4_DEC " 7000\1", true,
	  IRC_PARSE_DCC, "MOVE", V4, CLIENT4, 7000, CLIENT4_DEC },
	{ "parse_ssend", "PRIVMSG bob :\1DCC SSEND f " CLIENT4_DEC " 7001 9\1", true,
	  IRC_PARSE_DCC, "SSEND", V4, CLIENT4, 7001, CLIENT4_DEC },
	{ "parse_lowercase", "privmsg bob :\1dcc send f " CLIENT4_DEC " 5000\1", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_notice", "NOTICE bob :\1DCC SEND f " CLIENT4_DEC " 5000\1", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_prefix_tags", "@time=2026-01-01T00:00:00Z :me!u@h PRIVMSG #c :\1DCC SEND f "
	  CLIENT4_DEC " 5000\1", true, IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_quoted_name", "PRIVMSG bob :\1DCC SEND \"my file 1.txt\" " CLIENT4_DEC " 5000 77\1",
	  true, IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_no_ctcp_end", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 5000", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_extra_spaces", "  PRIVMSG  bob  :\1DCC  SEND  f  " CLIENT4_DEC "  5000  1\1", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4_DEC },
	{ "parse_dotted", "PRIVMSG bob :\1DCC SEND f " CLIENT4 " 5000\1", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 5000, CLIENT4 },
	{ "parse_ipv6", "PRIVMSG bob :\1DCC SEND f " CLIENT6 " 5000 10\1", true,
	  IRC_PARSE_DCC, "SEND", V6, CLIENT6, 5000, CLIENT6 },
	{ "parse_passive", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 0 10 77\1", true,
	  IRC_PARSE_DCC, "SEND", V4, CLIENT4, 0, CLIENT4_DEC },
	{ "parse_max_addr", "PRIVMSG bob :\1DCC SEND f 4294967295 5000\1", true,
	  IRC_PARSE_DCC, "SEND", V4, "255.255.255.255", 5000, "4294967295" },
	/* strict numbers: the kernel would take the low bits */
	{ "parse_addr_33bit", "PRIVMSG bob :\1DCC SEND f 4294967296 5000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_addr_wraps_to_client", "PRIVMSG bob :\1DCC SEND f 4462739714 5000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_port_70000", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 70000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_port_sign", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " +5000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_port_junk", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 50x0\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_addr_junk", "PRIVMSG bob :\1DCC SEND f 1677x2418 5000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_bad_v6", "PRIVMSG bob :\1DCC SEND f fd00:::1:2::3 5000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_bad_dotted", "PRIVMSG bob :\1DCC SEND f 10.0.1.256 5000\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_no_port", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC "\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_no_addr", "PRIVMSG bob :\1DCC SEND f\1", true, -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_unterminated_quote", "PRIVMSG bob :\1DCC SEND \"f x " CLIENT4_DEC " 5000\1", true,
	  -EINVAL, NULL, 0, NULL, 0, NULL },
	{ "parse_text_after_quote", "PRIVMSG bob :\1DCC SEND \"f\"x " CLIENT4_DEC " 5000\1", true,
	  -EINVAL, NULL, 0, NULL, 0, NULL },
	/* lines that are no offer */
	{ "parse_resume", "PRIVMSG bob :\1DCC RESUME f 5000 100\1", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_accept", "PRIVMSG bob :\1DCC ACCEPT f 5000 100\1", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_plain_text", "PRIVMSG bob :DCC SEND f " CLIENT4_DEC " 5000", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_action", "PRIVMSG bob :\1ACTION waves\1", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_join", "JOIN #c", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_privmsgx", "PRIVMSGX bob :\1DCC SEND f " CLIENT4_DEC " 5000\1", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_no_colon", "PRIVMSG bob \1DCC SEND f " CLIENT4_DEC " 5000\1", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_empty", "", true, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	/* an incomplete line: wait, unless it cannot become an offer */
	{ "parse_more_cmd", "PRIV", false, IRC_PARSE_MORE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_tags", "@a=b", false, IRC_PARSE_MORE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_port", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 50", false, IRC_PARSE_MORE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_quote", "PRIVMSG bob :\1DCC SEND \"a b", false, IRC_PARSE_MORE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_whole", "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 5000\1", false,
	  IRC_PARSE_MORE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_empty", "", false, IRC_PARSE_MORE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_not_dcc", "PRIVMSG bob :hello th", false, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_ping", "PING :serv", false, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
	{ "parse_more_resume", "PRIVMSG bob :\1DCC RESUME f", false, IRC_PARSE_NONE, NULL, 0, NULL, 0, NULL },
};

static void test_parse(void)
{
	for (size_t i = 0; i < ARRAY_LEN(parse_cases); i++) {
		const struct parse_case *pc = &parse_cases[i];
		size_t len = strlen(pc->line);
		/* at an offset, after another line, and copied exactly */
		uint8_t *buf = malloc(len + 5);
		struct irc_dcc d;
		struct check c;
		int ret;

		memcpy(buf, "JOIN\n", 5);
		memcpy(buf + 5, pc->line, len);
		ret = irc_parse_line(buf, 5, len, pc->complete, &d);
		check_start(&c, "%s", pc->name);
		check_ret(&c, ret, pc->ret);
		if (ret == -EINVAL)
			check_that(&c, d.why && *d.why, "no reason");
		if (ret == IRC_PARSE_DCC && pc->ret == IRC_PARSE_DCC) {
			check_that(&c, strcmp(d.type, pc->type) == 0, "type %s", d.type);
			check_that(&c, d.family == pc->family && addr_is(d.family, &d.addr, pc->addr),
				   "address");
			check_that(&c, d.port == pc->port, "port %u", d.port);
			check_that(&c, d.addr_text.len == strlen(pc->addr_text) &&
				   memcmp(buf + d.addr_text.off, pc->addr_text, d.addr_text.len) == 0,
				   "address text at %zu len %zu", d.addr_text.off, d.addr_text.len);
			check_that(&c, d.port_text.off > d.addr_text.off + d.addr_text.len &&
				   d.port_text.off + d.port_text.len <= 5 + len, "port text");
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

static void conn4(struct run *r)
{
	conn_free(&r->c);
	conn_init(&r->c, V4, TCP, CLIENT4, CPORT, SERVER4, 6667);
	plugrun_answers_reset(r->f);
}

static void conn6(struct run *r)
{
	conn_free(&r->c);
	conn_init(&r->c, V6, TCP, CLIENT6, CPORT, SERVER6, 6667);
	plugrun_answers_reset(r->f);
}

static int send_n(struct run *r, enum cth_dir dir, const void *text, size_t len)
{
	uint8_t *buf = dup_exact(text, len);

	counts_take(r->f, &r->before);
	r->v = run_stream(r->f, &r->c, dir, buf, len);
	free(buf);
	return r->v;
}

static int tx(struct run *r, enum cth_dir dir, const char *text)
{
	return send_n(r, dir, text, strlen(text));
}

/* Expectation i: TCP, class irc, from anywhere to dst:dport. */
static void check_dcc(struct check *ck, const struct plugrun *f, unsigned int i, const char *dst,
		      uint16_t dport)
{
	const struct cth_expect *e = &f->exp[i];
	char b[64];

	if (!check_that(ck, i < f->n_exp, "no expectation %u (have %u)", i, f->n_exp))
		return;
	check_that(ck, e->class == IRC_CLASS && e->proto == TCP && e->sport == 0,
		   "exp %u: class %u proto %u sport %u", i, e->class, e->proto, e->sport);
	check_that(ck, e->flags & CTH_EXPECT_ANY_SRC, "exp %u: flags %#x (not from anywhere)", i,
		   e->flags);
	check_that(ck, addr_is(e->family, &e->dst, dst) && e->dport == dport,
		   "exp %u: dst %s port %u, want %s port %u", i,
		   addr_str(e->family, &e->dst, b, sizeof(b)), e->dport, dst, dport);
	check_that(ck, !(e->flags & CTH_EXPECT_HELPER), "exp %u: helped", i);
}

static void check_run(struct check *ck, const struct run *r, int verdict, unsigned int n_exp)
{
	check_that(ck, r->v == verdict, "verdict %d, want %d", r->v, verdict);
	check_that(ck, r->f->n_exp == n_exp, "%u expectations, want %u", r->f->n_exp, n_exp);
	check_clean(ck, r->f);
}

static void check_cnt(struct check *ck, const struct run *r, const char *want)
{
	check_counts(ck, r->f, &r->before, want);
}

static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...)
{
	static char ring[8][4096];
	static unsigned int i;
	char *o = ring[i++ % 8];
	va_list ap;

	va_start(ap, f);
	vsnprintf(o, sizeof(ring[0]), f, ap);
	va_end(ap);
	return o;
}

static const char *send_line(const char *addr, unsigned int port)
{
	return fmt("PRIVMSG bob :\1DCC SEND file.bin %s %u 1024\1\r\n", addr, port);
}

/* ---------------------------------------------------------------- descriptor */

static void test_desc(struct run *r)
{
	static const char *const names[IRC_C_COUNT] = {
		"dcc", "opened", "forged", "passive", "other_family", "malformed", "rewritten",
		"untranslated", "expect_errors",
	};
	const struct cth_plugin_desc *d = &cth_plugin;
	char b[64];
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, d->abi_version == CTH_ABI_VERSION && d->size == sizeof(*d), "ABI %u",
		   d->abi_version);
	check_that(&c, strcmp(d->name, "irc") == 0, "name %s", d->name);
	check_that(&c, d->protocols == CTH_PROTO_TCP &&
		   d->families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "protocols %#x families %#x",
		   d->protocols, d->families);
	check_that(&c, d->n_classes == 1 && strcmp(d->classes[0].name, "irc") == 0 &&
		   d->classes[0].max == 8 && d->classes[0].timeout == 300, "class %s %u %u",
		   d->classes[0].name, d->classes[0].max, d->classes[0].timeout);
	check_that(&c, d->priv_size == 0, "priv %zu", d->priv_size);
	check_that(&c, d->n_counters == IRC_C_COUNT, "%u counters", d->n_counters);
	for (unsigned int i = 0; i < IRC_C_COUNT && i < d->n_counters; i++)
		check_that(&c, strcmp(d->counters[i].name, names[i]) == 0 && d->counters[i].help &&
			   *d->counters[i].help, "counter %u: %s", i, d->counters[i].name);
	check_end(&c);

	conn4(r);
	check_start(&c, "keys_ports");
	check_that(&c, strcmp(conn_ports_str(&r->c, "ports", b, sizeof(b)), "6667") == 0,
		   "ports %s", b);
	check_that(&c, conn_configure(&r->c, "ports", "6667 6697 7000") == 0 &&
		   strcmp(conn_ports_str(&r->c, "ports", b, sizeof(b)), "6667,6697,7000") == 0,
		   "ports %s", b);
	check_that(&c, conn_configure(&r->c, "max_dcc", "8") == -ENOENT, "unknown key");
	check_end(&c);
}

/* ---------------------------------------------------------------- offers */

static void test_offers(struct run *r)
{
	static const char *const kinds[] = {
		"SEND file.bin", "CHAT chat", "TSEND file.bin", "SCHAT chat", "MOVE file.bin",
		"SSEND file.bin",
	};
	struct check c;

	for (size_t i = 0; i < ARRAY_LEN(kinds); i++) {
		conn4(r);
		tx(r, O, "NICK alice\r\nUSER a 0 * :A\r\n");
		tx(r, O, fmt("PRIVMSG bob :\1DCC %s " CLIENT4_DEC " %zu\1\r\n", kinds[i], 5000 + i));
		check_start(&c, "offer_%.5s", kinds[i]);
		check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
		check_dcc(&c, r->f, 0, CLIENT4, (uint16_t)(5000 + i));
		check_that(&c, !(r->f->exp[0].flags & CTH_EXPECT_NAT), "NAT without NAT");
		check_no_edit(&c, r->f);
		check_cnt(&c, r, "dcc=1,opened=1");
		check_end(&c);
	}

	conn4(r);
	tx(r, O, "PRIVMSG bob :\1DCC SEND \"holiday photos.zip\" " CLIENT4_DEC " 5010 99\1\r\n");
	check_start(&c, "offer_quoted_file_name");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT4, 5010);
	check_end(&c);

	conn4(r);
	tx(r, O, "NOTICE bob :\1DCC CHAT chat " CLIENT4_DEC " 5011\1\r\n");
	check_start(&c, "offer_in_notice");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT4, 5011);
	check_end(&c);

	conn4(r);
	tx(r, O, send_line(CLIENT4, 5012));
	check_start(&c, "offer_dotted_quad");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT4, 5012);
	check_end(&c);

	/* the kernel reads only a segment that starts with PRIVMSG, and only
	 * its first offer */
	conn4(r);
	tx(r, O, fmt("PING :x\r\n%s%sJOIN #a\r\n%s", send_line(CLIENT4_DEC, 5020),
		     send_line(CLIENT4_DEC, 5021),
		     "PRIVMSG carol :\1DCC CHAT chat " CLIENT4_DEC " 5022\1\n"));
	check_start(&c, "offers_several_in_a_segment");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 3);
	check_dcc(&c, r->f, 0, CLIENT4, 5020);
	check_dcc(&c, r->f, 1, CLIENT4, 5021);
	check_dcc(&c, r->f, 2, CLIENT4, 5022);
	check_that(&c, !r->f->keep_asked, "kept");
	check_cnt(&c, r, "dcc=3,opened=3");
	check_end(&c);

	conn4(r);
	tx(r, O, "PRIVMSG bob :\1DCC RESUME file.bin 5000 100\1\r\n"
		 "PRIVMSG bob :\1DCC ACCEPT file.bin 5000 100\1\r\n"
		 "PRIVMSG bob :\1ACTION sends a file\1\r\nPRIVMSG bob :DCC SEND f "
		 CLIENT4_DEC " 5000\r\n");
	check_start(&c, "no_offer_resume_accept_text");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "");
	check_end(&c);

	/* the server relays somebody else's offer to the client: the client
	 * connects out, nothing to open */
	conn4(r);
	tx(r, R, ":bob!b@h PRIVMSG alice :\1DCC SEND f 3221226083 5000 1\1\r\n");
	check_start(&c, "reply_direction_ignored");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "");
	check_end(&c);

	conn4(r);
	r->c.ct_status |= CTH_CT_EXPECTED;
	tx(r, O, send_line(CLIENT4_DEC, 5000));
	check_start(&c, "expected_connection_ignored");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_end(&c);
}

/* ---------------------------------------------------------------- refused */

static void test_refused(struct run *r)
{
	struct check c;

	conn4(r);
	tx(r, O, send_line(OTHER4_DEC, 5000));
	check_start(&c, "forged_third_host");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "dcc=1,forged=1");
	check_end(&c);

	conn4(r);
	tx(r, O, send_line("167772674", 5000)); /* 10.0.2.2: the server */
	check_start(&c, "forged_server_address");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "dcc=1,forged=1");
	check_end(&c);

	/* 2^32 + 10.0.1.2: the kernel's truncation made this the client */
	conn4(r);
	tx(r, O, send_line("4462739714", 5000));
	check_start(&c, "wrapped_address_malformed");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "malformed=1");
	check_end(&c);

	conn4(r);
	tx(r, O, send_line(CLIENT4_DEC, 70000));
	check_start(&c, "wrapped_port_malformed");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "malformed=1");
	check_end(&c);

	conn4(r);
	tx(r, O, "PRIVMSG bob :\1DCC SEND file.bin " CLIENT4_DEC " 0 1024 17\1\r\n");
	check_start(&c, "passive_port_0");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "dcc=1,passive=1");
	check_end(&c);

	conn4(r);
	tx(r, O, send_line(CLIENT6, 5000));
	check_start(&c, "v6_address_over_v4");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "dcc=1,other_family=1");
	check_end(&c);

	/* a forged offer among good ones: only the good ones open */
	conn4(r);
	tx(r, O, fmt("%s%s%s", send_line(CLIENT4_DEC, 5001), send_line(OTHER4_DEC, 5002),
		     send_line(CLIENT4_DEC, 5003)));
	check_start(&c, "forged_among_good");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_dcc(&c, r->f, 0, CLIENT4, 5001);
	check_dcc(&c, r->f, 1, CLIENT4, 5003);
	check_cnt(&c, r, "dcc=3,opened=2,forged=1");
	check_end(&c);
}

/* ---------------------------------------------------------------- segments */

static void test_split(struct run *r)
{
	const char *line = send_line(CLIENT4_DEC, 5100);
	size_t n = strlen(line);
	struct check c;

	/* every cut of the line: the offer opens once, when its end arrives */
	check_start(&c, "split_every_cut");
	for (size_t cut = 1; cut < n; cut++) {
		unsigned int total = 0;

		conn4(r);
		send_n(r, O, line, cut);
		total += r->f->n_exp;
		check_that(&c, r->v == CTH_VERDICT_ACCEPT && r->f->n_bad == 0, "cut %zu first", cut);
		check_that(&c, r->f->keep_asked && r->f->keep_off == 0, "cut %zu: not kept", cut);
		send_n(r, O, line + cut, n - cut);
		total += r->f->n_exp;
		check_that(&c, r->v == CTH_VERDICT_ACCEPT && r->f->n_bad == 0, "cut %zu second", cut);
		check_that(&c, total == 1, "cut %zu: %u expectations", cut, total);
		if (r->f->n_exp == 1)
			check_dcc(&c, r->f, 0, CLIENT4, 5100);
	}
	check_end(&c);

	/* three segments, the keep carried on */
	conn4(r);
	tx(r, O, "JOIN #x\r\nPRIVMSG bob :\1DCC SE");
	check_start(&c, "split_three_segments");
	check_that(&c, r->f->keep_asked && r->f->keep_off == 9, "keep at %zu", r->f->keep_off);
	tx(r, O, "ND file.bin " CLIENT4_DEC);
	check_that(&c, r->f->keep_asked && r->f->keep_off == 0 && r->f->n_exp == 0, "second");
	tx(r, O, " 5101 1\1\r\nPING :x\r\n");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT4, 5101);
	check_that(&c, !r->f->keep_asked, "kept after a complete segment");
	check_end(&c);

	/* a chat line cut: nothing kept */
	conn4(r);
	tx(r, O, "PRIVMSG #c :hello every");
	check_start(&c, "split_text_not_kept");
	check_that(&c, !r->f->keep_asked && r->f->n_exp == 0, "kept text");
	check_end(&c);

	/* a lost segment: the kept bytes go, the rest is read alone */
	conn4(r);
	tx(r, O, "PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC);
	r->c.seq[O] += 100;
	tx(r, O, " 5102\1\r\n");
	check_start(&c, "split_gap_forgets");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_end(&c);
}

/* ---------------------------------------------------------------- IPv6 */

static void test_v6(struct run *r)
{
	struct check c;

	conn6(r);
	tx(r, O, send_line(CLIENT6, 5200));
	check_start(&c, "v6_offer");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT6, 5200);
	check_cnt(&c, r, "dcc=1,opened=1");
	check_end(&c);

	conn6(r);
	tx(r, O, send_line("fd00:1:0:0:0:0:0:2", 5201));
	check_start(&c, "v6_offer_long_form");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT6, 5201);
	check_end(&c);

	conn6(r);
	tx(r, O, send_line("fd00:9::2", 5202));
	check_start(&c, "v6_forged");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "dcc=1,forged=1");
	check_end(&c);

	conn6(r);
	tx(r, O, send_line(CLIENT4_DEC, 5203));
	check_start(&c, "v6_v4_address");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_cnt(&c, r, "dcc=1,other_family=1");
	check_end(&c);

	conn6(r);
	tx(r, O, "PRIVMSG bob :\1DCC SEND f fd00:1:");
	tx(r, O, ":2 5204\1\n");
	check_start(&c, "v6_split_in_address");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT6, 5204);
	check_end(&c);
}

/* ---------------------------------------------------------------- NAT */

static void test_nat(struct run *r)
{
	struct check c;

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	tx(r, O, send_line(CLIENT4_DEC, 5300));
	check_start(&c, "nat_rewrite_decimal");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, ROUTER_SV4, 5300);
	check_exp_nat(&c, r->f, 0, R, CLIENT4, 5300);
	check_that(&c, r->f->exp_how[0] == CTH_EXPECT_SYNC, "how %#x", r->f->exp_how[0]);
	check_out(&c, r->f, send_line(ROUTER_SV4_DEC, 5300));
	check_cnt(&c, r, "dcc=1,opened=1,rewritten=1");
	check_end(&c);

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	r->f->busy[r->f->n_busy++] = 5301;
	r->f->busy[r->f->n_busy++] = 5302;
	tx(r, O, fmt("JOIN #a\r\n%s", send_line(CLIENT4, 5301)));
	check_start(&c, "nat_taken_port_dotted");
	check_that(&c, r->v == CTH_VERDICT_ACCEPT && r->f->n_bad == 0, "verdict");
	check_dcc(&c, r->f, r->f->n_exp - 1, ROUTER_SV4, 5303);
	check_exp_nat(&c, r->f, r->f->n_exp - 1, R, CLIENT4, 5301);
	check_out(&c, r->f, fmt("JOIN #a\r\n%s", send_line(ROUTER_SV4, 5303)));
	check_cnt(&c, r, "dcc=1,opened=1,rewritten=1");
	check_end(&c);

	/* the client announces its public address itself: nothing to edit */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	tx(r, O, send_line(ROUTER_SV4_DEC, 5304));
	check_start(&c, "nat_public_address_announced");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, ROUTER_SV4, 5304);
	check_no_edit(&c, r->f);
	check_end(&c);

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	tx(r, O, fmt("%s%s", send_line(CLIENT4_DEC, 5305), send_line(CLIENT4_DEC, 5306)));
	check_start(&c, "nat_two_offers_length_changes");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 2);
	check_out(&c, r->f, fmt("%s%s", send_line(ROUTER_SV4_DEC, 5305),
				send_line(ROUTER_SV4_DEC, 5306)));
	check_end(&c);

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	tx(r, O, send_line(OTHER4_DEC, 5307));
	check_start(&c, "nat_forged");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "dcc=1,forged=1");
	check_end(&c);

	/* split before the address: the rewrite lands in this segment */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	tx(r, O, "PRIVMSG bob :\1DCC SEND file.bin ");
	tx(r, O, CLIENT4_DEC " 5308 1\1\r\n");
	check_start(&c, "nat_split_before_address");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_out(&c, r->f, ROUTER_SV4_DEC " 5308 1\1\r\n");
	check_end(&c);

	/* split inside the address: it left already, nothing opens */
	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	tx(r, O, "PRIVMSG bob :\1DCC SEND file.bin 1677");
	tx(r, O, "72418 5309 1\1\r\n");
	check_start(&c, "nat_split_in_address_untranslated");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 0);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "dcc=1,untranslated=1");
	check_end(&c);

	conn6(r);
	conn_snat(&r->c, ROUTER_SV6, NAT_PORT);
	tx(r, O, send_line(CLIENT6, 5310));
	check_start(&c, "nat_v6_rewrite");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, ROUTER_SV6, 5310);
	check_exp_nat(&c, r->f, 0, R, CLIENT6, 5310);
	check_out(&c, r->f, send_line(ROUTER_SV6, 5310));
	check_end(&c);

	/* the NAT address is longer in decimal (192.0.2.1, ten digits) and
	 * the free port has one more digit: the segment grows */
	conn4(r);
	conn_snat(&r->c, "192.0.2.1", NAT_PORT);
	r->f->busy[r->f->n_busy++] = 9999;
	tx(r, O, fmt("%sPING :x\r\n", send_line(CLIENT4_DEC, 9999)));
	check_start(&c, "nat_rewrite_grows");
	check_that(&c, r->v == CTH_VERDICT_ACCEPT && r->f->n_bad == 0, "verdict");
	check_dcc(&c, r->f, r->f->n_exp - 1, "192.0.2.1", 10000);
	check_out(&c, r->f, fmt("%sPING :x\r\n", send_line("3221225985", 10000)));
	check_that(&c, r->f->out_len == strlen(send_line(CLIENT4_DEC, 9999)) + 9 + 2, "length %zu",
		   r->f->out_len);
	check_end(&c);

	/* DNAT of the server only: the client's address stands */
	conn4(r);
	conn_dnat(&r->c, "192.0.2.10", 6667);
	tx(r, O, send_line(CLIENT4_DEC, 5311));
	check_start(&c, "dnat_server_no_rewrite");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT4, 5311);
	check_no_edit(&c, r->f);
	check_end(&c);
}

/* ---------------------------------------------------------------- errors */

static void test_errors(struct run *r)
{
	struct check c;

	conn4(r);
	r->f->expect_err = -EBUSY;
	tx(r, O, send_line(CLIENT4_DEC, 5400));
	check_start(&c, "kernel_busy_drops");
	check_that(&c, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_cnt(&c, r, "dcc=1,expect_errors=1");
	check_end(&c);

	conn4(r);
	r->f->expect_err = -EPERM;
	tx(r, O, send_line(CLIENT4_DEC, 5401));
	check_start(&c, "refused_passes");
	check_that(&c, r->v == CTH_VERDICT_ACCEPT, "verdict %d", r->v);
	check_cnt(&c, r, "dcc=1,expect_errors=1");
	check_end(&c);

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	r->f->busy_left = 100;
	tx(r, O, send_line(CLIENT4_DEC, 5402));
	check_start(&c, "nat_no_free_port_drops");
	check_that(&c, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_no_edit(&c, r->f);
	check_cnt(&c, r, "dcc=1,expect_errors=1");
	check_end(&c);

	conn4(r);
	conn_snat(&r->c, ROUTER_SV4, NAT_PORT);
	r->f->mangle_err = -ENOMEM;
	tx(r, O, send_line(CLIENT4_DEC, 5403));
	check_start(&c, "nat_rewrite_fails_drops_and_removes");
	check_that(&c, r->v == CTH_VERDICT_DROP, "verdict %d", r->v);
	check_that(&c, r->f->n_ctl == 1 && r->f->ctl[0].op == CTH_EXPECT_OP_REMOVE, "%u ops",
		   r->f->n_ctl);
	check_cnt(&c, r, "dcc=1,opened=1");
	check_end(&c);

	/* more offers than one packet may ask for: never a plugin bug */
	conn4(r);
	{
		char big[8192];
		size_t o = 0;

		for (unsigned int i = 0; i < 40; i++)
			o += (size_t)snprintf(big + o, sizeof(big) - o, "%s",
					      send_line(CLIENT4_DEC, 6000 + i));
		send_n(r, O, big, o);
	}
	check_start(&c, "many_offers_one_segment");
	check_that(&c, r->v == CTH_VERDICT_ACCEPT, "verdict %d", r->v);
	check_clean(&c, r->f);
	check_end(&c);
}

/* ---------------------------------------------------------------- hostile */

static void test_hostile(struct run *r)
{
	static const char *const lines[] = {
		"\1\1\1\1\1\r\n",
		"PRIVMSG :\1DCC SEND\r\n",
		"PRIVMSG bob :\1DCC SEND \"\" " CLIENT4_DEC " 5000\1\r\n",
		"PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 5000 \"\r\n",
		"@@@@@@@@ :::::: PRIVMSG\r\n",
		"PRIVMSG bob :\1DCC SEND f ::::::::::::::::::::::::::::::::::::::::::::::::::::: 1\1\n",
		"PRIVMSG bob :\1DCC SEND f 00000000000000000000000167772418 5000\1\n",
		"\r\n\r\n\n\n\r\r",
		"PRIVMSG bob :\1DCC SEND f " CLIENT4_DEC " 00000000000000005000\1\n",
	};
	struct check c;

	check_start(&c, "hostile_lines");
	for (size_t i = 0; i < ARRAY_LEN(lines); i++) {
		conn4(r);
		tx(r, O, lines[i]);
		check_that(&c, r->v == CTH_VERDICT_ACCEPT && r->f->n_bad == 0, "line %zu", i);
		check_that(&c, r->f->n_exp <= 1, "line %zu: %u expectations", i, r->f->n_exp);
	}
	check_end(&c);

	/* leading zeros are still the number */
	conn4(r);
	tx(r, O, lines[6]);
	check_start(&c, "leading_zeros_address");
	check_run(&c, r, CTH_VERDICT_ACCEPT, 1);
	check_dcc(&c, r->f, 0, CLIENT4, 5000);
	check_end(&c);

	/* an incomplete line past the bound is not kept */
	conn4(r);
	{
		static char big[9000];

		memset(big, 'a', sizeof(big));
		memcpy(big, "@", 1);
		send_n(r, O, big, sizeof(big));
	}
	check_start(&c, "long_tail_not_kept");
	check_that(&c, !r->f->keep_asked && r->v == CTH_VERDICT_ACCEPT, "kept");
	check_end(&c);
}

/* ---------------------------------------------------------------- fuzz */

static void test_fuzz(struct run *r)
{
	static const struct mutate_how how = {
		.alphabet = "PRIVMSG NOTICE DCC SEND CHAT \1\r\n:@\"0123456789abcdef.",
		.max_edits = 6, .n_ops = 7, .trunc_one_in = 8,
	};
	const char *seeds[] = {
		send_line(CLIENT4_DEC, 5000),
		"@t=1 :a!b@c PRIVMSG bob :\1DCC SEND \"a b\" " CLIENT4_DEC " 5000 1\1\r\nPING :x\r\n",
		"NOTICE bob :\1DCC CHAT chat " CLIENT4 " 5001\1\n",
		"PRIVMSG bob :\1DCC SEND f fd00:1::2 5002\1\n",
	};
	unsigned int bad = 0, runs = 0, exps = 0;
	struct check c;

	check_start(&c, "fuzz_offers");
	for (unsigned int i = 0; i < 4000; i++) {
		const char *seed = seeds[rng_below(ARRAY_LEN(seeds))];
		uint8_t buf[1024];
		size_t len = strlen(seed);

		if (i % 40 == 0) {
			if (i % 80 == 0)
				conn6(r);
			else
				conn4(r);
			if (i % 120 == 0)
				conn_snat(&r->c, r->c.t[0].family == V4 ? ROUTER_SV4 : ROUTER_SV6,
					  NAT_PORT);
			if (i % 200 == 0)
				r->f->busy[r->f->n_busy++] = 5000;
		}
		memcpy(buf, seed, len);
		fuzz_mutate(&how, buf, &len, sizeof(buf));
		if (len == 0)
			continue;
		send_n(r, rng_below(5) ? O : R, buf, len);
		runs++;
		exps += r->f->n_exp;
		if (r->f->n_bad)
			bad++;
		check_that(&c, r->f->n_bad == 0, "run %u: %s", i, r->f->bad);
		check_that(&c, r->v == CTH_VERDICT_ACCEPT || r->v == CTH_VERDICT_DROP, "verdict");
	}
	printf("# fuzz: %u runs, %u expectations, %u bad\n", runs, exps, bad);
	check_end(&c);
}

int main(void)
{
	struct run r = { 0 };

	test_parse();
	r.f = plugrun_new();
	test_desc(&r);
	test_offers(&r);
	test_refused(&r);
	test_split(&r);
	test_v6(&r);
	test_nat(&r);
	test_errors(&r);
	test_hostile(&r);
	test_fuzz(&r);
	conn_free(&r.c);
	plugrun_free(r.f);
	return check_exit();
}
