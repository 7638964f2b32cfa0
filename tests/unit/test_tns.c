/* SPDX-License-Identifier: MIT */
/*
 * TNS plugin unit test: the pure parser (packet headers in both length
 * forms, connect descriptors in every spelling), and the plugin's packet
 * callback run on the daemon's host code (plugrun.h): inline and
 * next-DATA descriptors, framing of several packets per segment and of
 * packets across segments, hostile lengths, NAT rewrites (each result is
 * re-parsed: header length, REDIRECT data length, descriptor, checksums),
 * DNAT, third hosts, detach.  Deterministic fuzzing of both ends.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x7a5e7a5e13579bdfull
#include "plugtest.h"

#include "../../plugins/tns/tns.h"

/* ---------------------------------------------------------------- building packets */

struct buf {
	uint8_t b[8192];
	size_t n;
};

/* Bits for the builders. */
enum {
	B_WIDE = 1u << 0,   /* 4-byte length form */
	B_CSUM = 1u << 1,   /* non-zero checksums */
};

static void put_pkt(struct buf *o, uint8_t type, const void *body, size_t blen,
		    unsigned int how)
{
	uint8_t *p = o->b + o->n;
	size_t len = TNS_HDR_LEN + blen;

	if (o->n + len > sizeof(o->b))
		abort();
	memset(p, 0, TNS_HDR_LEN);
	if (how & B_WIDE) {
		tns_put32(p, (uint32_t)len);
	} else {
		tns_put16(p, (uint32_t)len);
		if (how & B_CSUM)
			tns_put16(p + 2, 0xbeef);
	}
	p[4] = type;
	p[5] = 0x04;
	if (how & B_CSUM)
		tns_put16(p + 6, 0xcafe);
	memcpy(p + TNS_HDR_LEN, body, blen);
	o->n += len;
}

static void put_redirect(struct buf *o, const char *desc, unsigned int how)
{
	uint8_t body[4096];
	size_t n = strlen(desc);

	tns_put16(body, (uint32_t)n);
	memcpy(body + 2, desc, n);
	put_pkt(o, TNS_TYPE_REDIRECT, body, n + 2, how);
}

static void put_data(struct buf *o, const char *desc, unsigned int how)
{
	uint8_t body[4096];
	size_t n = strlen(desc);

	body[0] = body[1] = 0;
	memcpy(body + 2, desc, n);
	put_pkt(o, TNS_TYPE_DATA, body, n + 2, how);
}

static struct buf *buf_new(void)
{
	static struct buf ring[4];
	static unsigned int i;
	struct buf *o = &ring[i++ % 4];

	o->n = 0;
	return o;
}

/* A new buffer holding one REDIRECT. */
static struct buf *redirect(const char *desc, unsigned int how)
{
	struct buf *o = buf_new();

	put_redirect(o, desc, how);
	return o;
}

/* ---------------------------------------------------------------- parser: headers */

struct hdr_case {
	const char *name;
	uint8_t bytes[8];
	size_t len;
	int ret;
	uint32_t plen;
	uint8_t type;
	bool wide;
};

static const struct hdr_case hdr_cases[] = {
	{ "redirect", { 0, 60, 0, 0, 5, 0, 0, 0 }, 8, 0, 60, 5, false },
	{ "data_with_csum", { 0, 8, 0xbe, 0xef, 6, 4, 0xca, 0xfe }, 8, 0, 8, 6, false },
	{ "wide", { 0, 0, 0x01, 0x00, 6, 0, 0, 0 }, 8, 0, 256, 6, true },
	/* a 4-byte length of 1 MiB cannot be told from a 2-byte 16 */
	{ "wide_1m_reads_narrow", { 0, 0x10, 0, 0, 6, 0, 0, 0 }, 8, 0, 16, 6, false },
	{ "wide_0", { 0, 0, 0, 0, 6, 0, 0, 0 }, 8, -EINVAL, 0, 0, false },
	{ "len_7", { 0, 7, 0, 0, 5, 0, 0, 0 }, 8, -EINVAL, 0, 0, false },
	{ "wide_len_7", { 0, 0, 0, 7, 5, 0, 0, 0 }, 8, -EINVAL, 0, 0, false },
	{ "type_0", { 0, 60, 0, 0, 0, 0, 0, 0 }, 8, -EINVAL, 0, 0, false },
	{ "type_20", { 0, 60, 0, 0, 20, 0, 0, 0 }, 8, -EINVAL, 0, 0, false },
	{ "type_19", { 0, 60, 0, 0, 19, 0, 0, 0 }, 8, 0, 60, 19, false },
	{ "short_7", { 0, 60, 0, 0, 5, 0, 0 }, 7, -EAGAIN, 0, 0, false },
	{ "short_0", { 0 }, 0, -EAGAIN, 0, 0, false },
};

static void test_hdr_case(const struct hdr_case *hc)
{
	uint8_t *buf = dup_exact(hc->bytes, hc->len);
	struct tns_hdr h;
	struct check c;
	int ret;

	check_start(&c, "hdr_%s", hc->name);
	ret = tns_hdr_parse(buf, hc->len, &h);
	if (check_ret(&c, ret, hc->ret) && ret == 0) {
		check_that(&c, h.len == hc->plen, "length %u, want %u", h.len, hc->plen);
		check_that(&c, h.type == hc->type, "type %u", h.type);
		check_that(&c, h.wide == hc->wide, "wide %d", h.wide);
	}
	check_end(&c);
	free(buf);
}

static void test_hdr_limits(void)
{
	uint8_t b[8] = { 0, 0, 0, 0, 6, 0, 0, 0 };
	struct tns_hdr h;
	struct check c;

	check_start(&c, "hdr_len_max");
	tns_put32(b, 0xffff);
	check_that(&c, tns_hdr_parse(b, 8, &h) == 0 && h.len == 0xffff && h.wide,
		   "wide 65535 refused");
	tns_put16(b, 0xffff);
	check_that(&c, tns_hdr_parse(b, 8, &h) == 0 && h.len == 0xffff && !h.wide,
		   "narrow 65535 refused");
	tns_put32(b, 0x10000);
	check_that(&c, tns_hdr_parse(b, 8, &h) == -EINVAL, "wide 65536 accepted");
	check_end(&c);

	check_start(&c, "hdr_names");
	check_that(&c, strcmp(tns_type_name(TNS_TYPE_REDIRECT), "REDIRECT") == 0, "REDIRECT");
	check_that(&c, strcmp(tns_type_name(8), "other") == 0, "8");
	check_that(&c, strcmp(tns_type_name(255), "other") == 0, "255");
	check_end(&c);
}

/* ---------------------------------------------------------------- parser: descriptors */

struct desc_case {
	const char *name;
	const char *text;
	int ret;
	int family;          /* AF_INET, AF_INET6, 0 (a name) */
	const char *host;    /* the host span's text */
	const char *port;    /* the port span's text */
	unsigned int port_val;
};

static const struct desc_case desc_cases[] = {
	{ "plain", "(ADDRESS=(PROTOCOL=tcp)(HOST=10.0.0.7)(PORT=40123))", 1, V4, "10.0.0.7",
	  "40123", 40123 },
	{ "description", "(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=10.0.0.7)(PORT=1522))"
	  "(CONNECT_DATA=(SID=orcl)))", 1, V4, "10.0.0.7", "1522", 1522 },
	{ "lower_case", "(address=(protocol=tcp)(host=10.0.0.7)(port=1522))", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "mixed_case", "(Address=(Protocol=Tcp)(hOsT=10.0.0.7)(PoRt=1522))", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "spaces", "( ADDRESS = ( PROTOCOL = tcp ) ( HOST = 10.0.0.7 ) ( PORT = 1522 ) )", 1,
	  V4, "10.0.0.7", "1522", 1522 },
	{ "tabs_newlines", "(ADDRESS=\n\t(HOST=\t10.0.0.7\t)\r\n\t(PORT=\t1522\n))", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "port_first", "(ADDRESS=(PORT=1522)(HOST=10.0.0.7)(PROTOCOL=tcp))", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "no_protocol", "(ADDRESS=(HOST=10.0.0.7)(PORT=1522))", 1, V4, "10.0.0.7", "1522",
	  1522 },
	{ "tcps", "(ADDRESS=(PROTOCOL=tcps)(HOST=10.0.0.7)(PORT=2484))", 1, V4, "10.0.0.7",
	  "2484", 2484 },
	{ "ipc_skipped", "(ADDRESS_LIST=(ADDRESS=(PROTOCOL=ipc)(HOST=10.0.0.8)(PORT=1))"
	  "(ADDRESS=(PROTOCOL=tcp)(HOST=10.0.0.7)(PORT=1522)))", 1, V4, "10.0.0.7", "1522",
	  1522 },
	{ "first_of_two", "(ADDRESS_LIST=(ADDRESS=(HOST=10.0.0.8)(PORT=1600))"
	  "(ADDRESS=(HOST=10.0.0.7)(PORT=1522)))", 1, V4, "10.0.0.8", "1600", 1600 },
	{ "ipv6", "(ADDRESS=(PROTOCOL=tcp)(HOST=2001:db8::7)(PORT=1522))", 1, V6,
	  "2001:db8::7", "1522", 1522 },
	{ "ipv6_brackets", "(ADDRESS=(PROTOCOL=tcp)(HOST=[2001:db8::7])(PORT=1522))", 1, V6,
	  "2001:db8::7", "1522", 1522 },
	{ "ipv6_full", "(ADDRESS=(HOST=2001:0db8:0000:0000:0000:0000:0000:0007)(PORT=1522))",
	  1, V6, "2001:0db8:0000:0000:0000:0000:0000:0007", "1522", 1522 },
	{ "ipv4_mapped", "(ADDRESS=(HOST=::ffff:10.0.0.7)(PORT=1522))", 1, V6,
	  "::ffff:10.0.0.7", "1522", 1522 },
	{ "host_name", "(ADDRESS=(PROTOCOL=tcp)(HOST=db2.example.com)(PORT=1522))", 1, 0,
	  "db2.example.com", "1522", 1522 },
	{ "host_name_digits", "(ADDRESS=(HOST=10.0.0.999)(PORT=1522))", 1, 0, "10.0.0.999",
	  "1522", 1522 },
	{ "leading_zero_port", "(ADDRESS=(HOST=10.0.0.7)(PORT=01522))", 1, V4, "10.0.0.7",
	  "01522", 1522 },
	{ "bare", "(HOST=10.0.0.7)(PORT=1522)", 1, V4, "10.0.0.7", "1522", 1522 },
	{ "cut_after_address", "(DESCRIPTION=(ADDRESS=(HOST=10.0.0.7)(PORT=1522)", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "binary_around", "\x01\x02(ADDRESS=(HOST=10.0.0.7)(PORT=1522))\x00\xff", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "port_0", "(ADDRESS=(HOST=10.0.0.7)(PORT=0))", 0, 0, NULL, NULL, 0 },
	{ "port_65536", "(ADDRESS=(HOST=10.0.0.7)(PORT=65536))", 0, 0, NULL, NULL, 0 },
	{ "port_65535", "(ADDRESS=(HOST=10.0.0.7)(PORT=65535))", 1, V4, "10.0.0.7", "65535",
	  65535 },
	{ "port_huge", "(ADDRESS=(HOST=10.0.0.7)(PORT=99999999999999999999999))", 0, 0, NULL,
	  NULL, 0 },
	{ "port_letters", "(ADDRESS=(HOST=10.0.0.7)(PORT=15x2))", 0, 0, NULL, NULL, 0 },
	{ "port_negative", "(ADDRESS=(HOST=10.0.0.7)(PORT=-1))", 0, 0, NULL, NULL, 0 },
	{ "port_inner_space", "(ADDRESS=(HOST=10.0.0.7)(PORT=15 22))", 0, 0, NULL, NULL, 0 },
	{ "port_empty", "(ADDRESS=(HOST=10.0.0.7)(PORT=))", 0, 0, NULL, NULL, 0 },
	{ "host_empty", "(ADDRESS=(HOST=)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "host_brackets_empty", "(ADDRESS=(HOST=[])(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "host_bad_v6", "(ADDRESS=(HOST=2001:db8:::7)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "host_bad_chars", "(ADDRESS=(HOST=a b)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "host_equals", "(ADDRESS=(HOST=a=b)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "two_hosts", "(ADDRESS=(HOST=10.0.0.7)(HOST=10.0.0.8)(PORT=1522))", 0, 0, NULL,
	  NULL, 0 },
	{ "two_ports", "(ADDRESS=(HOST=10.0.0.7)(PORT=1522)(PORT=1523))", 0, 0, NULL, NULL,
	  0 },
	{ "two_protocols", "(ADDRESS=(PROTOCOL=tcp)(PROTOCOL=tcp)(HOST=10.0.0.7)(PORT=1))",
	  0, 0, NULL, NULL, 0 },
	{ "protocol_udp", "(ADDRESS=(PROTOCOL=udp)(HOST=10.0.0.7)(PORT=1522))", 0, 0, NULL,
	  NULL, 0 },
	{ "split_groups", "(A=(HOST=10.0.0.7))(B=(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "value_cut", "(ADDRESS=(HOST=10.0.0.7)(PORT=1522", 0, 0, NULL, NULL, 0 },
	{ "value_with_paren", "(ADDRESS=(HOST=10.0(0.7)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "host_key_prefix", "(ADDRESS=(HOSTS=10.0.0.7)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "host_key_glued", "(ADDRESS=(XHOST=10.0.0.7)(PORT=1522))", 0, 0, NULL, NULL, 0 },
	{ "no_parens", "HOST=10.0.0.7 PORT=1522", 0, 0, NULL, NULL, 0 },
	{ "empty", "", 0, 0, NULL, NULL, 0 },
	{ "stray_close", ")))(ADDRESS=(HOST=10.0.0.7)(PORT=1522))", 1, V4, "10.0.0.7",
	  "1522", 1522 },
	{ "deep_ok", "((((((((((((((((HOST=10.0.0.7)(PORT=1522)))))))))))))))", 1, V4,
	  "10.0.0.7", "1522", 1522 },
	{ "too_deep", "(((((((((((((((((HOST=10.0.0.7)(PORT=1522))))))))))))))))", -EINVAL, 0,
	  NULL, NULL, 0 },
};

static void test_desc_case(const struct desc_case *dc)
{
	size_t len = strlen(dc->text);
	uint8_t *buf;
	struct tns_addr a;
	struct check c;
	int ret;

	/* a case with a NUL inside: the text runs to its closing ')' + 2 */
	if (strcmp(dc->name, "binary_around") == 0)
		len = strlen(dc->text) + 2;
	buf = dup_exact(dc->text, len);
	check_start(&c, "desc_%s", dc->name);
	memset(&a, 0, sizeof(a));
	ret = tns_desc_parse(buf, len, &a);
	if (check_ret(&c, ret, dc->ret) && ret == 1) {
		check_that(&c, a.family == dc->family, "family %d, want %d", a.family, dc->family);
		check_that(&c, a.host.off <= len && a.host.len <= len - a.host.off &&
			   a.host.len == strlen(dc->host) &&
			   memcmp(buf + a.host.off, dc->host, a.host.len) == 0,
			   "host span %zu+%zu", a.host.off, a.host.len);
		check_that(&c, a.port.off <= len && a.port.len <= len - a.port.off &&
			   a.port.len == strlen(dc->port) &&
			   memcmp(buf + a.port.off, dc->port, a.port.len) == 0,
			   "port span %zu+%zu", a.port.off, a.port.len);
		check_that(&c, a.port_val == dc->port_val, "port %u", a.port_val);
		if (dc->family == V4)
			check_that(&c, addr_is(V4, &a.addr, dc->host), "address");
		if (dc->family == V6) {
			union cth_addr w = addr_of(V6, dc->host);

			check_that(&c, cth_addr_equal(V6, &a.addr, &w), "address");
		}
	}
	check_end(&c);
	free(buf);
}

/* Every prefix of a descriptor: never a read past it (ASan), and the
 * address only once both values are closed. */
static void test_desc_prefixes(void)
{
	const char *text = "(DESCRIPTION=(ADDRESS=(PROTOCOL=tcp)(HOST=10.0.0.7)(PORT=40123)))";
	size_t full = strlen(text), port_end = strstr(text, "40123)") - text + 5;
	struct tns_addr a;
	struct check c;

	check_start(&c, "desc_prefixes");
	for (size_t n = 0; n <= full; n++) {
		uint8_t *buf = dup_exact(text, n);
		int ret = tns_desc_parse(buf, n, &a);

		check_that(&c, ret == (n > port_end ? 1 : 0), "prefix %zu: %d", n, ret);
		free(buf);
	}
	check_end(&c);
}

static void test_format(void)
{
	union cth_addr v4 = addr_of(V4, "203.0.113.5"), v6 = addr_of(V6, "2001:db8:0:0::1");
	char t[TNS_FORMAT_MAX], small[4];
	struct check c;

	check_start(&c, "format");
	check_that(&c, tns_format_addr(V4, &v4, t, sizeof(t)) == 11 && !strcmp(t, "203.0.113.5"),
		   "v4 %s", t);
	check_that(&c, tns_format_addr(V6, &v6, t, sizeof(t)) == 11 && !strcmp(t, "2001:db8::1"),
		   "v6 %s", t);
	check_that(&c, tns_format_port(1, t, sizeof(t)) == 1 && !strcmp(t, "1"), "port 1");
	check_that(&c, tns_format_port(65535, t, sizeof(t)) == 5 && !strcmp(t, "65535"),
		   "port 65535");
	check_that(&c, tns_format_port(65535, small, sizeof(small)) == -ENOSPC, "small buffer");
	check_that(&c, tns_format_addr(V4, &v4, small, sizeof(small)) < 0, "small address");
	check_end(&c);
}

/* Random bytes and mutated descriptors: never a crash or a read past the
 * end; a found address lies inside the buffer and parses again alone. */
static void test_parse_fuzz(void)
{
	static const char *const seeds[] = {
		"(DESCRIPTION=(ADDRESS=(PROTOCOL=tcp)(HOST=10.0.0.7)(PORT=40123)))",
		"( address = (host = [2001:db8::7] ) ( port = 1522 ))",
		"(ADDRESS_LIST=(ADDRESS=(PROTOCOL=ipc)(KEY=x))(ADDRESS=(HOST=db)(PORT=1)))",
	};
	const struct mutate_how how = { "()= HOSTPRThostpr:.[]0123456789abcdef\t",
					8, 7, 4 };
	struct check c;
	uint8_t text[1024];
	unsigned int bad = 0;

	check_start(&c, "desc_fuzz");
	for (unsigned int i = 0; i < 20000; i++) {
		const char *s = seeds[i % ARRAY_LEN(seeds)];
		size_t len = strlen(s);
		struct tns_addr a;
		uint8_t *buf;
		int ret;

		memcpy(text, s, len);
		fuzz_mutate(&how, text, &len, sizeof(text));
		buf = dup_exact(text, len);
		ret = tns_desc_parse(buf, len, &a);
		if (ret == 1 && (a.host.off > len || a.host.len > len - a.host.off ||
				 a.port.off > len || a.port.len > len - a.port.off ||
				 a.port_val == 0 || a.host.len == 0))
			bad++;
		if (ret != 1 && ret != 0 && ret != -EINVAL)
			bad++;
		free(buf);
	}
	for (unsigned int i = 0; i < 5000; i++) {
		size_t len = rng_below(64);
		struct tns_hdr h;
		uint8_t *buf;

		for (size_t k = 0; k < len; k++)
			text[k] = (uint8_t)rng_next();
		buf = dup_exact(text, len);
		if (tns_hdr_parse(buf, len, &h) == 0 && (h.len < 8 || h.len > 0xffff))
			bad++;
		(void)tns_desc_parse(buf, len, &(struct tns_addr){ 0 });
		free(buf);
	}
	check_that(&c, bad == 0, "%u bad results", bad);
	check_end(&c);
}

/* ---------------------------------------------------------------- plugin helpers */

/* The listener 10.0.0.5:1521, the client 192.168.1.10:40000. */
#define CLIENT "192.168.1.10"
#define SERVER "10.0.0.5"
#define OTHER "10.0.0.7"
#define PUB "203.0.113.5"
#define CLIENT6 "2001:db8:1::10"
#define SERVER6 "2001:db8:2::5"
#define PUB6 "2001:db8:ffff::5"

#define DESC(host, port) "(DESCRIPTION=(ADDRESS=(PROTOCOL=tcp)(HOST=" host ")(PORT=" port "))" \
			 "(CONNECT_DATA=(SERVER=dedicated)))"

static struct conn conn;
static uint32_t srv_seq;

static void conn_v4(void)
{
	conn_free(&conn);
	conn_init(&conn, V4, TCP, CLIENT, 40000, SERVER, 1521);
	srv_seq = 0x10000000;
}

static void conn_v6(void)
{
	conn_free(&conn);
	conn_init(&conn, V6, TCP, CLIENT6, 40000, SERVER6, 1521);
	srv_seq = 0xfffffff0;   /* wraps during the test */
}

/* One server segment, the next in sequence. */
static int srv(struct plugrun *f, const struct buf *b)
{
	int v = run_ctinfo(f, &conn, R, CTH_CT_ESTABLISHED_REPLY, srv_seq, b->b, b->n);

	srv_seq += (uint32_t)b->n;
	return v;
}

/* The server segment at seq again (a retransmission). */
static int srv_at(struct plugrun *f, uint32_t seq, const struct buf *b)
{
	return run_ctinfo(f, &conn, R, CTH_CT_ESTABLISHED_REPLY, seq, b->b, b->n);
}

static int cli(struct plugrun *f, const struct buf *b)
{
	return run_ctinfo(f, &conn, O, CTH_CT_ESTABLISHED, 0x5000, b->b, b->n);
}

static void fresh(struct plugrun *f)
{
	plugrun_answers_reset(f);
	f->detach_ok = true;
	
}

/* A case on a new IPv4 connection, the kernel side's answers reset. */
static void case_v4(struct check *c, struct plugrun *f, const char *name)
{
	check_start(c, "%s", name);
	conn_v4();
	fresh(f);
}

/* Every case ends with nothing left behind. */
static void case_done(struct check *c, struct plugrun *f)
{
	check_clean(c, f);
	check_end(c);
}

/* The one expectation a plain redirect asks for. */
static void check_plain_exp(struct check *c, const struct plugrun *f, int family,
			    const char *src, const char *dst, unsigned int port)
{
	const struct cth_expect *e = &f->exp[0];

	if (!check_that(c, f->n_exp == 1, "%u expectations", f->n_exp))
		return;
	check_that(c, e->class == TNS_CLASS_REDIRECT && e->family == family &&
		   e->proto == TCP, "class %u family %u proto %u", e->class, e->family, e->proto);
	check_that(c, e->sport == 0 && e->dport == port, "ports %u -> %u", e->sport, e->dport);
	check_that(c, !(e->flags & CTH_EXPECT_ANY_SRC) && addr_is(family, &e->src, src),
		   "source");
	check_that(c, addr_is(family, &e->dst, dst), "destination");
	check_that(c, !(e->flags & CTH_EXPECT_NAT) && f->exp_fn[0][0] == '\0', "NAT flags %#x",
		   e->flags);
	check_that(c, f->exp_how[0] == 0, "how %#x", f->exp_how[0]);
}

/* The last NAT expectation: follows the master to the server's port. */
static void check_nat_exp(struct check *c, const struct plugrun *f, int family,
			  const char *dst, unsigned int port, const char *nat_addr,
			  unsigned int nat_port)
{
	const struct cth_expect *e;

	if (!check_that(c, f->n_exp >= 1, "no expectation"))
		return;
	e = &f->exp[f->n_exp - 1];
	check_that(c, e->flags == CTH_EXPECT_NAT && e->nat_dir == O, "flags %#x dir %d",
		   e->flags, e->nat_dir);
	check_that(c, strcmp(f->exp_fn[f->n_exp - 1], CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0,
		   "fn %s", f->exp_fn[f->n_exp - 1]);
	check_that(c, f->exp_how[f->n_exp - 1] == CTH_EXPECT_SYNC, "not sync");
	check_that(c, addr_is(family, &e->src, family == V4 ? CLIENT : CLIENT6), "source");
	check_that(c, addr_is(family, &e->dst, dst) && e->dport == port, "destination port %u",
		   e->dport);
	check_that(c, addr_is(family, &e->nat_addr, nat_addr) && e->nat_port == nat_port,
		   "nat port %u", e->nat_port);
}

/*
 * The rewritten segment (f->out) holds one REDIRECT (or DATA when data)
 * whose every length is right for the bytes there: the header length is
 * the segment's, the data length the rest, the descriptor want, and both
 * TNS checksums zero.
 */
static void check_rewritten(struct check *c, const struct plugrun *f, bool data, bool wide,
			    const char *want)
{
	const uint8_t *o = f->out;
	size_t n = f->out_len, wl = strlen(want);
	uint32_t hlen;

	if (!check_that(c, n >= TNS_REDIRECT_BODY, "%zu bytes", n))
		return;
	hlen = wide ? (uint32_t)tns_get16(o) << 16 | tns_get16(o + 2) : tns_get16(o);
	check_that(c, wide ? tns_get16(o) == 0 : tns_get16(o) != 0, "length form changed");
	check_that(c, hlen == n, "header length %u, segment %zu", hlen, n);
	check_that(c, o[4] == (data ? TNS_TYPE_DATA : TNS_TYPE_REDIRECT) && o[5] == 0x04,
		   "type/flags %u/%u", o[4], o[5]);
	check_that(c, (wide || tns_get16(o + 2) == 0) && tns_get16(o + 6) == 0,
		   "checksums %#x %#x", tns_get16(o + 2), tns_get16(o + 6));
	if (!data)
		check_that(c, tns_get16(o + 8) == n - TNS_REDIRECT_BODY,
			   "data length %u, rest %zu", tns_get16(o + 8), n - TNS_REDIRECT_BODY);
	check_that(c, n - TNS_REDIRECT_BODY == wl &&
		   memcmp(o + TNS_REDIRECT_BODY, want, wl) == 0,
		   "descriptor '%.*s', want '%s'", (int)(n - TNS_REDIRECT_BODY),
		   (const char *)o + TNS_REDIRECT_BODY, want);
}

/* f->out is the input unchanged. */
static void check_same(struct check *c, const struct plugrun *f, const struct buf *b)
{
	check_that(c, f->out_len == b->n && memcmp(f->out, b->b, b->n) == 0, "payload changed");
}

static void check_detached(struct check *c, const struct plugrun *f, unsigned int n)
{
	check_that(c, f->n_detach == n, "%u detaches, want %u", f->n_detach, n);
}

static const struct tns_priv *priv_of(void)
{
	return (const struct tns_priv *)(const void *)conn.priv;
}

/* ---------------------------------------------------------------- plugin: descriptor and config */

static void test_plugin_desc(void)
{
	struct check c;

	check_start(&c, "plugin_desc");
	check_that(&c, strcmp(cth_plugin.name, "tns") == 0, "name %s", cth_plugin.name);
	check_that(&c, cth_plugin.abi_version == CTH_ABI_VERSION &&
		   cth_plugin.size == sizeof(struct cth_plugin_desc), "abi");
	check_that(&c, cth_plugin.protocols == CTH_PROTO_TCP, "protocols %#x",
		   cth_plugin.protocols);
	check_that(&c, cth_plugin.families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "families");
	check_that(&c, cth_plugin.priv_size == sizeof(struct tns_priv) &&
		   cth_plugin.priv_size <= CTH_PRIV_MAX, "priv %zu", cth_plugin.priv_size);
	check_that(&c, cth_plugin.config_size <= sizeof(conn.cfg), "config %zu",
		   cth_plugin.config_size);
	check_that(&c, cth_plugin.n_classes == 1 &&
		   strcmp(cth_plugin.classes[0].name, "redirect") == 0 &&
		   cth_plugin.classes[0].max == 4 && cth_plugin.classes[0].timeout == 60,
		   "classes");
	/* SDK 3: declared keys (no configure()), counters, state version */
	check_that(&c, cth_plugin.packet && !cth_plugin.configure, "callbacks");
	check_that(&c, cth_plugin.n_keys == 2 && cth_plugin.n_counters == TNS_CNT_PARSE_ERRORS + 1,
		   "%u keys, %u counters", cth_plugin.n_keys, cth_plugin.n_counters);
	check_that(&c, cth_plugin.priv_version == TNS_PRIV_VERSION &&
		   cth_plugin.priv_version_at == offsetof(struct tns_priv, version) &&
		   cth_plugin.priv_version_at == 0 && cth_plugin.priv_valid,
		   "state version %u at %u", cth_plugin.priv_version, cth_plugin.priv_version_at);
	check_end(&c);
}

static const struct tns_config *cfg_of(const struct conn *c)
{
	return (const struct tns_config *)(const void *)c->cfg;
}

/* The keys as the daemon parses them (conn_configure(): its own parser by
 * the declared type), after the declared defaults. */
static void test_plugin_config(void)
{
	static const struct {
		const char *key, *value;
		int ret;
		bool detach;
	} cases[] = {
		{ "tns_detach", "yes", 0, true },
		{ "tns_detach", "no", 0, false },
		{ "tns_detach", "off", 0, false },
		{ "tns_detach", "TRUE", 0, true },
		{ "tns_detach", "0", 0, false },
		{ "tns_detach", "maybe", -EINVAL, true },
		{ "tns_detach", "", -EINVAL, true },
		{ "tns_detach ", "no", -ENOENT, true },
		{ "TNS_DETACH", "no", -ENOENT, true },
		{ "detach", "no", -ENOENT, true },
		{ "loose", "yes", -ENOENT, true },
	};
	struct check c;
	struct conn k;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		int ret;

		conn_init(&k, V4, TCP, CLIENT, 40000, SERVER, 1521);
		ret = conn_configure(&k, cases[i].key, cases[i].value);
		check_start(&c, "config_%zu_%s_%s", i, cases[i].key, cases[i].value);
		check_ret(&c, ret, cases[i].ret);
		check_that(&c, cfg_of(&k)->detach == cases[i].detach, "detach %d",
			   cfg_of(&k)->detach);
		check_end(&c);
		conn_free(&k);
	}

	check_start(&c, "config_defaults");
	conn_init(&k, V4, TCP, CLIENT, 40000, SERVER, 1521);
	check_that(&c, cfg_of(&k)->detach, "tns_detach default no");
	check_that(&c, cfg_of(&k)->ports.n == 1 && cfg_of(&k)->ports.port[0] == 1521,
		   "ports default: %u ports, first %u", cfg_of(&k)->ports.n,
		   cfg_of(&k)->ports.port[0]);
	check_that(&c, cth_plugin.keys[1].flags & CTH_KEY_RULE_PORTS, "ports not the rule ports");
	check_end(&c);
	conn_free(&k);

	check_start(&c, "config_ports");
	conn_init(&k, V4, TCP, CLIENT, 40000, SERVER, 1521);
	check_ret(&c, conn_configure(&k, "ports", "1521, 1522 1630"), 0);
	check_that(&c, cfg_of(&k)->ports.n == 3 && cfg_of(&k)->ports.port[2] == 1630,
		   "%u ports", cfg_of(&k)->ports.n);
	check_ret(&c, conn_configure(&k, "ports", "0"), -EINVAL);
	check_ret(&c, conn_configure(&k, "ports", "65536"), -EINVAL);
	check_ret(&c, conn_configure(&k, "ports", ""), -EINVAL);
	check_ret(&c, conn_configure(&k, "ports", "1521;1522"), -EINVAL);
	check_ret(&c, conn_configure(&k, "ports", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"), 0);
	check_ret(&c, conn_configure(&k, "ports", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"),
		  -EINVAL);
	check_end(&c);
	conn_free(&k);
}

/* ---------------------------------------------------------------- plugin: no NAT */

/*
 * One REDIRECT from the server of a new connection (IPv4, or IPv6 when
 * v6; tns_detach = no when no_detach) and the plain expectation it gives:
 * from the client to dst:port (dst NULL: none), with detaches (-1: not
 * checked).
 */
static const struct redirect_case {
	const char *name;
	bool v6, no_detach;
	const char *desc;
	unsigned int how;
	const char *dst;
	unsigned int port;
	int detaches;
} redirect_cases[] = {
	{ "inline_redirect_same_server", false, false, DESC(SERVER, "1522"), 0, SERVER, 1522, 1 },
	{ "detach_off", false, true, DESC(OTHER, "40123"), 0, OTHER, 40123, 0 },
	{ "mixed_case_spaces", false, false,
	  "( description = ( Address = ( Protocol = TCP ) ( host = " OTHER " ) ( Port = 40123 ) ) )",
	  0, OTHER, 40123, -1 },
	{ "ipv6_literal", true, false, DESC("2001:db8:2::7", "40123"), 0, "2001:db8:2::7", 40123, 1 },
	{ "ipv6_brackets", true, false, DESC("[2001:db8:2::7]", "40123"), 0, "2001:db8:2::7", 40123,
	  -1 },
	{ "ipv4_on_ipv6", true, false, DESC(OTHER, "40123"), 0, NULL, 0, 0 },
	{ "ipv6_on_ipv4", false, false, DESC("2001:db8:2::7", "40123"), 0, NULL, 0, -1 },
	{ "wide_header", false, false, DESC(OTHER, "40123"), B_WIDE, OTHER, 40123, -1 },
};

static void test_redirect_cases(struct plugrun *f)
{
	for (size_t i = 0; i < ARRAY_LEN(redirect_cases); i++) {
		const struct redirect_case *t = &redirect_cases[i];
		struct check c;

		check_start(&c, "%s", t->name);
		if (t->v6)
			conn_v6();
		else
			conn_v4();
		fresh(f);
		if (t->no_detach)
			check_that(&c, conn_configure(&conn, "tns_detach", "no") == 0, "configure");
		srv(f, redirect(t->desc, t->how));
		if (t->dst)
			check_plain_exp(&c, f, t->v6 ? V6 : V4, t->v6 ? CLIENT6 : CLIENT, t->dst,
					t->port);
		else
			check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
		if (t->detaches >= 0)
			check_detached(&c, f, (unsigned int)t->detaches);
		case_done(&c, f);
	}
}

static void test_plugin_plain(struct plugrun *f)
{
	struct buf *b = buf_new(), *d = buf_new();
	struct check c;
	int v;

	test_redirect_cases(f);

	case_v4(&c, f, "inline_redirect");
	put_redirect(b, DESC(OTHER, "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	check_no_edit(&c, f);
	check_same(&c, f, b);
	check_detached(&c, f, 1);
	check_clean(&c, f);
	check_that(&c, priv_of()->version == TNS_PRIV_VERSION, "version %u", priv_of()->version);
	check_end(&c);

	/* an accepted session has nothing more for the helper: detach, so
	 * its data is not queued */
	case_v4(&c, f, "accept_detaches");
	b = buf_new();
	put_pkt(b, TNS_TYPE_ACCEPT, "\x01\x3a\x00\x00", 4, 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	check_detached(&c, f, 1);
	case_done(&c, f);

	case_v4(&c, f, "accept_detach_off");
	check_that(&c, conn_configure(&conn, "tns_detach", "no") == 0, "configure");
	b = buf_new();
	put_pkt(b, TNS_TYPE_ACCEPT, "\x01\x3a\x00\x00", 4, 0);
	srv(f, b);
	check_detached(&c, f, 0);
	case_done(&c, f);

	/* the host's rule refuses for good (a third host outside
	 * expect_networks): the redirect passes, nothing is opened, nothing
	 * detached (the client's next connect is the firewall's to judge) */
	case_v4(&c, f, "host_refusal_passes");
	check_that(&c, conn_expect_networks(&conn, "192.0.2.0/24") == 0, "expect_networks");
	b = redirect(DESC(OTHER, "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 1 && f->n_refused == 1 &&
		   f->exp_rc[0] == -EPERM, "verdict %d, %u asked, %u refused", v, f->n_exp,
		   f->n_refused);
	check_detached(&c, f, 0);
	case_done(&c, f);

	case_v4(&c, f, "detach_refused");
	f->detach_err = -EOPNOTSUPP;
	b = redirect(DESC(OTHER, "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_detached(&c, f, 1);
	case_done(&c, f);

	case_v4(&c, f, "next_data");
	b = redirect("", 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 0 && f->n_detach == 0,
		   "redirect alone: verdict %d, %u expectations", v, f->n_exp);
	check_that(&c, priv_of()->flags & TNS_PRIV_DATA_NEXT, "flag not set");
	d = buf_new();
	put_data(d, DESC(OTHER, "40123"), 0);
	srv(f, d);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	check_detached(&c, f, 1);
	check_that(&c, !(priv_of()->flags & TNS_PRIV_DATA_NEXT), "flag left set");
	case_done(&c, f);

	case_v4(&c, f, "next_data_client_between");
	b = redirect("", 0);
	srv(f, b);
	d = buf_new();
	put_pkt(d, TNS_TYPE_MARKER, "\x01\x00\x01", 3, 0);
	cli(f, d);
	check_that(&c, f->n_exp == 0 && f->n_log == 0, "client packet read");
	d = buf_new();
	put_data(d, DESC(OTHER, "40123"), 0);
	srv(f, d);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "next_data_same_segment");
	b = redirect("", 0);
	put_data(b, DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	check_detached(&c, f, 1);
	case_done(&c, f);

	case_v4(&c, f, "next_packet_not_data");
	b = redirect("", 0);
	srv(f, b);
	d = buf_new();
	put_pkt(d, TNS_TYPE_MARKER, "\x01\x00\x01", 3, 0);
	srv(f, d);
	b = buf_new();
	put_data(b, DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_that(&c, f->n_exp == 0 && f->n_detach == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "data_without_redirect");
	b = buf_new();
	put_data(b, DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "host_name");
	b = redirect(DESC("db2.example.com", "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_that(&c, f->n_exp == 0 && f->n_detach == 0, "%u expectations", f->n_exp);
	check_that(&c, f->n_log == 1 && strstr(f->log, "db2.example.com"), "log '%s'", f->log);
	check_no_edit(&c, f);
	case_done(&c, f);

	static const char *const unusable[] = { "0.0.0.0", "224.0.0.1", "239.1.2.3",
						"255.255.255.255" };
	for (size_t i = 0; i < ARRAY_LEN(unusable); i++) {
		char desc[160];

		check_start(&c, "unusable_%s", unusable[i]);
		conn_v4();
		fresh(f);
		b = buf_new();
		snprintf(desc, sizeof(desc), "(ADDRESS=(HOST=%s)(PORT=1522))", unusable[i]);
		put_redirect(b, desc, 0);
		srv(f, b);
		check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
		check_clean(&c, f);
		check_end(&c);
	}
	check_start(&c, "unusable_v6");
	conn_v6();
	fresh(f);
	b = redirect("(ADDRESS=(HOST=::)(PORT=1522))", 0);
	put_redirect(b, "(ADDRESS=(HOST=ff02::1)(PORT=1522))", 0);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "client_connect_ignored");
	b = buf_new();
	put_pkt(b, TNS_TYPE_CONNECT, "\x01\x3a\x01\x2c" DESC(OTHER, "1521"),
		4 + strlen(DESC(OTHER, "1521")), 0);
	cli(f, b);
	b = redirect(DESC(OTHER, "40123"), 0);
	cli(f, b);
	check_that(&c, f->n_exp == 0 && f->n_log == 0 && f->n_detach == 0, "client read");
	check_that(&c, priv_of()->version == 0, "client packet changed the state");
	case_done(&c, f);

	case_v4(&c, f, "not_established");
	b = redirect(DESC(OTHER, "40123"), 0);
	run_ctinfo(f, &conn, R, CTH_CT_RELATED_REPLY, srv_seq, b->b, b->n);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	check_start(&c, "expected_connection");
	conn_v4();
	conn.ct_status |= CTH_CT_EXPECTED;
	fresh(f);
	srv(f, b);
	check_that(&c, f->n_exp == 0 && f->n_detach == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	check_start(&c, "udp_ignored");
	conn_free(&conn);
	conn_init(&conn, V4, UDP, CLIENT, 40000, SERVER, 1521);
	fresh(f);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "expect_refused_drops");
	f->expect_err = -EINVAL;
	b = redirect("", 0);
	put_data(b, DESC(OTHER, "40123"), 0);
	v = srv_at(f, srv_seq, b);
	check_that(&c, v == CTH_VERDICT_DROP, "verdict %d", v);
	check_that(&c, f->n_detach == 0, "detached");
	check_that(&c, priv_of()->version == 0, "a dropped packet changed the state");
	fresh(f);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT, "retransmission: verdict %d", v);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "retransmitted_redirect");
	b = redirect(DESC(OTHER, "40123"), 0);
	{
		uint32_t at = srv_seq;

		srv(f, b);
		fresh(f);
		srv_at(f, at, b);
	}
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);
}

/* ---------------------------------------------------------------- plugin: framing, hostile lengths */

static void test_plugin_framing(struct plugrun *f)
{
	struct buf *b, *d;
	struct check c;
	int v;

	case_v4(&c, f, "second_packet_in_segment");
	b = buf_new();
	put_pkt(b, TNS_TYPE_RESEND, "", 0, 0);
	put_data(b, "\x01\x02\x03", 0);
	put_redirect(b, DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "truncated_header");
	b = redirect(DESC(OTHER, "40123"), 0);
	{
		struct buf head = { .n = 5 }, rest = { .n = b->n - 5 };

		memcpy(head.b, b->b, 5);
		memcpy(rest.b, b->b + 5, rest.n);
		v = srv(f, &head);
		check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "head: %u expectations",
			   f->n_exp);
		check_that(&c, f->keep_asked && f->keep_off == 0, "head not kept");
		srv(f, &rest);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	}
	case_done(&c, f);

	case_v4(&c, f, "truncated_header_old_host");
	f->old_host = true;
	b = redirect(DESC(OTHER, "40123"), 0);
	{
		struct buf head = { .n = 5 }, rest = { .n = b->n - 5 };

		memcpy(head.b, b->b, 5);
		memcpy(rest.b, b->b + 5, rest.n);
		srv(f, &head);
		srv(f, &rest);
		check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	}
	case_done(&c, f);

	case_v4(&c, f, "redirect_across_segments");
	b = buf_new();
	put_pkt(b, TNS_TYPE_RESEND, "", 0, 0);
	put_redirect(b, DESC(OTHER, "40123"), 0);
	{
		size_t cut = 8 + 30;
		struct buf head = { .n = cut }, rest = { .n = b->n - cut };

		memcpy(head.b, b->b, cut);
		memcpy(rest.b, b->b + cut, rest.n);
		srv(f, &head);
		check_that(&c, f->n_exp == 0 && f->keep_asked && f->keep_off == 8,
			   "head: %u expectations, keep %d at %zu", f->n_exp, f->keep_asked,
			   f->keep_off);
		srv(f, &rest);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	}
	case_done(&c, f);

	case_v4(&c, f, "long_data_skipped");
	{
		/* a 3000-byte DATA packet in three segments; the middle one
		 * holds what looks like a REDIRECT and is not a header */
		struct buf one = { .n = 0 }, two = { .n = 0 }, three = { .n = 0 };
		uint8_t body[2992];

		memset(body, 'x', sizeof(body));
		put_pkt(&one, TNS_TYPE_DATA, body, sizeof(body), 0);
		one.n = 1000;
		put_redirect(&two, DESC(OTHER, "40123"), 0);
		memset(two.b + two.n, 'y', 1000 - two.n);
		two.n = 1000;
		memset(three.b, 'z', 1000);
		three.n = 1000;
		put_redirect(&three, DESC(OTHER, "40999"), 0);
		srv(f, &one);
		check_that(&c, f->n_exp == 0 && !f->keep_asked, "one: %u expectations", f->n_exp);
		srv(f, &two);
		check_that(&c, f->n_exp == 0 && f->n_log == 0, "two: %u expectations", f->n_exp);
		srv(f, &three);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40999);
	}
	case_done(&c, f);

	case_v4(&c, f, "long_data_retransmitted_start");
	{
		struct buf one = { .n = 0 };
		uint8_t body[2992] = { 0 };
		uint32_t at = srv_seq;

		put_redirect(&one, DESC(OTHER, "40123"), 0);
		put_pkt(&one, TNS_TYPE_DATA, body, sizeof(body), 0);
		one.n = 1000;
		srv(f, &one);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
		fresh(f);
		srv_at(f, at, &one);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	}
	case_done(&c, f);

	case_v4(&c, f, "recut_retransmission_keeps_framing");
	{
		/* A (1500 bytes) then B (3000): seg2 ends A and starts B; its
		 * retransmission starts inside A, which is no header, and must
		 * not lose the framing that skips seg3 (inside B) */
		static uint8_t stream[4500];
		struct buf one = { .n = 1000 }, two = { .n = 1000 }, three = { .n = 1000 };
		struct buf fake = { .n = 0 };
		uint8_t body[2992];
		uint32_t at;

		memset(body, 'x', sizeof(body));
		memset(stream, 0, 8);
		tns_put16(stream, 1500);
		stream[4] = TNS_TYPE_DATA;
		memcpy(stream + 8, body, 1492);
		memset(stream + 1500, 0, 8);
		tns_put16(stream + 1500, 3000);
		stream[1504] = TNS_TYPE_DATA;
		memcpy(stream + 1508, body, 2992);
		put_redirect(&fake, DESC(OTHER, "40123"), 0);
		memcpy(stream + 2000, fake.b, fake.n);
		memcpy(one.b, stream, 1000);
		memcpy(two.b, stream + 1000, 1000);
		memcpy(three.b, stream + 2000, 1000);
		srv(f, &one);
		at = srv_seq;
		srv(f, &two);
		srv_at(f, at, &two);
		check_that(&c, priv_of()->flags & TNS_PRIV_SYNC, "framing lost");
		srv(f, &three);
		check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	}
	case_done(&c, f);

	case_v4(&c, f, "lost_segment_resyncs");
	{
		struct buf one = { .n = 0 }, two = { .n = 0 };
		uint8_t body[2992] = { 0 };

		put_pkt(&one, TNS_TYPE_DATA, body, sizeof(body), 0);
		one.n = 1000;
		srv(f, &one);
		srv_seq += 5000;    /* beyond the packet: bytes went by unseen */
		put_redirect(&two, DESC(OTHER, "40123"), 0);
		srv(f, &two);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	}
	case_done(&c, f);

	case_v4(&c, f, "data_length_beyond_packet");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b + 8, (uint32_t)(b->n - 10 + 1));
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "data_length_huge");
	tns_put16(b->b + 8, 0xffff);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "data_length_shorter_cuts_descriptor");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b + 8, 20);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "header_length_beyond_segment");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b, 60000);
	srv(f, b);
	check_that(&c, f->n_exp == 0 && !f->keep_asked, "%u expectations, kept %d", f->n_exp,
		   f->keep_asked);
	case_done(&c, f);

	case_v4(&c, f, "header_length_kept_then_garbage");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b, (uint32_t)(b->n + 100));
	srv(f, b);
	check_that(&c, f->n_exp == 0 && f->keep_asked, "%u expectations, kept %d", f->n_exp,
		   f->keep_asked);
	d = buf_new();
	memset(d->b, '(', 100);
	d->n = 100;
	srv(f, d);
	/* the descriptor is whole inside its data length: a lying header
	 * length changes nothing else */
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "header_length_short");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b, 9);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "header_length_below_8");
	tns_put16(b->b, 3);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	check_that(&c, !(priv_of()->flags & TNS_PRIV_SYNC), "still in sync");
	case_done(&c, f);

	case_v4(&c, f, "header_length_cuts_descriptor");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b, 40);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "redirect_too_long_to_keep");
	b = redirect(DESC(OTHER, "40123"), 0);
	tns_put16(b->b, TNS_KEEP_MAX + 1);
	srv(f, b);
	check_that(&c, f->n_exp == 0 && !f->keep_asked && f->n_log == 1, "kept %d",
		   f->keep_asked);
	case_done(&c, f);

	case_v4(&c, f, "short_redirect");
	b = buf_new();
	put_pkt(b, TNS_TYPE_REDIRECT, "\x00", 1, 0);
	put_data(b, DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "garbage_segment");
	b = buf_new();
	memcpy(b->b, "HELLO (HOST=10.0.0.7)(PORT=1)", 29);
	b->n = 29;
	srv(f, b);
	check_that(&c, f->n_exp == 0 && !(priv_of()->flags & TNS_PRIV_SYNC), "%u expectations",
		   f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "corrupt_state_reset");
	memset(conn.priv, 0xa5, sizeof(conn.priv));
	b = redirect(DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	check_that(&c, priv_of()->version == TNS_PRIV_VERSION, "version %u", priv_of()->version);
	case_done(&c, f);

	case_v4(&c, f, "unaligned_state");
	{
		uint8_t raw[CTH_PRIV_MAX + 1] = { 0 };

		b = redirect("", 0);
		run_state(f, &conn, R, CTH_CT_ESTABLISHED_REPLY, srv_seq, b->b, b->n, raw + 1);
		check_that(&c, raw[1] == TNS_PRIV_VERSION && (raw[2] & TNS_PRIV_DATA_NEXT),
			   "state %u %u", raw[1], raw[2]);
	}
	case_done(&c, f);
}

/* ---------------------------------------------------------------- plugin: NAT */

/*
 * One REDIRECT through NAT: the server (NULL: SERVER or SERVER6) seen by
 * the client as dnat, the client seen by the server as snat (port 61000),
 * these ports taken.  It is accepted and gives: tries expectations (0: not
 * checked), the last one to dst:port mapped back to nat_addr:nat_port
 * (dst NULL: not checked); the segment sent with the descriptor out, every
 * length right (out NULL: no edit, the segment unchanged); detaches (-1:
 * not checked).
 */
static const struct nat_case {
	const char *name;
	bool v6;
	const char *server, *snat, *dnat;
	uint16_t busy[2];
	const char *desc;
	unsigned int how;
	unsigned int tries;
	const char *dst;
	unsigned int port;
	const char *nat_addr;
	unsigned int nat_port;
	const char *out;
	int detaches;
} nat_cases[] = {
	{ "snat_same_server_no_edit", .snat = PUB, .desc = DESC(SERVER, "40123"),
	  .dst = SERVER, .port = 40123, .nat_addr = SERVER, .nat_port = 40123, .detaches = 1 },
	{ "snat_port_taken", .snat = PUB, .busy = { 40123, 40124 }, .desc = DESC(SERVER, "40123"),
	  .how = B_CSUM, .tries = 3, .dst = SERVER, .port = 40125, .nat_addr = SERVER,
	  .nat_port = 40123, .out = DESC(SERVER, "40125"), .detaches = -1 },
	{ "snat_port_shorter", .snat = PUB, .busy = { 9999 }, .desc = DESC(SERVER, "9999"),
	  .dst = SERVER, .port = 10000, .nat_addr = SERVER, .nat_port = 9999,
	  .out = DESC(SERVER, "10000"), .detaches = -1 },
	{ "dnat_server_grows", .dnat = PUB, .desc = DESC(SERVER, "40123"),
	  .dst = PUB, .port = 40123, .nat_addr = SERVER, .nat_port = 40123,
	  .out = DESC(PUB, "40123"), .detaches = 1 },
	{ "dnat_server_shrinks", .server = "10.100.200.250", .dnat = "1.2.3.4",
	  .desc = DESC("10.100.200.250", "40123"), .how = B_CSUM, .dst = "1.2.3.4", .port = 40123,
	  .nat_addr = "10.100.200.250", .nat_port = 40123, .out = DESC("1.2.3.4", "40123"),
	  .detaches = -1 },
	{ "dnat_server_wide", .dnat = PUB, .desc = DESC(SERVER, "40123"), .how = B_WIDE | B_CSUM,
	  .out = DESC(PUB, "40123"), .detaches = -1 },
	{ "dnat_public_address_announced", .dnat = PUB, .desc = DESC(PUB, "40123"),
	  .dst = PUB, .port = 40123, .nat_addr = SERVER, .nat_port = 40123, .detaches = -1 },
	{ "dnat_and_snat", .dnat = PUB, .snat = "10.0.0.1", .desc = DESC(SERVER, "40123"),
	  .dst = PUB, .port = 40123, .nat_addr = SERVER, .nat_port = 40123,
	  .out = DESC(PUB, "40123"), .detaches = -1 },
	{ "dnat_ipv6", .v6 = true, .dnat = PUB6,
	  .desc = DESC("2001:0db8:0002:0000:0000:0000:0000:0005", "40123"),
	  .dst = PUB6, .port = 40123, .nat_addr = SERVER6, .nat_port = 40123,
	  .out = DESC(PUB6, "40123"), .detaches = -1 },
	{ "dnat_ipv6_brackets_kept", .v6 = true, .dnat = PUB6, .busy = { 40123 },
	  .desc = DESC("[" SERVER6 "]", "40123"), .dst = PUB6, .port = 40124,
	  .nat_addr = SERVER6, .nat_port = 40123, .out = DESC("[" PUB6 "]", "40124"),
	  .detaches = -1 },
	{ "dnat_spaces_kept", .dnat = PUB, .busy = { 1522 },
	  .desc = "(address=(host = " SERVER " )(port= 1522 ))",
	  .out = "(address=(host = " PUB " )(port= 1523 ))", .detaches = -1 },
};

static void nat_case_conn(struct plugrun *f, const struct nat_case *t)
{
	conn_free(&conn);
	if (t->v6)
		conn_init(&conn, V6, TCP, CLIENT6, 40000, t->server ? t->server : SERVER6, 1521);
	else
		conn_init(&conn, V4, TCP, CLIENT, 40000, t->server ? t->server : SERVER, 1521);
	srv_seq = 0x10000000;
	if (t->dnat)
		conn_dnat(&conn, t->dnat, 1521);
	if (t->snat)
		conn_snat(&conn, t->snat, 61000);
	fresh(f);
	for (size_t k = 0; k < ARRAY_LEN(t->busy) && t->busy[k]; k++)
		f->busy[f->n_busy++] = t->busy[k];
}

static void test_nat_cases(struct plugrun *f)
{
	for (size_t i = 0; i < ARRAY_LEN(nat_cases); i++) {
		const struct nat_case *t = &nat_cases[i];
		int family = t->v6 ? V6 : V4;
		struct buf *b;
		struct check c;
		int v;

		check_start(&c, "%s", t->name);
		nat_case_conn(f, t);
		b = redirect(t->desc, t->how);
		v = srv(f, b);
		check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_that(&c, !t->tries || f->n_exp == t->tries, "%u tries, want %u", f->n_exp,
			   t->tries);
		if (t->dst)
			check_nat_exp(&c, f, family, t->dst, t->port, t->nat_addr, t->nat_port);
		if (t->out) {
			size_t want = b->n - strlen(t->desc) + strlen(t->out);

			check_rewritten(&c, f, false, t->how & B_WIDE, t->out);
			check_that(&c, f->out_len == want, "length %zu, want %zu", f->out_len, want);
		} else {
			check_no_edit(&c, f);
			check_same(&c, f, b);
		}
		if (t->detaches >= 0)
			check_detached(&c, f, (unsigned int)t->detaches);
		case_done(&c, f);
	}
}

static void test_plugin_nat(struct plugrun *f)
{
	struct buf *b, *d;
	struct check c;
	int v;

	test_nat_cases(f);

	check_start(&c, "dnat_next_data");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	b = redirect("", 0);
	srv(f, b);
	check_no_edit(&c, f);
	d = buf_new();
	put_data(d, DESC(SERVER, "40123"), B_CSUM);
	{
		uint32_t at = srv_seq;

		srv(f, d);
		check_nat_exp(&c, f, V4, PUB, 40123, SERVER, 40123);
		check_rewritten(&c, f, true, false, DESC(PUB, "40123"));
		check_that(&c, f->out[8] == 0 && f->out[9] == 0, "data flags changed");
		/* its retransmission is rewritten the same way */
		fresh(f);
		srv_at(f, at, d);
		check_nat_exp(&c, f, V4, PUB, 40123, SERVER, 40123);
		check_rewritten(&c, f, true, false, DESC(PUB, "40123"));
		/* and a later DATA packet is not read */
		fresh(f);
		srv(f, d);
		check_that(&c, f->n_exp == 0 && f->n_mangle == 0, "later DATA read");
	}
	case_done(&c, f);

	check_start(&c, "dnat_two_packets_in_segment");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	b = buf_new();
	put_pkt(b, TNS_TYPE_RESEND, "", 0, 0);
	put_redirect(b, DESC(SERVER, "40123"), 0);
	put_pkt(b, TNS_TYPE_NULL, "", 0, 0);
	srv(f, b);
	check_nat_exp(&c, f, V4, PUB, 40123, SERVER, 40123);
	{
		/* the middle packet grew by 3, the others are untouched */
		struct buf *w = buf_new();

		put_pkt(w, TNS_TYPE_RESEND, "", 0, 0);
		put_redirect(w, DESC(PUB, "40123"), 0);
		put_pkt(w, TNS_TYPE_NULL, "", 0, 0);
		check_that(&c, f->out_len == w->n && memcmp(f->out, w->b, w->n) == 0,
			   "segment differs");
	}
	case_done(&c, f);

	check_start(&c, "snat_third_host");
	conn_v4();
	conn_snat(&conn, PUB, 61000);
	fresh(f);
	b = redirect(DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	check_no_edit(&c, f);
	check_detached(&c, f, 1);
	case_done(&c, f);

	check_start(&c, "dnat_third_host");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	b = redirect(DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	check_no_edit(&c, f);
	check_that(&c, f->n_log == 1 && strstr(f->log, "DNAT"), "log '%s'", f->log);
	case_done(&c, f);

	check_start(&c, "nat_no_free_port");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	f->busy_left = 1000;
	b = redirect(DESC(SERVER, "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_DROP, "verdict %d", v);
	check_that(&c, f->n_exp == TNS_NAT_PORT_TRIES, "%u tries", f->n_exp);
	check_that(&c, f->n_detach == 0 && f->n_mangle == 0, "detached or edited");
	case_done(&c, f);

	check_start(&c, "nat_port_search_stops_at_65535");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	f->busy_left = 1000;
	b = redirect(DESC(SERVER, "65530"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_DROP && f->n_exp == 6, "verdict %d, %u tries", v,
		   f->n_exp);
	case_done(&c, f);

	check_start(&c, "nat_mangle_fails");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	f->mangle_err = -ENOMEM;
	b = redirect(DESC(SERVER, "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_DROP, "verdict %d", v);
	check_that(&c, f->n_ctl == 1 && f->ctl[0].op == CTH_EXPECT_OP_REMOVE &&
		   f->ctl[0].exp.dport == 40123, "expectation not taken back");
	check_that(&c, f->n_detach == 0, "detached");
	case_done(&c, f);

	check_start(&c, "nat_split_redirect_untranslated");
	conn_v4();
	conn_dnat(&conn, PUB, 1521);
	fresh(f);
	b = redirect(DESC(SERVER, "40123"), 0);
	{
		struct buf head = { .n = 20 }, rest = { .n = b->n - 20 };

		memcpy(head.b, b->b, 20);
		memcpy(rest.b, b->b + 20, rest.n);
		srv(f, &head);
		check_that(&c, f->keep_asked, "not kept");
		v = srv(f, &rest);
		check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 0 && f->n_mangle == 0,
			   "verdict %d, %u expectations, %u edits", v, f->n_exp, f->n_mangle);
	}
	case_done(&c, f);

	/* the largest segment: IPv6's, its payload length counting the TCP
	 * header; the address grows the TNS length past 0xffff */
	check_start(&c, "nat_data_length_overflow");
	conn_v6();
	conn_dnat(&conn, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 1521);
	fresh(f);
	{
		/* a REDIRECT of n bytes cannot grow by 25: built by hand, a
		 * struct buf holds 8 KiB */
		const char *desc = DESC(SERVER6, "40123");
		const size_t n = 65535 - 20;
		size_t dlen = n - 10;
		uint8_t *pkt = malloc(n);

		if (!pkt)
			abort();
		memset(pkt, ' ', n);
		memset(pkt, 0, 8);
		tns_put16(pkt, (uint32_t)n);
		pkt[4] = TNS_TYPE_REDIRECT;
		tns_put16(pkt + 8, (uint32_t)dlen);
		memcpy(pkt + 10, desc, strlen(desc));
		v = run_ctinfo(f, &conn, R, CTH_CT_ESTABLISHED_REPLY, srv_seq, pkt, n);
		check_that(&c, v == CTH_VERDICT_DROP, "verdict %d", v);
		check_that(&c, f->n_ctl == 1 && f->ctl[0].op == CTH_EXPECT_OP_REMOVE,
			   "expectation not taken back");
		free(pkt);
	}
	case_done(&c, f);
}

/* ---------------------------------------------------------------- plugin: fuzzing */

/* Do the packets tile the bytes, each REDIRECT with a data length that
 * fits?  An edited segment that did must still do. */
static bool segment_tiles(const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		struct tns_hdr h;

		if (tns_hdr_parse(p + off, n - off, &h) < 0 || h.len > n - off)
			return false;
		if (h.type == TNS_TYPE_REDIRECT && h.len >= 10 &&
		    tns_get16(p + off + 8) > h.len - 10)
			return false;
		off += h.len;
	}
	return true;
}

static void test_plugin_fuzz(struct plugrun *f)
{
	const struct mutate_how how = { "()= HOSTPRThostpr:.0123456789\x05\x06\x00", 6, 7, 6 };
	struct check c;
	unsigned int bad = 0, tiles = 0, exps = 0, edits = 0;
	char why[256] = "";

	check_start(&c, "plugin_fuzz");
	for (unsigned int i = 0; i < 20000; i++) {
		struct buf *b = buf_new();
		unsigned int mode = rng_below(8);
		size_t n;

		if (mode & 1)
			conn_v4();
		else
			conn_v6();
		if (mode & 2)
			conn_dnat(&conn, mode & 1 ? PUB : PUB6, 1521);
		if (mode & 4)
			conn_snat(&conn, mode & 1 ? "10.9.9.9" : "2001:db8:9::9", 61000);
		fresh(f);
		if (rng_below(4) == 0)
			f->busy_left = rng_below(4);
		if (rng_below(3) == 0)
			put_redirect(b, "", rng_below(2) ? B_WIDE : 0);
		if (rng_below(2))
			put_redirect(b, mode & 1 ? DESC(SERVER, "40123") : DESC(SERVER6, "40123"),
				     rng_below(4));
		else
			put_data(b, mode & 1 ? DESC(OTHER, "1522") : DESC("2001:db8:2::7", "1522"),
				 rng_below(4));
		n = b->n;
		fuzz_mutate(&how, b->b, &n, sizeof(b->b));
		b->n = n;
		if (rng_below(4) == 0 && n > 1) {
			/* in two segments */
			struct buf head = { .n = rng_below((uint32_t)n) };

			memcpy(head.b, b->b, head.n);
			srv(f, &head);
			if (f->n_bad && !bad++)
				snprintf(why, sizeof(why), "%s", f->bad);
			memmove(b->b, b->b + head.n, n - head.n);
			b->n = n - head.n;
		}
		srv(f, b);
		exps += f->n_exp;
		edits += f->n_edit;
		if (f->n_bad && !bad++)
			snprintf(why, sizeof(why), "%s", f->bad);
		if (f->n_edit && segment_tiles(b->b, b->n) && conn_kept(&conn, R) == 0) {
			tiles++;
			if (!segment_tiles(f->out, f->out_len) && !bad++) {
				snprintf(why, sizeof(why), "edited segment %u no longer tiles", i);
				if (getenv("TNS_DEBUG")) {
					for (size_t k = 0; k < b->n; k++)
						fprintf(stderr, "%02x", b->b[k]);
					fprintf(stderr, "\n");
					for (size_t k = 0; k < f->out_len; k++)
						fprintf(stderr, "%02x", f->out[k]);
					fprintf(stderr, "\nmode %u\n", mode);
				}
			}
		}
	}
	check_that(&c, bad == 0, "%u bad: %s", bad, why);
	check_that(&c, exps > 1000 && edits > 100 && tiles > 100,
		   "too little reached: %u expectations, %u edits, %u tiled", exps, edits, tiles);
	check_end(&c);
	conn_free(&conn);
}

/* ---------------------------------------------------------------- plugin: failover */

/*
 * Failover (issue 18): conntrackd gives the backup the helper's name but
 * not its state (zeroed by the kernel), and no kept bytes (they live in
 * the other daemon's memory).  With no framing known, a server segment is
 * read as starting a TNS packet, as on a new connection, where the
 * server's stream really starts there and its first packet is the one
 * that matters; what is not a plausible header stays unread.
 */
static void test_plugin_failover(struct plugrun *f)
{
	struct buf *b;
	struct check c;
	int v;

	case_v4(&c, f, "failover_zero_state_redirect");
	srv_seq = 0x7000;
	b = redirect(DESC(OTHER, "40123"), 0);
	v = srv(f, b);
	check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "failover_mid_packet_then_redirect");
	{
		/* the second segment of a DATA packet: no header at its start */
		struct buf mid = { .n = 700 };

		memset(mid.b, 'q', mid.n);
		v = srv(f, &mid);
		check_that(&c, v == CTH_VERDICT_ACCEPT && f->n_exp == 0 && !f->keep_asked,
			   "middle: %u expectations", f->n_exp);
		check_that(&c, !(priv_of()->flags & TNS_PRIV_SYNC), "framed the middle");
		b = redirect(DESC(OTHER, "40124"), 0);
		srv(f, b);
		check_plain_exp(&c, f, V4, CLIENT, OTHER, 40124);
	}
	case_done(&c, f);

	/* the empty REDIRECT went by before the failover: its DATA packet,
	 * seen alone, is session data like any other */
	case_v4(&c, f, "failover_data_after_lost_empty_redirect");
	b = buf_new();
	put_data(b, DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_that(&c, f->n_exp == 0, "%u expectations", f->n_exp);
	case_done(&c, f);

	case_v4(&c, f, "stale_state_version_zero");
	{
		struct tns_priv p = { .version = 0, .flags = TNS_PRIV_SYNC | TNS_PRIV_DATA_NEXT,
				      .next_seq = 0x10000100, .pkt_start = 0x0fffff00 };

		memcpy(conn.priv, &p, sizeof(p));
	}
	b = redirect(DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "stale_state_inside_huge_packet");
	{
		struct tns_priv p = { .version = TNS_PRIV_VERSION, .flags = TNS_PRIV_SYNC,
				      .next_seq = 0x40000000, .pkt_start = 0x00000100 };

		memcpy(conn.priv, &p, sizeof(p));
	}
	b = redirect(DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	case_v4(&c, f, "stale_state_behind");
	{
		/* framing from older packets: the segment comes after it */
		struct tns_priv p = { .version = TNS_PRIV_VERSION, .flags = TNS_PRIV_SYNC,
				      .next_seq = 0x0ffff000, .pkt_start = 0x0fffe000 };

		memcpy(conn.priv, &p, sizeof(p));
	}
	b = redirect(DESC(OTHER, "40123"), 0);
	srv(f, b);
	check_plain_exp(&c, f, V4, CLIENT, OTHER, 40123);
	case_done(&c, f);

	check_start(&c, "state_random_20k");
	{
		unsigned int bad = 0;
		char why[256] = "";

		for (unsigned int i = 0; i < 20000; i++) {
			conn_v4();
			fresh(f);
			for (size_t k = 0; k < sizeof(conn.priv); k++)
				conn.priv[k] = (uint8_t)rng_next();
			if (rng_below(2))
				conn.priv[0] = TNS_PRIV_VERSION;
			if (rng_below(2))
				conn.priv[2] = conn.priv[3] = 0;
			b = redirect(DESC(OTHER, "40123"), rng_below(2) ? B_WIDE : 0);
			if (rng_below(2))
				memcpy(conn.priv + 4, &srv_seq, 4);
			v = srv(f, b);
			if ((v != CTH_VERDICT_ACCEPT && v != CTH_VERDICT_DROP) || f->n_bad ||
			    f->n_exp > 1) {
				if (!bad++)
					snprintf(why, sizeof(why), "round %u: verdict %d, %u exp: %.100s",
						 i, v, f->n_exp, f->bad);
			}
			if (conn.priv[0] != TNS_PRIV_VERSION && v == CTH_VERDICT_ACCEPT && !bad++)
				snprintf(why, sizeof(why), "round %u: version %u", i, conn.priv[0]);
		}
		check_that(&c, bad == 0, "%u bad: %s", bad, why);
	}
	check_end(&c);
	conn_free(&conn);
}

/* ---------------------------------------------------------------- plugin: counters */

/* What the plugin counts (cth_count()), as the host keeps it: one server
 * segment of each outcome (behind the segment before when there is one),
 * every other counter unmoved. */
static void test_plugin_counters(struct plugrun *f)
{
	enum { S_REDIRECT, S_SERVER_NAT, S_HOST_NAME, S_EMPTY_THEN_DATA, S_ACCEPT, S_GARBAGE };
	static const struct {
		const char *name;
		int seg;
		const char *counts;
	} cases[] = {
		{ "counters_redirect", S_REDIRECT, "redirects=1,expectations=1" },
		{ "counters_redirect_nat", S_SERVER_NAT, "redirects=1,expectations=1" },
		{ "counters_host_name", S_HOST_NAME, "redirects=1,host_names=1" },
		{ "counters_empty_redirect_then_data", S_EMPTY_THEN_DATA, "expectations=1" },
		{ "counters_accept", S_ACCEPT, "" },
		{ "counters_garbage", S_GARBAGE, "parse_errors=1" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct counts before;
		struct buf *b = buf_new();
		struct check c;
		int v;

		case_v4(&c, f, cases[i].name);
		switch (cases[i].seg) {
		case S_REDIRECT:
			put_redirect(b, DESC(OTHER, "40123"), 0);
			break;
		case S_SERVER_NAT:
			conn_dnat(&conn, PUB, 1521);
			put_redirect(b, DESC(SERVER, "40123"), 0);
			break;
		case S_HOST_NAME:
			put_redirect(b, DESC("db.example.org", "40123"), 0);
			break;
		case S_EMPTY_THEN_DATA:
			srv(f, redirect("", 0));
			put_data(b, DESC(OTHER, "40123"), 0);
			break;
		case S_ACCEPT:
			put_pkt(b, TNS_TYPE_ACCEPT, "\x01\x3a\x00\x00", 4, 0);
			break;
		default:
			/* a type no TNS packet has */
			put_pkt(b, 0, "\x00\x00", 2, 0);
			break;
		}
		counts_take(f, &before);
		v = srv(f, b);
		check_that(&c, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_counts(&c, f, &before, cases[i].counts);
		case_done(&c, f);
	}
}

int main(void)
{
	struct plugrun *f;

	for (size_t i = 0; i < ARRAY_LEN(hdr_cases); i++)
		test_hdr_case(&hdr_cases[i]);
	test_hdr_limits();
	for (size_t i = 0; i < ARRAY_LEN(desc_cases); i++)
		test_desc_case(&desc_cases[i]);
	test_desc_prefixes();
	test_format();
	test_parse_fuzz();

	f = plugrun_new();
	test_plugin_desc();
	test_plugin_config();
	test_plugin_plain(f);
	test_plugin_framing(f);
	test_plugin_nat(f);
	test_plugin_failover(f);
	test_plugin_counters(f);
	test_plugin_fuzz(f);
	plugrun_free(f);
	conn_free(&conn);

	return check_exit();
}
