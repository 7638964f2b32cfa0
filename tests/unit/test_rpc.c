/* SPDX-License-Identifier: MIT */
/*
 * rpc plugin unit test: the pure parser (RPC call and reply headers,
 * GETPORT and rpcbind arguments and results, universal addresses, TCP
 * record marking) and the plugin's packet callback on the daemon's host
 * code (plugrun.h): portmapper v2 GETPORT and rpcbind v3/v4 GETADDR and v4
 * GETVERSADDR over UDP and TCP (several fragments per record, several
 * records per segment, records across segments), IPv4 and IPv6, calls in
 * flight paired by XID, everything a reply may get wrong, NAT (follow the
 * master, port and universal address rewrites with their XDR lengths),
 * and deterministic fuzzing.
 *
 * Output: one "PASS name" / "FAIL name: why" line per check; exit status 1
 * when anything failed.
 */
#define PLUGTEST_RNG_SEED 0x0c0ffee5eed0111ull
#include "plugtest.h"

#include "../../plugins/rpc/rpc.h"

/* ---------------------------------------------------------------- XDR builder */

struct xb {
	uint8_t b[8192];
	size_t n;
};

static void xb_u32(struct xb *x, uint32_t v)
{
	if (x->n + 4 > sizeof(x->b))
		abort();
	rpc_put32(x->b + x->n, v);
	x->n += 4;
}

static void xb_bytes(struct xb *x, const void *p, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;

	if (x->n + 4 + padded > sizeof(x->b))
		abort();
	xb_u32(x, (uint32_t)n);
	memcpy(x->b + x->n, p, n);
	memset(x->b + x->n + n, 0, padded - n);
	x->n += padded;
}

static void xb_str(struct xb *x, const char *s)
{
	xb_bytes(x, s, strlen(s));
}

/* AUTH_SYS-sized credential of n bytes (contents do not matter). */
static void xb_auth(struct xb *x, uint32_t flavour, size_t n)
{
	uint8_t body[512];

	memset(body, 0x41, sizeof(body));
	xb_u32(x, flavour);
	xb_bytes(x, body, n);
}

static void xb_call_head(struct xb *x, uint32_t xid, uint32_t vers, uint32_t proc)
{
	x->n = 0;
	xb_u32(x, xid);
	xb_u32(x, RPC_CALL);
	xb_u32(x, 2);
	xb_u32(x, RPC_PMAP_PROG);
	xb_u32(x, vers);
	xb_u32(x, proc);
	xb_auth(x, 1, 24);      /* AUTH_SYS-like */
	xb_auth(x, 0, 0);       /* AUTH_NONE verifier */
}

static struct xb getport(uint32_t xid, uint32_t prog, uint32_t prot)
{
	struct xb x;

	xb_call_head(&x, xid, 2, 3);
	xb_u32(&x, prog);
	xb_u32(&x, 3);
	xb_u32(&x, prot);
	xb_u32(&x, 0);
	return x;
}

static struct xb getaddr(uint32_t xid, uint32_t vers, uint32_t proc, const char *netid)
{
	struct xb x;

	xb_call_head(&x, xid, vers, proc);
	xb_u32(&x, 100005);
	xb_u32(&x, 3);
	xb_str(&x, netid);
	xb_str(&x, "");
	xb_str(&x, "superuser");
	return x;
}

static void xb_reply_head(struct xb *x, uint32_t xid, uint32_t accept_stat)
{
	x->n = 0;
	xb_u32(x, xid);
	xb_u32(x, RPC_REPLY);
	xb_u32(x, 0);           /* MSG_ACCEPTED */
	xb_auth(x, 0, 0);
	xb_u32(x, accept_stat);
}

static struct xb port_reply(uint32_t xid, uint32_t port)
{
	struct xb x;

	xb_reply_head(&x, xid, 0);
	xb_u32(&x, port);
	return x;
}

static struct xb uaddr_reply(uint32_t xid, const char *uaddr)
{
	struct xb x;

	xb_reply_head(&x, xid, 0);
	xb_str(&x, uaddr);
	return x;
}

static struct xb denied_reply(uint32_t xid)
{
	struct xb x = { .n = 0 };

	xb_u32(&x, xid);
	xb_u32(&x, RPC_REPLY);
	xb_u32(&x, 1);          /* MSG_DENIED */
	xb_u32(&x, 1);          /* AUTH_ERROR */
	xb_u32(&x, 1);
	return x;
}

/* The message as a TCP record of nfrag fragments (the last one takes
 * what is left), appended to out. */
static void xb_record(struct xb *out, const struct xb *msg, unsigned int nfrag)
{
	size_t off = 0, each = nfrag > 1 ? msg->n / nfrag : msg->n;

	for (unsigned int i = 0; i < nfrag; i++) {
		size_t n = i + 1 == nfrag ? msg->n - off : each;

		if (out->n + 4 + n > sizeof(out->b))
			abort();
		rpc_put32(out->b + out->n, (uint32_t)n | (i + 1 == nfrag ? RPC_MARK_LAST : 0));
		memcpy(out->b + out->n + 4, msg->b + off, n);
		out->n += 4 + n;
		off += n;
	}
}

static struct xb rec(const struct xb *msg, unsigned int nfrag)
{
	struct xb out = { .n = 0 };

	xb_record(&out, msg, nfrag);
	return out;
}

/* ---------------------------------------------------------------- connections */

#define CLIENT4 "192.168.1.10"
#define SERVER4 "198.51.100.2"
#define PUB4 "203.0.113.5"
#define OTHER4 "192.0.2.99"
#define CLIENT6 "2001:db8::10"
#define SERVER6 "2001:db8:1::2"
#define PUB6 "2001:db8:ffff::1"

static uint32_t seq_of[2];

/* The client's port 812 to the server's 111; the server's sequence
 * numbers wrap soon. */
static void rpc_conn(struct conn *c, int family, uint8_t proto)
{
	conn_free(c);
	seq_of[O] = 1000;
	seq_of[R] = 0xfffffff0u;
	if (family == V6)
		conn_init(c, V6, proto, CLIENT6, 812, SERVER6, 111);
	else
		conn_init(c, V4, proto, CLIENT4, 812, SERVER4, 111);
}

static int run_x(struct plugrun *f, struct conn *c, enum cth_dir dir, const struct xb *x)
{
	int v = run_ctinfo(f, c, dir, established(dir), seq_of[dir], x->b, x->n);

	if (v == CTH_VERDICT_ACCEPT)
		seq_of[dir] += (uint32_t)x->n;
	return v;
}

/* A call then its reply; over TCP both as one-fragment records. */
static int exchange(struct plugrun *f, struct conn *c, const struct xb *call, const struct xb *reply)
{
	bool tcp = c->t[O].proto == TCP;
	struct xb a = tcp ? rec(call, 1) : *call, b = tcp ? rec(reply, 1) : *reply;

	run_x(f, c, O, &a);
	if (f->n_exp || f->n_bad)
		return -1;
	return run_x(f, c, R, &b);
}

/* A copy of the connection's state (the host does not align it). */
static const struct rpc_priv *priv_of(const struct conn *c)
{
	static struct rpc_priv p;

	memcpy(&p, c->priv, sizeof(p));
	return &p;
}

static bool permanent_of(const struct conn *c)
{
	struct rpc_config cfg;

	memcpy(&cfg, c->cfg, sizeof(cfg));
	return cfg.permanent;
}

static unsigned int calls_pending(const struct conn *c)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < RPC_CALLS; i++)
		n += priv_of(c)->call[i] != 0;
	return n;
}

/* The expectation a plain reply should give. */
static void check_exp(struct check *ck, const struct plugrun *f, unsigned int i, int family,
		      uint8_t proto, const char *src, const char *dst, uint16_t port)
{
	const struct cth_expect *e = &f->exp[i];
	char a[64], b[64];

	if (!check_that(ck, f->n_exp > i, "%u expectations, want #%u", f->n_exp, i))
		return;
	check_that(ck, e->class == RPC_CLASS_PROGRAM && e->family == family && e->proto == proto,
		   "class %u family %u proto %u, want proto %u", e->class, e->family, e->proto,
		   proto);
	check_that(ck, e->sport == 0 && e->dport == port, "ports %u -> %u, want any -> %u",
		   e->sport, e->dport, port);
	check_that(ck, addr_is(family, &e->src, src), "src %s, want %s",
		   addr_str(family, &e->src, a, sizeof(a)), src);
	check_that(ck, addr_is(family, &e->dst, dst), "dst %s, want %s",
		   addr_str(family, &e->dst, b, sizeof(b)), dst);
}

static void check_plain(struct check *ck, const struct plugrun *f, unsigned int n)
{
	check_clean(ck, f);
	check_no_edit(ck, f);
	check_that(ck, f->n_exp == n, "%u expectations, want %u", f->n_exp, n);
	for (unsigned int i = 0; i < f->n_exp && i < n; i++)
		check_that(ck, !(f->exp[i].flags & (CTH_EXPECT_NAT | CTH_EXPECT_PERMANENT |
						     CTH_EXPECT_HELPER | CTH_EXPECT_ANY_SRC)) &&
			       f->exp_how[i] == 0, "flags %#x how %#x", f->exp[i].flags,
			   f->exp_how[i]);
}

/* ---------------------------------------------------------------- parser */

struct uaddr_case {
	const char *name;
	int family;
	const char *text;
	int ret;
	const char *addr;
	uint16_t port;
};

static const struct uaddr_case uaddr_cases[] = {
	{ "v4", V4, "198.51.100.2.8.1", 0, "198.51.100.2", 2049 },
	{ "v4_port_0_255", V4, "10.0.0.1.0.255", 0, "10.0.0.1", 255 },
	{ "v4_port_max", V4, "10.0.0.1.255.255", 0, "10.0.0.1", 65535 },
	{ "v4_wildcard", V4, "0.0.0.0.3.235", 0, "0.0.0.0", 1003 },
	{ "v4_leading_zero_port", V4, "10.0.0.1.008.001", 0, "10.0.0.1", 2049 },
	{ "v4_port_256", V4, "10.0.0.1.256.1", -EINVAL, NULL, 0 },
	{ "v4_port_4_digits", V4, "10.0.0.1.0001.1", -EINVAL, NULL, 0 },
	{ "v4_no_port", V4, "10.0.0.1", -EINVAL, NULL, 0 },
	{ "v4_one_port_byte", V4, "10.0.0.1.8", -EINVAL, NULL, 0 },
	{ "v4_empty_port_byte", V4, "10.0.0.1..1", -EINVAL, NULL, 0 },
	{ "v4_trailing_dot", V4, "10.0.0.1.8.", -EINVAL, NULL, 0 },
	{ "v4_signed_port", V4, "10.0.0.1.+8.1", -EINVAL, NULL, 0 },
	{ "v4_three_octets", V4, "10.0.1.8.1", -EINVAL, NULL, 0 },
	{ "v4_as_v6", V6, "10.0.0.1.8.1", -EINVAL, NULL, 0 },
	{ "v6", V6, "2001:db8:1::2.8.1", 0, "2001:db8:1::2", 2049 },
	{ "v6_unspecified", V6, "::.0.111", 0, "::", 111 },
	{ "v6_mapped", V6, "::ffff:10.0.0.1.8.1", 0, "::ffff:10.0.0.1", 2049 },
	{ "v6_as_v4", V4, "2001:db8::1.8.1", -EINVAL, NULL, 0 },
	{ "v6_scope", V6, "fe80::1%eth0.8.1", -EINVAL, NULL, 0 },
	{ "v6_no_port", V6, "2001:db8::1", -EINVAL, NULL, 0 },
	{ "empty", V4, "", -EINVAL, NULL, 0 },
	{ "dots", V4, "..", -EINVAL, NULL, 0 },
	{ "nul_inside", V4, "10.0\0.0.1.8.1", -EINVAL, NULL, 0 },
};

static void test_uaddr_parse(void)
{
	for (size_t i = 0; i < ARRAY_LEN(uaddr_cases); i++) {
		const struct uaddr_case *uc = &uaddr_cases[i];
		size_t len = strlen(uc->text) + (strcmp(uc->name, "nul_inside") == 0 ? 8 : 0);
		uint8_t *buf = dup_exact(uc->text, len);
		union cth_addr a;
		uint16_t port = 0;
		struct check ck;
		int ret;

		check_start(&ck, "uaddr_parse_%s", uc->name);
		ret = rpc_uaddr_parse(uc->family, (const char *)buf, len, &a, &port);
		if (check_ret(&ck, ret, uc->ret) && ret == 0) {
			check_that(&ck, addr_is(uc->family, &a, uc->addr), "address differs");
			check_that(&ck, port == uc->port, "port %u want %u", port, uc->port);
		}
		check_end(&ck);
		free(buf);
	}
}

static void test_uaddr_format(void)
{
	static const struct {
		int family;
		const char *addr;
		uint16_t port;
		const char *want;
	} cases[] = {
		{ V4, "203.0.113.5", 2049, "203.0.113.5.8.1" },
		{ V4, "10.0.0.1", 0, "10.0.0.1.0.0" },
		{ V4, "255.255.255.255", 65535, "255.255.255.255.255.255" },
		{ V6, "2001:db8:ffff::1", 1003, "2001:db8:ffff::1.3.235" },
		{ V6, "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255", 65535,
		  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff.255.255" },
	};
	struct check ck;
	char buf[RPC_UADDR_MAX + 4];

	check_start(&ck, "uaddr_format");
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		union cth_addr a = addr_of(cases[i].family, cases[i].addr), back;
		uint16_t port;
		int n = rpc_uaddr_format(cases[i].family, &a, cases[i].port, buf, sizeof(buf));

		if (!check_that(&ck, n == (int)strlen(cases[i].want) && strcmp(buf, cases[i].want) == 0,
				"%zu: '%s' (%d), want '%s'", i, buf, n, cases[i].want))
			break;
		check_that(&ck, rpc_uaddr_parse(cases[i].family, buf, (size_t)n, &back, &port) == 0 &&
			       cth_addr_equal(cases[i].family, &a, &back) && port == cases[i].port,
			   "%zu: does not parse back", i);
		check_that(&ck, (size_t)n <= RPC_UADDR_MAX, "%zu: %d > RPC_UADDR_MAX", i, n);
	}
	{
		union cth_addr a = addr_of(V4, "10.0.0.1");

		check_that(&ck, rpc_uaddr_format(V4, &a, 1, buf, 8) == -ENOSPC, "small buffer");
	}
	check_end(&ck);
}

static void test_netid(void)
{
	static const struct {
		const char *text;
		int ret;
		uint8_t proto, family;
	} cases[] = {
		{ "tcp", 0, TCP, V4 }, { "udp", 0, UDP, V4 }, { "tcp6", 0, TCP, V6 },
		{ "udp6", 0, UDP, V6 }, { "TCP", -ENOENT, 0, 0 }, { "tcp ", -ENOENT, 0, 0 },
		{ "tc", -ENOENT, 0, 0 }, { "", -ENOENT, 0, 0 }, { "local", -ENOENT, 0, 0 },
		{ "ticotsord", -ENOENT, 0, 0 }, { "tcp66", -ENOENT, 0, 0 },
	};
	struct check ck;

	check_start(&ck, "netid");
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t len = strlen(cases[i].text);
		uint8_t *buf = dup_exact(cases[i].text, len), proto = 0, family = 0;
		int ret = rpc_netid_parse(buf, len, &proto, &family);

		check_that(&ck, ret == cases[i].ret && (ret < 0 || (proto == cases[i].proto &&
								   family == cases[i].family)),
			   "'%s': %d proto %u family %u", cases[i].text, ret, proto, family);
		free(buf);
	}
	check_end(&ck);
}

/* Every prefix of a valid message is refused; the whole one parses. */
static void test_call_parse(void)
{
	const struct {
		const char *name;
		struct xb x;
		int ret;
		enum rpc_kind kind;
		uint8_t proto, family;
	} cases[] = {
		{ "getport_udp", getport(7, 100003, UDP), 1, RPC_KIND_GETPORT, UDP, 0 },
		{ "getport_tcp", getport(7, 100003, TCP), 1, RPC_KIND_GETPORT, TCP, 0 },
		{ "getport_sctp", getport(7, 100003, 132), 0, RPC_KIND_GETPORT, 0, 0 },
		{ "getaddr3_tcp", getaddr(8, 3, 3, "tcp"), 1, RPC_KIND_GETADDR3, TCP, V4 },
		{ "getaddr4_udp6", getaddr(8, 4, 3, "udp6"), 1, RPC_KIND_GETADDR4, UDP, V6 },
		{ "getversaddr_tcp6", getaddr(8, 4, 9, "tcp6"), 1, RPC_KIND_GETVERSADDR, TCP, V6 },
		{ "getaddr_local", getaddr(8, 4, 3, "local"), 0, RPC_KIND_GETADDR4, 0, 0 },
		{ "v3_proc_9", getaddr(8, 3, 9, "tcp"), 0, RPC_KIND_NONE, 0, 0 },
		{ "v2_set", getaddr(8, 2, 1, "tcp"), 0, RPC_KIND_NONE, 0, 0 },
		{ "v4_dump", getaddr(8, 4, 4, "tcp"), 0, RPC_KIND_NONE, 0, 0 },
	};
	struct check ck;

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct rpc_call c;
		int ret;

		check_start(&ck, "call_parse_%s", cases[i].name);
		for (size_t n = 0; n < cases[i].x.n && !ck.failed; n++) {
			uint8_t *buf = dup_exact(cases[i].x.b, n);

			ret = rpc_call_parse(buf, n, &c);
			check_that(&ck, ret != 1, "a %zu-byte prefix parses", n);
			free(buf);
		}
		ret = rpc_call_parse(cases[i].x.b, cases[i].x.n, &c);
		if (check_ret(&ck, ret, cases[i].ret) && ret == 1)
			check_that(&ck, c.kind == cases[i].kind && c.proto == cases[i].proto &&
				       c.family == cases[i].family && c.xid == (i < 3 ? 7u : 8u),
				   "kind %d proto %u family %u xid %u", c.kind, c.proto, c.family,
				   c.xid);
		check_end(&ck);
	}

	check_start(&ck, "call_parse_hostile");
	{
		struct xb x = getport(1, 100003, UDP);
		struct rpc_call c;

		x.b[x.n++] = 0;         /* a trailing byte */
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == -EINVAL, "trailing byte accepted");
		x = getport(1, 100003, UDP);
		rpc_put32(x.b + 28, 401);       /* credential body longer than allowed */
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == -EINVAL, "cred 401 accepted");
		rpc_put32(x.b + 28, 0xfffffffc);
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == -EINVAL, "cred 2^32-4 accepted");
		x = getport(1, 100003, UDP);
		rpc_put32(x.b + 8, 3);          /* rpcvers 3 */
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == 0, "rpcvers 3 taken");
		x = getport(1, 100003, UDP);
		rpc_put32(x.b + 12, 100003);    /* another program */
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == 0, "program 100003 taken");
		x = getaddr(1, 4, 3, "tcp");
		rpc_put32(x.b + x.n - 28, 0x7ffffff0); /* the netid's length word */
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == -EINVAL, "netid length lies");
		x = getport(1, 100003, UDP);
		rpc_put32(x.b + 4, RPC_REPLY);
		check_that(&ck, rpc_call_parse(x.b, x.n, &c) == -EINVAL, "a reply taken as call");
	}
	check_end(&ck);
}

static void test_reply_parse(void)
{
	struct check ck;
	struct rpc_reply r;
	struct rpc_uaddr u;
	uint16_t port;
	struct xb x;

	check_start(&ck, "reply_parse_port");
	x = port_reply(5, 2049);
	for (size_t n = 0; n < x.n; n++) {
		uint8_t *buf = dup_exact(x.b, n);

		check_that(&ck, rpc_reply_parse(buf, n, &r) < 0 ||
			       rpc_port_result(buf, n, &r, &port) < 0, "%zu-byte prefix", n);
		free(buf);
	}
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 && r.success && r.xid == 5 &&
		       rpc_port_result(x.b, x.n, &r, &port) == 0 && port == 2049, "whole reply");
	x = port_reply(5, 65536);
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_port_result(x.b, x.n, &r, &port) == -EINVAL, "port 65536 taken");
	check_end(&ck);

	check_start(&ck, "reply_parse_uaddr");
	x = uaddr_reply(6, "198.51.100.2.8.1");
	for (size_t n = 0; n < x.n; n++) {
		uint8_t *buf = dup_exact(x.b, n);

		check_that(&ck, rpc_reply_parse(buf, n, &r) < 0 ||
			       rpc_uaddr_result(buf, n, &r, V4, &u) < 0, "%zu-byte prefix", n);
		free(buf);
	}
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_uaddr_result(x.b, x.n, &r, V4, &u) == 0 && u.port == 2049 &&
		       u.str_len == 16 && u.padded == 16 && u.len_off == 24 && u.str_off == 28,
		   "whole reply: port %u len %zu padded %zu at %zu/%zu", u.port, u.str_len, u.padded,
		   u.len_off, u.str_off);
	x = uaddr_reply(6, "");
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_uaddr_result(x.b, x.n, &r, V4, &u) == 0 && u.str_len == 0 && u.port == 0,
		   "empty uaddr");
	x = uaddr_reply(6, "2001:db8:1::2.8.1");
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_uaddr_result(x.b, x.n, &r, V4, &u) == -EINVAL, "v6 uaddr on v4");
	check_that(&ck, rpc_uaddr_result(x.b, x.n, &r, V6, &u) == 0 && u.padded == 20,
		   "v6 uaddr padded %zu", u.padded);
	x = uaddr_reply(6, "0123456789012345678901234567890123456789012345678901234567890123.0.1");
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_uaddr_result(x.b, x.n, &r, V4, &u) == -EINVAL, "over-long uaddr");
	check_end(&ck);

	check_start(&ck, "reply_parse_refusals");
	x = denied_reply(9);
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 && !r.success && r.xid == 9,
		   "MSG_DENIED");
	xb_reply_head(&x, 9, 1);        /* PROG_UNAVAIL */
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 && !r.success && r.stat == 1,
		   "PROG_UNAVAIL");
	x = port_reply(9, 1);
	rpc_put32(x.b + 8, 2);          /* no such reply_stat */
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == -EINVAL, "reply_stat 2");
	x = port_reply(9, 1);
	rpc_put32(x.b + 16, 404);       /* verifier too long */
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == -EINVAL, "verifier 404");
	x = port_reply(9, 1);
	x.b[x.n++] = 0;
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_port_result(x.b, x.n, &r, &port) == -EINVAL, "trailing byte");
	x = uaddr_reply(9, "10.0.0.1.0.1");
	rpc_put32(x.b + 24, 13);        /* the string's length lies (padding) */
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == 0 &&
		       rpc_uaddr_result(x.b, x.n, &r, V4, &u) == -EINVAL, "string length 13");
	x = port_reply(9, 1);
	rpc_put32(x.b + 4, RPC_CALL);
	check_that(&ck, rpc_reply_parse(x.b, x.n, &r) == -EINVAL, "a call taken as reply");
	check_end(&ck);
}

static void test_record_scan(void)
{
	struct xb msg = getport(1, 100003, UDP), one = rec(&msg, 1), three = rec(&msg, 3), two;
	struct rpc_record r;
	uint8_t copy[RPC_MSG_MAX];
	struct check ck;

	check_start(&ck, "record_one_fragment");
	check_that(&ck, rpc_record_scan(one.b, one.n, 0, &r) == 0 && r.end == one.n &&
		       r.n_frag == 1 && r.msg_len == msg.n, "end %zu frags %u len %zu", r.end,
		   r.n_frag, r.msg_len);
	check_end(&ck);

	check_start(&ck, "record_three_fragments");
	check_that(&ck, rpc_record_scan(three.b, three.n, 0, &r) == 0 && r.end == three.n &&
		       r.n_frag == 3 && r.msg_len == msg.n, "end %zu frags %u", r.end, r.n_frag);
	check_that(&ck, rpc_record_copy(three.b, &r, copy, sizeof(copy)) == msg.n &&
		       memcmp(copy, msg.b, msg.n) == 0, "reassembly differs");
	check_that(&ck, rpc_record_copy(three.b, &r, copy, 10) == 10, "bounded copy");
	check_end(&ck);

	check_start(&ck, "record_cut_everywhere");
	for (size_t n = 0; n < three.n; n++) {
		int ret = rpc_record_scan(three.b, n, 0, &r);

		if (!check_that(&ck, ret == -EAGAIN, "%zu bytes: %d", n, ret))
			break;
		check_that(&ck, r.mark_cut ? r.frag_end <= n : r.frag_end > n,
			   "%zu bytes: mark_cut %d frag_end %zu", n, r.mark_cut, r.frag_end);
	}
	check_end(&ck);

	check_start(&ck, "record_two_in_a_row");
	two = rec(&msg, 2);
	xb_record(&two, &msg, 1);
	check_that(&ck, rpc_record_scan(two.b, two.n, 0, &r) == 0 &&
		       rpc_record_scan(two.b, two.n, r.end, &r) == 0 && r.end == two.n,
		   "second record ends at %zu of %zu", r.end, two.n);
	check_end(&ck);

	check_start(&ck, "record_huge_fragment");
	rpc_put32(two.b, RPC_MARK_LAST | (RPC_RECORD_MAX + 1));
	check_that(&ck, rpc_record_scan(two.b, two.n, 0, &r) == -EINVAL, "2^24+1 taken");
	rpc_put32(two.b, RPC_RECORD_MAX);       /* not last, and the next adds more */
	rpc_put32(two.b + 4, 1);
	check_that(&ck, rpc_record_scan(two.b, two.n, 0, &r) == -EAGAIN, "cut huge fragment");
	check_end(&ck);

	check_start(&ck, "record_zero_fragments");
	{
		struct xb z = { .n = 0 };

		for (int i = 0; i < 100; i++)
			xb_u32(&z, 0);
		xb_record(&z, &msg, 1);
		check_that(&ck, rpc_record_scan(z.b, z.n, 0, &r) == 0 && r.n_frag == 101 &&
			       r.msg_len == msg.n && rpc_record_copy(z.b, &r, copy, sizeof(copy)) ==
			       msg.n && memcmp(copy, msg.b, msg.n) == 0, "frags %u", r.n_frag);
	}
	check_end(&ck);
}

/* ---------------------------------------------------------------- plugin */

static void test_plugin_desc(void)
{
	struct check ck;

	check_start(&ck, "plugin_desc");
	check_that(&ck, strcmp(cth_plugin.name, "rpc") == 0, "name %s", cth_plugin.name);
	check_that(&ck, cth_plugin.protocols == (CTH_PROTO_TCP | CTH_PROTO_UDP) &&
		       cth_plugin.families == (CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6), "protocols");
	check_that(&ck, cth_plugin.priv_size == 32 && cth_plugin.priv_size <= CTH_PRIV_MAX,
		   "priv_size %zu", cth_plugin.priv_size);
	check_that(&ck, cth_plugin.n_classes == 1 &&
		       strcmp(cth_plugin.classes[0].name, "program") == 0 &&
		       cth_plugin.classes[0].max >= 4 && cth_plugin.classes[0].timeout == 300,
		   "classes");
	/* SDK 3: declared keys (no configure()), counters, state version */
	check_that(&ck, cth_plugin.packet && !cth_plugin.configure, "callbacks");
	check_that(&ck, cth_plugin.n_keys == 2 && plug_key("permanent") && plug_key("ports") &&
		   (plug_key("ports")->flags & CTH_KEY_RULE_PORTS), "%u keys", cth_plugin.n_keys);
	check_that(&ck, cth_plugin.n_counters == RPC_CNT_PARSE_ERRORS + 1, "%u counters",
		   cth_plugin.n_counters);
	check_that(&ck, cth_plugin.priv_version == RPC_PRIV_VERSION &&
		   cth_plugin.priv_version_at == offsetof(struct rpc_priv, version) &&
		   cth_plugin.priv_version_at == 28 && cth_plugin.priv_valid,
		   "state version %u at %u", cth_plugin.priv_version, cth_plugin.priv_version_at);
	check_end(&ck);
}

static void test_plugin_config(void)
{
	struct conn c = { .nat = 0 };
	struct check ck;

	check_start(&ck, "plugin_config");
	rpc_conn(&c, V4, UDP);
	check_that(&ck, conn_configure(&c, "permanent", "yes") == 0 &&
		       permanent_of(&c), "permanent = yes");
	check_that(&ck, conn_configure(&c, "permanent", "no") == 0 &&
		       !permanent_of(&c), "permanent = no");
	check_that(&ck, conn_configure(&c, "permanent", "maybe") == -EINVAL, "bad value");
	check_that(&ck, conn_configure(&c, "loose", "yes") == -ENOENT, "unknown key");
	/* the ports --print-rules attaches the helper to, since SDK 3 */
	check_that(&ck, conn_configure(&c, "ports", "111") == 0, "ports 111");
	check_that(&ck, conn_configure(&c, "ports", "111,0") == -EINVAL, "ports 0");
	check_end(&ck);

	check_start(&ck, "plugin_config_defaults");
	rpc_conn(&c, V4, UDP);
	{
		const struct rpc_config *cfg = (const void *)c.cfg;

		check_that(&ck, !cfg->permanent, "permanent default yes");
		check_that(&ck, cfg->ports.n == 1 && cfg->ports.port[0] == 111,
			   "ports default: %u, first %u", cfg->ports.n, cfg->ports.port[0]);
	}
	check_end(&ck);
}

/*
 * A GETPORT over UDP (on the connection of the case before when
 * same_conn) for program prog over svc, answered with port: accepted, n_exp
 * expectations from the client to the server's port over svc (permanent
 * when so configured), no call left pending.
 */
static const struct getport_case {
	const char *name;
	bool same_conn;
	int family;
	bool permanent;
	uint32_t xid, prog;
	uint8_t svc;
	uint16_t port;
	unsigned int n_exp;
} getport_cases[] = {
	{ "getport_udp_for_udp_service", false, V4, false, 0x1001, 100005, UDP, 20048, 1 },
	{ "getport_udp_for_tcp_service", true, V4, false, 0x1002, 100003, TCP, 2049, 1 },
	{ "getport_udp_ipv6", false, V6, false, 0x1003, 100003, TCP, 2049, 1 },
	{ "getport_permanent", false, V4, true, 0x1004, 100003, UDP, 2049, 1 },
	{ "getport_port_0_not_registered", false, V4, false, 0x1005, 100021, UDP, 0, 0 },
};

static void test_getport_udp(struct plugrun *f)
{
	struct conn c = { .nat = 0 };

	for (size_t i = 0; i < ARRAY_LEN(getport_cases); i++) {
		const struct getport_case *t = &getport_cases[i];
		struct xb call = getport(t->xid, t->prog, t->svc), reply = port_reply(t->xid, t->port);
		bool v4 = t->family == V4;
		struct check ck;
		int v;

		check_start(&ck, "%s", t->name);
		if (!t->same_conn)
			rpc_conn(&c, t->family, UDP);
		if (t->permanent)
			conn_configure(&c, "permanent", "yes");
		v = exchange(f, &c, &call, &reply);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		if (t->permanent) {
			check_clean(&ck, f);
			check_that(&ck, f->n_exp == t->n_exp && f->exp[0].flags == CTH_EXPECT_PERMANENT,
				   "%u expectations, flags %#x", f->n_exp, f->n_exp ? f->exp[0].flags : 0);
		} else {
			check_plain(&ck, f, t->n_exp);
		}
		if (t->n_exp)
			check_exp(&ck, f, 0, t->family, t->svc, v4 ? CLIENT4 : CLIENT6,
				  v4 ? SERVER4 : SERVER6, t->port);
		check_that(&ck, calls_pending(&c) == 0, "%u calls still pending", calls_pending(&c));
		check_end(&ck);
	}
	conn_free(&c);
}

static void test_getport_tcp(struct plugrun *f)
{
	struct xb c1 = getport(0x2001, 100005, UDP), c2 = getport(0x2002, 100003, TCP);
	struct xb r1 = port_reply(0x2001, 20048), r2 = port_reply(0x2002, 2049), seg;
	struct check ck;
	struct conn c = { .nat = 0 };
	int v;

	check_start(&ck, "getport_tcp_one_fragment");
	rpc_conn(&c, V4, TCP);
	v = exchange(f, &c, &c1, &r1);
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, UDP, CLIENT4, SERVER4, 20048);
	check_end(&ck);

	check_start(&ck, "getport_tcp_fragments_and_two_records_per_segment");
	rpc_conn(&c, V4, TCP);
	seg = rec(&c1, 3);
	xb_record(&seg, &c2, 4);
	run_x(f, &c, O, &seg);
	check_plain(&ck, f, 0);
	check_that(&ck, calls_pending(&c) == 2, "%u calls pending", calls_pending(&c));
	seg = rec(&r2, 2);
	xb_record(&seg, &r1, 3);
	v = run_x(f, &c, R, &seg);
	check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
	check_plain(&ck, f, 2);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	check_exp(&ck, f, 1, V4, UDP, CLIENT4, SERVER4, 20048);
	check_that(&ck, !conn_kept(&c, O) && !conn_kept(&c, R), "bytes kept");
	check_end(&ck);

	check_start(&ck, "getport_tcp_record_across_segments");
	rpc_conn(&c, V4, TCP);
	seg = rec(&c1, 2);
	for (size_t cut = 1; cut < seg.n && !ck.failed; cut++) {
		struct xb a = { .n = cut }, b = { .n = seg.n - cut }, r = rec(&r1, 1);

		memcpy(a.b, seg.b, cut);
		memcpy(b.b, seg.b + cut, seg.n - cut);
		run_x(f, &c, O, &a);
		check_that(&ck, f->keep_asked && f->keep_off == 0, "cut %zu: nothing kept", cut);
		run_x(f, &c, O, &b);
		check_that(&ck, calls_pending(&c) == 1, "cut %zu: %u calls", cut, calls_pending(&c));
		run_x(f, &c, R, &r);
		check_plain(&ck, f, 1);
	}
	check_end(&ck);

	check_start(&ck, "getport_tcp_reply_across_segments");
	rpc_conn(&c, V4, TCP);
	seg = rec(&c1, 1);
	xb_record(&seg, &c2, 1);
	run_x(f, &c, O, &seg);
	seg = rec(&r1, 1);
	xb_record(&seg, &r2, 2);
	{
		size_t cut = seg.n - 9;
		struct xb a = { .n = cut }, b = { .n = seg.n - cut };

		memcpy(a.b, seg.b, cut);
		memcpy(b.b, seg.b + cut, seg.n - cut);
		run_x(f, &c, R, &a);
		check_plain(&ck, f, 1);
		check_that(&ck, f->keep_asked && f->keep_off == rec(&r1, 1).n, "keep at %zu",
			   f->keep_off);
		run_x(f, &c, R, &b);
		check_plain(&ck, f, 1);
		check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	}
	check_end(&ck);
}

/* A long record nobody keeps (a DUMP reply) is skipped across segments
 * by its marks; the records after it are read. */
static void test_tcp_skip(struct plugrun *f)
{
	struct xb big = { .n = 0 }, seg, a, b, d, call = getport(0x3001, 100003, TCP);
	struct xb reply = port_reply(0x3001, 2049);
	struct check ck;
	struct conn c = { .nat = 0 };

	check_start(&ck, "tcp_skip_long_record");
	rpc_conn(&c, V4, TCP);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	/* a 5000-byte reply to something else in two fragments, then ours */
	big.n = 5000;
	memset(big.b, 0x55, big.n);
	rpc_put32(big.b, 0x77777777);
	rpc_put32(big.b + 4, RPC_REPLY);
	seg = rec(&big, 2);
	xb_record(&seg, &reply, 1);
	a.n = 1000;
	memcpy(a.b, seg.b, a.n);
	b.n = 1000;
	memcpy(b.b, seg.b + 1000, b.n);
	d.n = seg.n - 2000;
	memcpy(d.b, seg.b + 2000, d.n);
	run_x(f, &c, R, &a);
	check_plain(&ck, f, 0);
	check_that(&ck, !f->keep_asked && (priv_of(&c)->flags & RPC_F_RESUME(R)) &&
		       (priv_of(&c)->flags & RPC_F_SKIP(R)),
		   "first part: keep %d flags %#x", f->keep_asked, priv_of(&c)->flags);
	run_x(f, &c, R, &b);
	check_plain(&ck, f, 0);
	check_that(&ck, !f->keep_asked, "second part kept");
	run_x(f, &c, R, &d);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	check_that(&ck, !(priv_of(&c)->flags & RPC_F_ALL), "flags %#x left",
		   priv_of(&c)->flags);
	check_end(&ck);

	check_start(&ck, "tcp_old_host_skips_cut_record");
	rpc_conn(&c, V4, TCP);
	f->old_host = true;
	seg = rec(&call, 1);
	a = getport(0x3002, 100005, UDP);
	xb_record(&seg, &a, 1);
	a = getport(0x3003, 100021, UDP);
	xb_record(&seg, &a, 1);
	run_x(f, &c, O, &seg);
	check_that(&ck, calls_pending(&c) == 3, "%u pending", calls_pending(&c));
	seg = rec(&reply, 1);
	a = port_reply(0x3002, 20048);
	xb_record(&seg, &a, 1);
	a.n = seg.n - 5;
	memcpy(a.b, seg.b, a.n);
	run_x(f, &c, R, &a);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	d = port_reply(0x3003, 32768);
	d = rec(&d, 1);
	memcpy(b.b, seg.b + a.n, 5);
	memcpy(b.b + 5, d.b, d.n);     /* the cut record's end, then the next reply */
	b.n = 5 + d.n;
	run_x(f, &c, R, &b);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, UDP, CLIENT4, SERVER4, 32768);
	check_that(&ck, calls_pending(&c) == 1, "%u pending", calls_pending(&c));
	plugrun_answers_reset(f);
	check_end(&ck);
	conn_free(&c);
}

struct getaddr_case {
	const char *name;
	int family;
	uint8_t conn_proto;
	uint32_t vers, proc;
	const char *netid;
	const char *uaddr;
	int n_exp;
	uint8_t proto;
	uint16_t port;
};

static const struct getaddr_case getaddr_cases[] = {
	{ "v3_tcp_udp_conn", V4, UDP, 3, 3, "tcp", "198.51.100.2.8.1", 1, TCP, 2049 },
	{ "v4_udp_udp_conn", V4, UDP, 4, 3, "udp", "198.51.100.2.78.80", 1, UDP, 20048 },
	{ "v4_tcp_tcp_conn", V4, TCP, 4, 3, "tcp", "198.51.100.2.8.1", 1, TCP, 2049 },
	{ "versaddr_udp", V4, UDP, 4, 9, "udp", "198.51.100.2.3.235", 1, UDP, 1003 },
	{ "v4_tcp6", V6, UDP, 4, 3, "tcp6", "2001:db8:1::2.8.1", 1, TCP, 2049 },
	{ "v4_udp6_tcp_conn", V6, TCP, 4, 3, "udp6", "2001:db8:1::2.78.80", 1, UDP, 20048 },
	{ "versaddr_tcp6", V6, TCP, 4, 9, "tcp6", "2001:db8:1::2.8.1", 1, TCP, 2049 },
	{ "wildcard_v4", V4, UDP, 4, 3, "tcp", "0.0.0.0.8.1", 1, TCP, 2049 },
	{ "wildcard_v6", V6, UDP, 4, 3, "udp6", "::.8.1", 1, UDP, 2049 },
	{ "empty_not_registered", V4, UDP, 4, 3, "tcp", "", 0, 0, 0 },
	{ "other_host", V4, UDP, 4, 3, "tcp", "192.0.2.99.8.1", 0, 0, 0 },
	{ "other_host_v6", V6, UDP, 4, 3, "tcp6", "2001:db8::99.8.1", 0, 0, 0 },
	{ "port_0", V4, UDP, 4, 3, "tcp", "198.51.100.2.0.0", 0, 0, 0 },
	{ "tcp6_on_v4", V4, UDP, 4, 3, "tcp6", "2001:db8:1::2.8.1", 0, 0, 0 },
	{ "tcp_on_v6", V6, UDP, 4, 3, "tcp", "198.51.100.2.8.1", 0, 0, 0 },
	{ "v6_answer_to_tcp", V4, UDP, 4, 3, "tcp", "2001:db8:1::2.8.1", 0, 0, 0 },
	{ "local_netid", V4, UDP, 4, 3, "local", "/run/rpcbind.sock", 0, 0, 0 },
	{ "bad_uaddr", V4, UDP, 4, 3, "tcp", "198.51.100.2.8", 0, 0, 0 },
};

static void test_getaddr(struct plugrun *f)
{
	for (size_t i = 0; i < ARRAY_LEN(getaddr_cases); i++) {
		const struct getaddr_case *gc = &getaddr_cases[i];
		struct xb call = getaddr(0x4000 + (uint32_t)i, gc->vers, gc->proc, gc->netid);
		struct xb reply = uaddr_reply(0x4000 + (uint32_t)i, gc->uaddr);
		struct check ck;
		struct conn c = { .nat = 0 };
		int v;

		check_start(&ck, "getaddr_%s", gc->name);
		rpc_conn(&c, gc->family, gc->conn_proto);
		v = exchange(f, &c, &call, &reply);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_plain(&ck, f, (unsigned int)gc->n_exp);
		if (gc->n_exp)
			check_exp(&ck, f, 0, gc->family, gc->proto,
				  gc->family == V6 ? CLIENT6 : CLIENT4,
				  gc->family == V6 ? SERVER6 : SERVER4, gc->port);
		check_end(&ck);
		conn_free(&c);
	}
}

static void test_pipelined(struct plugrun *f)
{
	struct xb c1 = getport(0x5001, 100005, UDP), c2 = getaddr(0x5002, 4, 3, "tcp");
	struct xb c3 = getport(0x5003, 100021, TCP), r1 = port_reply(0x5001, 20048);
	struct xb r2 = uaddr_reply(0x5002, "198.51.100.2.8.1"), r3 = port_reply(0x5003, 32768);
	struct check ck;
	struct conn c = { .nat = 0 };

	check_start(&ck, "pipelined_three_calls");
	rpc_conn(&c, V4, UDP);
	run_x(f, &c, O, &c1);
	run_x(f, &c, O, &c2);
	run_x(f, &c, O, &c3);
	check_that(&ck, calls_pending(&c) == 3, "%u pending", calls_pending(&c));
	run_x(f, &c, R, &r2);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	run_x(f, &c, R, &r3);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 32768);
	run_x(f, &c, R, &r1);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, UDP, CLIENT4, SERVER4, 20048);
	check_that(&ck, calls_pending(&c) == 0, "%u pending", calls_pending(&c));
	run_x(f, &c, R, &r1);           /* a duplicate reply: its call is gone */
	check_plain(&ck, f, 0);
	check_end(&ck);

	check_start(&ck, "pipelined_oldest_forgotten");
	rpc_conn(&c, V4, UDP);
	for (uint32_t x = 1; x <= RPC_CALLS + 1; x++) {
		struct xb call = getport(0x6000 + x, 100000 + x, UDP);

		run_x(f, &c, O, &call);
	}
	check_that(&ck, calls_pending(&c) == RPC_CALLS, "%u pending", calls_pending(&c));
	{
		struct xb r = port_reply(0x6001, 999);

		run_x(f, &c, R, &r);
		check_plain(&ck, f, 0);
		for (uint32_t x = 2; x <= RPC_CALLS + 1; x++) {
			r = port_reply(0x6000 + x, 1000 + x);
			run_x(f, &c, R, &r);
			check_plain(&ck, f, 1);
		}
	}
	check_end(&ck);

	check_start(&ck, "pipelined_retransmitted_call");
	rpc_conn(&c, V4, UDP);
	run_x(f, &c, O, &c1);
	run_x(f, &c, O, &c2);
	run_x(f, &c, O, &c1);
	check_that(&ck, calls_pending(&c) == 2, "%u pending", calls_pending(&c));
	check_that(&ck, priv_of(&c)->xid[0] == 0x5001 && priv_of(&c)->xid[1] == 0x5002,
		   "order %#x %#x", priv_of(&c)->xid[0], priv_of(&c)->xid[1]);
	check_end(&ck);

	check_start(&ck, "second_getport_keeps_first_expectation");
	rpc_conn(&c, V4, UDP);
	exchange(f, &c, &c1, &r1);
	check_plain(&ck, f, 1);
	check_that(&ck, f->n_ctl == 0, "expectation control %u", f->n_ctl);
	exchange(f, &c, &c3, &r3);
	check_plain(&ck, f, 1);
	check_that(&ck, f->n_ctl == 0, "expectation control %u (op %u)", f->n_ctl,
		   f->n_ctl ? f->ctl[0].op : 0);
	check_that(&ck, cth_plugin.classes[0].max >= 2, "class max %u evicts",
		   cth_plugin.classes[0].max);
	check_end(&ck);
}

static void test_bad_replies(struct plugrun *f)
{
	struct xb call = getport(0x7001, 100003, TCP), x;
	struct check ck;
	struct conn c = { .nat = 0 };

	check_start(&ck, "reply_wrong_xid");
	rpc_conn(&c, V4, UDP);
	x = port_reply(0x7002, 2049);
	exchange(f, &c, &call, &x);
	check_plain(&ck, f, 0);
	check_that(&ck, calls_pending(&c) == 1, "call dropped by a foreign reply");
	check_end(&ck);

	check_start(&ck, "reply_denied");
	rpc_conn(&c, V4, UDP);
	x = denied_reply(0x7001);
	exchange(f, &c, &call, &x);
	check_plain(&ck, f, 0);
	check_that(&ck, calls_pending(&c) == 0, "denied call still pending");
	check_end(&ck);

	check_start(&ck, "reply_not_success");
	for (uint32_t st = 1; st <= 5; st++) {
		rpc_conn(&c, V4, UDP);
		xb_reply_head(&x, 0x7001, st);
		xb_u32(&x, 2049);
		exchange(f, &c, &call, &x);
		check_plain(&ck, f, 0);
	}
	check_end(&ck);

	check_start(&ck, "reply_truncated");
	x = port_reply(0x7001, 2049);
	for (size_t n = 1; n < x.n; n++) {
		struct xb t = x;

		t.n = n;
		rpc_conn(&c, V4, UDP);
		exchange(f, &c, &call, &t);
		check_plain(&ck, f, 0);
	}
	check_end(&ck);

	check_start(&ck, "reply_lying_lengths");
	{
		static const size_t at[] = { 16, 24 };

		for (size_t i = 0; i < ARRAY_LEN(at); i++) {
			static const uint32_t lies[] = { 4, 8, 400, 401, 0x7fffffff, 0xffffffff };

			for (size_t j = 0; j < ARRAY_LEN(lies); j++) {
				struct xb g = getaddr(0x7003, 4, 3, "tcp");

				x = uaddr_reply(0x7003, "198.51.100.2.8.1");
				rpc_put32(x.b + at[i], lies[j]);
				rpc_conn(&c, V4, UDP);
				exchange(f, &c, &g, &x);
				check_plain(&ck, f, 0);
			}
		}
	}
	check_end(&ck);

	check_start(&ck, "reply_tcp_lying_record_mark");
	{
		struct xb r, cr = rec(&call, 1);

		x = port_reply(0x7001, 2049);
		r = rec(&x, 1);
		rpc_put32(r.b, RPC_MARK_LAST | (uint32_t)(x.n - 4));   /* shorter: 4 trailing bytes */
		rpc_conn(&c, V4, TCP);
		run_x(f, &c, O, &cr);
		run_x(f, &c, R, &r);
		check_plain(&ck, f, 0);
		rpc_conn(&c, V4, TCP);
		run_x(f, &c, O, &cr);
		rpc_put32(r.b, RPC_MARK_LAST | 0x7ffffff0u);            /* huge */
		run_x(f, &c, R, &r);
		check_plain(&ck, f, 0);
	}
	check_end(&ck);

	check_start(&ck, "wrong_directions");
	rpc_conn(&c, V4, UDP);
	run_x(f, &c, R, &call);         /* a call from the server */
	x = port_reply(0x7001, 2049);
	run_x(f, &c, O, &x);            /* a reply from the client */
	check_plain(&ck, f, 0);
	check_that(&ck, calls_pending(&c) == 0, "server's call recorded");
	check_end(&ck);

	check_start(&ck, "expected_connection_ignored");
	rpc_conn(&c, V4, UDP);
	c.ct_status |= CTH_CT_EXPECTED;
	run_x(f, &c, O, &call);
	/* the host writes no state back for it: the plugin must not change it */
	check_that(&ck, calls_pending(&c) == 0 && !f->state_changed,
		   "call recorded on an expected connection");
	check_end(&ck);

	check_start(&ck, "tcp_not_established");
	rpc_conn(&c, V4, TCP);
	x = rec(&call, 1);
	run_ctinfo(f, &c, O, CTH_CT_NEW, 0, x.b, x.n);
	check_that(&ck, calls_pending(&c) == 0, "call recorded before establishment");
	check_end(&ck);

	check_start(&ck, "expect_error_drops_and_keeps_call");
	rpc_conn(&c, V4, UDP);
	run_x(f, &c, O, &call);
	f->expect_err = -ENOMEM;
	x = port_reply(0x7001, 2049);
	check_that(&ck, run_x(f, &c, R, &x) == CTH_VERDICT_DROP, "not dropped");
	plugrun_answers_reset(f);
	check_that(&ck, calls_pending(&c) == 1, "call forgotten by a dropped reply");
	check_that(&ck, run_x(f, &c, R, &x) == CTH_VERDICT_ACCEPT && f->n_exp == 1,
		   "retransmission: %u expectations", f->n_exp);
	check_end(&ck);

	check_start(&ck, "corrupt_state_starts_over");
	rpc_conn(&c, V4, UDP);
	memset(c.priv, 0xff, sizeof(c.priv));
	run_x(f, &c, O, &call);
	check_that(&ck, calls_pending(&c) == 1 && priv_of(&c)->version == RPC_PRIV_VERSION &&
		       priv_of(&c)->flags == 0, "state not reset");
	check_end(&ck);
}

/* ---------------------------------------------------------------- NAT */

static void check_nat_exp(struct check *ck, const struct plugrun *f, unsigned int i,
			  uint16_t real_port)
{
	const struct cth_expect *e = &f->exp[i];

	if (!check_that(ck, f->n_exp > i, "%u expectations", f->n_exp))
		return;
	check_that(ck, (e->flags & CTH_EXPECT_NAT) && e->nat_dir == O &&
		       strcmp(f->exp_fn[i], CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0 &&
		       e->nat_port == real_port && (f->exp_how[i] & CTH_EXPECT_SYNC),
		   "flags %#x nat_dir %d fn '%s' nat_port %u how %#x", e->flags, e->nat_dir,
		   f->exp_fn[i], e->nat_port, f->exp_how[i]);
}

static void check_out_bytes(struct check *ck, const struct plugrun *f, const struct xb *want)
{
	size_t i = 0;

	while (i < want->n && i < f->out_len && f->out[i] == want->b[i])
		i++;
	check_that(ck, f->out_len == want->n && i == want->n,
		   "payload differs at byte %zu (%zu bytes, want %zu)", i, f->out_len, want->n);
}

static void test_nat(struct plugrun *f)
{
	struct xb call = getport(0x8001, 100003, TCP), reply = port_reply(0x8001, 2049), want;
	struct check ck;
	struct conn c = { .nat = 0 };

	check_start(&ck, "nat_getport_follows_master");
	rpc_conn(&c, V4, UDP);
	conn_dnat(&c, PUB4, 111);
	exchange(f, &c, &call, &reply);
	check_clean(&ck, f);
	check_no_edit(&ck, f);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, PUB4, 2049);
	check_nat_exp(&ck, f, 0, 2049);
	check_that(&ck, f->n_exp == 1, "%u expectations", f->n_exp);
	check_end(&ck);

	check_start(&ck, "nat_getport_busy_port_rewritten");
	rpc_conn(&c, V4, UDP);
	conn_snat(&c, PUB4, 40000);
	f->busy[f->n_busy++] = 2049;
	f->busy[f->n_busy++] = 2050;
	exchange(f, &c, &call, &reply);
	check_clean(&ck, f);
	check_exp(&ck, f, 2, V4, TCP, CLIENT4, SERVER4, 2051);
	check_nat_exp(&ck, f, 2, 2049);
	want = port_reply(0x8001, 2051);
	check_out_bytes(&ck, f, &want);
	check_that(&ck, f->n_edit == 1 && f->edit[0].len == 4 && f->edit[0].repl_len == 4,
		   "%u edits", f->n_edit);
	plugrun_answers_reset(f);
	check_end(&ck);

	check_start(&ck, "nat_getport_tcp_busy_port_rewritten");
	rpc_conn(&c, V4, TCP);
	conn_snat(&c, PUB4, 40000);
	f->busy_left = 1;
	exchange(f, &c, &call, &reply);
	check_clean(&ck, f);
	check_exp(&ck, f, 1, V4, TCP, CLIENT4, SERVER4, 2050);
	want = port_reply(0x8001, 2050);
	want = rec(&want, 1);
	check_out_bytes(&ck, f, &want);
	plugrun_answers_reset(f);
	check_end(&ck);

	check_start(&ck, "nat_no_free_port_drops");
	rpc_conn(&c, V4, UDP);
	conn_snat(&c, PUB4, 40000);
	f->busy_left = 1000;
	run_x(f, &c, O, &call);
	check_that(&ck, run_x(f, &c, R, &reply) == CTH_VERDICT_DROP, "not dropped");
	check_that(&ck, f->n_exp == RPC_NAT_PORT_TRIES, "%u tries", f->n_exp);
	plugrun_answers_reset(f);
	check_end(&ck);

	check_start(&ck, "nat_mangle_error_takes_back");
	rpc_conn(&c, V4, UDP);
	conn_snat(&c, PUB4, 40000);
	f->busy_left = 1;
	f->mangle_err = -ENOSPC;
	run_x(f, &c, O, &call);
	check_that(&ck, run_x(f, &c, R, &reply) == CTH_VERDICT_DROP, "not dropped");
	check_that(&ck, f->n_ctl == 1 && f->ctl[0].op == CTH_EXPECT_OP_REMOVE &&
		       f->ctl[0].exp.dport == 2050, "%u ctl", f->n_ctl);
	plugrun_answers_reset(f);
	check_end(&ck);
}

struct nat_uaddr_case {
	const char *name;
	int family;
	uint8_t proto;
	const char *netid;
	const char *uaddr;      /* the server's answer */
	const char *want;       /* what the client must see */
	uint16_t port;
	unsigned int busy;      /* ports taken from the answer's */
};

static const struct nat_uaddr_case nat_uaddr_cases[] = {
	/* 16 -> 15 characters, both padded to 16 */
	{ "udp_same_padding", V4, UDP, "tcp", "198.51.100.2.8.1", "203.0.113.5.8.1", 2049, 0 },
	/* 18 -> 17: padded 20 -> 20 */
	{ "udp_shorter", V4, UDP, "udp", "198.51.100.2.78.80", "203.0.113.5.78.80", 20048, 0 },
	{ "tcp_port_moved", V4, TCP, "tcp", "198.51.100.2.8.1", "203.0.113.5.8.2", 2049, 1 },
	{ "wildcard", V4, UDP, "tcp", "0.0.0.0.8.1", "203.0.113.5.8.1", 2049, 0 },
	/* 17 -> 20: padded 20 -> 20 */
	{ "v6_udp", V6, UDP, "udp6", "2001:db8:1::2.8.1", "2001:db8:ffff::1.8.1", 2049, 0 },
	/* 19 -> 22: padded 20 -> 24, the string grows */
	{ "v6_tcp_grows", V6, TCP, "tcp6", "2001:db8:1::2.78.80", "2001:db8:ffff::1.78.80",
	  20048, 0 },
	{ "v6_udp_grows", V6, UDP, "tcp6", "2001:db8:1::2.78.80", "2001:db8:ffff::1.78.80",
	  20048, 0 },
	/* 43 -> 20: padded 44 -> 20, the string shrinks */
	{ "v6_tcp_shrinks", V6, TCP, "tcp6", "2001:0db8:0001:0000:0000:0000:0000:0002.8.1",
	  "2001:db8:ffff::1.8.1", 2049, 0 },
	/* 6 -> 20: padded 8 -> 20 */
	{ "v6_tcp_unspecified", V6, TCP, "udp6", "::.8.1", "2001:db8:ffff::1.8.1", 2049, 0 },
};

static void test_nat_uaddr(struct plugrun *f)
{
	for (size_t i = 0; i < ARRAY_LEN(nat_uaddr_cases); i++) {
		const struct nat_uaddr_case *nc = &nat_uaddr_cases[i];
		struct xb call = getaddr(0x9000 + (uint32_t)i, 4, 3, nc->netid);
		struct xb reply = uaddr_reply(0x9000 + (uint32_t)i, nc->uaddr);
		struct xb want = uaddr_reply(0x9000 + (uint32_t)i, nc->want);
		uint16_t port = nc->port;
		struct check ck;
		struct conn c = { .nat = 0 };
		int v;

		f->busy_left = nc->busy;
		check_start(&ck, "nat_uaddr_%s", nc->name);
		rpc_conn(&c, nc->family, nc->proto);
		conn_dnat(&c, nc->family == V6 ? PUB6 : PUB4, 111);
		v = exchange(f, &c, &call, &reply);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_clean(&ck, f);
		check_exp(&ck, f, f->n_exp ? f->n_exp - 1 : 0, nc->family,
			  strncmp(nc->netid, "tcp", 3) == 0 ? TCP : UDP,
			  nc->family == V6 ? CLIENT6 : CLIENT4, nc->family == V6 ? PUB6 : PUB4,
			  (uint16_t)(port + nc->busy));
		check_nat_exp(&ck, f, f->n_exp ? f->n_exp - 1 : 0, port);
		if (nc->proto == TCP)
			want = rec(&want, 1);
		check_out_bytes(&ck, f, &want);
		check_end(&ck);
		plugrun_answers_reset(f);
	}
}

static void test_nat_limits(struct plugrun *f)
{
	struct xb call = getaddr(0xa001, 4, 3, "tcp"), reply = uaddr_reply(0xa001, "198.51.100.2.8.1");
	struct xb seg, want;
	struct check ck;
	struct conn c = { .nat = 0 };

	check_start(&ck, "nat_uaddr_in_fragments_not_expected");
	rpc_conn(&c, V4, TCP);
	conn_dnat(&c, PUB4, 111);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	seg = rec(&reply, 2);
	run_x(f, &c, R, &seg);
	check_clean(&ck, f);
	check_no_edit(&ck, f);
	check_that(&ck, f->n_exp == 0, "%u expectations", f->n_exp);
	check_end(&ck);

	check_start(&ck, "nat_uaddr_two_records_one_segment");
	rpc_conn(&c, V4, TCP);
	conn_dnat(&c, PUB4, 111);
	{
		struct xb c2 = getaddr(0xa002, 3, 3, "udp");
		struct xb r2 = uaddr_reply(0xa002, "198.51.100.2.78.80");

		seg = rec(&call, 1);
		xb_record(&seg, &c2, 1);
		run_x(f, &c, O, &seg);
		seg = rec(&reply, 1);
		xb_record(&seg, &r2, 1);
		run_x(f, &c, R, &seg);
		check_clean(&ck, f);
		check_that(&ck, f->n_exp == 2, "%u expectations", f->n_exp);
		want = uaddr_reply(0xa001, "203.0.113.5.8.1");
		want = rec(&want, 1);
		r2 = uaddr_reply(0xa002, "203.0.113.5.78.80");
		xb_record(&want, &r2, 1);
		check_out_bytes(&ck, f, &want);
	}
	check_end(&ck);

	check_start(&ck, "nat_snat_only_no_rewrite");
	rpc_conn(&c, V4, UDP);
	conn_snat(&c, PUB4, 40000);
	exchange(f, &c, &call, &reply);
	check_clean(&ck, f);
	check_no_edit(&ck, f);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	check_nat_exp(&ck, f, 0, 2049);
	check_end(&ck);

	check_start(&ck, "nat_reply_split_across_segments");
	rpc_conn(&c, V4, TCP);
	conn_dnat(&c, PUB4, 111);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	seg = rec(&reply, 1);
	{
		struct xb a = { .n = 10 }, b = { .n = seg.n - 10 };

		memcpy(a.b, seg.b, 10);
		memcpy(b.b, seg.b + 10, b.n);
		run_x(f, &c, R, &a);
		run_x(f, &c, R, &b);
		check_clean(&ck, f);
		check_no_edit(&ck, f);
		check_that(&ck, f->n_exp == 0, "%u expectations", f->n_exp);
	}
	check_end(&ck);
}

/* ---------------------------------------------------------------- fuzzing */

static const struct mutate_how rpc_mutate = {
	.alphabet = "\x00\x01\x02\x03\x04\x06\x09\x11\x80\xff.0123456789:abcdeftu",
	.max_edits = 4,
	.n_ops = 7,
	.trunc_one_in = 8,
};

static void test_plugin_fuzz(struct plugrun *f)
{
	enum { ROUNDS = 100000 };
	struct xb samples[12];
	unsigned int n_samples = 0, accepted = 0, dropped = 0, with_exp = 0, edited = 0;
	struct check ck;
	struct conn c = { .nat = 0 };

	samples[n_samples++] = getport(1, 100003, TCP);
	samples[n_samples++] = getport(2, 100005, UDP);
	samples[n_samples++] = getaddr(3, 4, 3, "tcp");
	samples[n_samples++] = getaddr(4, 3, 3, "udp6");
	samples[n_samples++] = getaddr(5, 4, 9, "tcp6");
	samples[n_samples++] = port_reply(1, 2049);
	samples[n_samples++] = port_reply(2, 20048);
	samples[n_samples++] = uaddr_reply(3, "198.51.100.2.8.1");
	samples[n_samples++] = uaddr_reply(4, "2001:db8:1::2.8.1");
	samples[n_samples++] = uaddr_reply(5, "::.8.1");
	samples[n_samples++] = denied_reply(1);
	samples[n_samples++] = uaddr_reply(3, "0.0.0.0.8.1");

	check_start(&ck, "plugin_fuzz_100k");
	for (unsigned int r = 0; r < ROUNDS && !ck.failed; r++) {
		unsigned int idx = rng_below(n_samples);
		const struct xb *sd = &samples[idx];
		bool reply = idx >= 5;
		struct xb x = *sd, seg = { .n = 0 };
		enum cth_dir dir = reply ? R : O;
		int v;

		if (r % 32 == 0) {
			conn_free(&c);
			rpc_conn(&c, rng_below(2) ? V6 : V4, rng_below(2) ? TCP : UDP);
			if (rng_below(2))
				conn_dnat(&c, c.t[O].family == V6 ? PUB6 : PUB4, 111);
			if (rng_below(3) == 0)
				conn_snat(&c, c.t[O].family == V6 ? PUB6 : PUB4, 40000);
			if (rng_below(8) == 0)
				memset(c.priv, (int)rng_below(256), sizeof(c.priv));
		}
		if (rng_below(5))
			fuzz_mutate(&rpc_mutate, x.b, &x.n, 2048);
		if (c.t[O].proto == TCP) {
			xb_record(&seg, &x, 1 + rng_below(3));
			if (rng_below(4) == 0)
				fuzz_mutate(&rpc_mutate, seg.b, &seg.n, 2048);
		} else {
			seg = x;
		}
		if (seg.n == 0)
			continue;
		f->busy_left = rng_below(6) == 0 ? rng_below(80) : 0;
		f->expect_err = rng_below(20) == 0 ? -ENOMEM : 0;
		f->mangle_err = rng_below(30) == 0 ? -ENOSPC : 0;
		f->old_host = rng_below(10) == 0;
		if (c.t[O].proto == TCP && rng_below(3) == 0) {
			size_t cut = rng_below((uint32_t)seg.n);
			struct xb a = { .n = cut }, b = { .n = seg.n - cut };

			memcpy(a.b, seg.b, cut);
			memcpy(b.b, seg.b + cut, b.n);
			if (cut) {
				run_x(f, &c, dir, &a);
				check_that(&ck, f->n_bad == 0, "round %u first part: %s", r, f->bad);
			}
			seg = b;
		}
		v = run_x(f, &c, dir, &seg);
		check_that(&ck, f->n_bad == 0, "round %u: %s", r, f->bad);
		check_that(&ck, c.nat || f->n_edit == 0, "round %u: edited without NAT", r);
		check_that(&ck, f->n_exp <= 64 * RPC_NAT_PORT_TRIES, "round %u: %u expectations", r,
			   f->n_exp);
		v == CTH_VERDICT_ACCEPT ? accepted++ : dropped++;
		with_exp += f->n_exp != 0;
		edited += f->n_edit != 0;
		/* a reply must find its call now and then */
		if (!reply && rng_below(2)) {
			struct xb rr = samples[5 + rng_below(n_samples - 5)], rs = { .n = 0 };

			if (c.t[O].proto == TCP)
				xb_record(&rs, &rr, 1);
			else
				rs = rr;
			run_x(f, &c, R, &rs);
			check_that(&ck, f->n_bad == 0, "round %u reply: %s", r, f->bad);
			with_exp += f->n_exp != 0;
			edited += f->n_edit != 0;
		}
	}
	plugrun_answers_reset(f);
	conn_free(&c);
	check_that(&ck, accepted && dropped && with_exp && edited,
		   "accepted %u, dropped %u, with expectations %u, edited %u", accepted, dropped,
		   with_exp, edited);
	printf("# plugin fuzz: accepted %u, dropped %u, with expectations %u, edited %u\n",
	       accepted, dropped, with_exp, edited);
	check_end(&ck);
}

/* ---------------------------------------------------------------- failover */

/*
 * Failover (issue 18): the backup's daemon gets the connection with the
 * helper's name but a zeroed state: no pending calls, no framing.  A
 * reply to a call made before is not acted upon (no call to match it);
 * the next call and its reply work.  Over TCP the next segment is taken
 * to start a record, and whatever it holds is checked as strictly as
 * ever; over UDP every datagram is a whole message.
 */
static void test_failover(struct plugrun *f)
{
	struct xb call = getport(0x5001, 100003, TCP), reply = port_reply(0x5001, 2049);
	struct xb call2 = getport(0x5002, 100005, UDP), reply2 = port_reply(0x5002, 20048);
	struct xb seg, big = { .n = 0 };
	struct check ck;
	struct conn c = { .nat = 0 };
	int v;

	for (int tcp = 0; tcp < 2; tcp++) {
		check_start(&ck, "failover_zero_state_reply_ignored_%s", tcp ? "tcp" : "udp");
		rpc_conn(&c, V4, tcp ? TCP : UDP);
		seq_of[O] = 0x12345678u;
		seq_of[R] = 0x9abcdef0u;
		seg = tcp ? rec(&reply, 1) : reply;
		v = run_x(f, &c, R, &seg);          /* its call went by on the peer */
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_plain(&ck, f, 0);
		v = exchange(f, &c, &call2, &reply2);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_plain(&ck, f, 1);
		check_exp(&ck, f, 0, V4, UDP, CLIENT4, SERVER4, 20048);
		check_that(&ck, priv_of(&c)->version == RPC_PRIV_VERSION, "version %u",
			   priv_of(&c)->version);
		check_end(&ck);
	}

	/* the second segment of a long record: its first bytes as a mark
	 * announce a fragment beyond the record limit, so nothing is read;
	 * the next segment starts a record again */
	check_start(&ck, "failover_tcp_mid_record");
	rpc_conn(&c, V4, TCP);
	seq_of[R] = 0x40000000u;
	big.n = 1200;
	memset(big.b, 0xee, big.n);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	v = run_x(f, &c, R, &big);
	check_that(&ck, v == CTH_VERDICT_ACCEPT && !f->keep_asked, "middle: verdict %d kept %d",
		   v, f->keep_asked);
	check_plain(&ck, f, 0);
	seg = rec(&reply, 1);
	run_x(f, &c, R, &seg);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	check_end(&ck);

	/* the middle of a record that reads as a plausible mark: the
	 * message behind it must still parse as an answer to a known call */
	check_start(&ck, "failover_tcp_mid_record_plausible_mark");
	rpc_conn(&c, V4, TCP);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	big.n = 0;
	rpc_put32(big.b, RPC_MARK_LAST | 600);
	memset(big.b + 4, 0x11, 600);
	big.n = 604;
	v = run_x(f, &c, R, &big);
	check_plain(&ck, f, 0);
	check_that(&ck, calls_pending(&c) == 1, "%u pending", calls_pending(&c));
	check_end(&ck);

	/* garbage of the right version: a mark due 1 GiB ahead would have
	 * every segment skipped; it is not believed */
	check_start(&ck, "stale_resume_far_ahead_dropped");
	rpc_conn(&c, V4, TCP);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	{
		struct rpc_priv p;

		memcpy(&p, c.priv, sizeof(p));
		p.resume_seq[R] = seq_of[R] + 0x40000000u;
		p.flags |= RPC_F_RESUME(R) | RPC_F_SKIP(R);
		memcpy(c.priv, &p, sizeof(p));
	}
	seg = rec(&reply, 1);
	run_x(f, &c, R, &seg);
	check_plain(&ck, f, 1);
	check_exp(&ck, f, 0, V4, TCP, CLIENT4, SERVER4, 2049);
	check_end(&ck);

	/* stale: a mark due where an older segment ended (the state lags):
	 * the mark went by, the segment starts afresh */
	check_start(&ck, "stale_resume_behind");
	rpc_conn(&c, V4, TCP);
	seg = rec(&call, 1);
	run_x(f, &c, O, &seg);
	{
		struct rpc_priv p;

		memcpy(&p, c.priv, sizeof(p));
		p.resume_seq[R] = seq_of[R] - 300u;
		p.flags |= RPC_F_RESUME(R) | RPC_F_SKIP(R);
		memcpy(c.priv, &p, sizeof(p));
	}
	seg = rec(&reply, 1);
	run_x(f, &c, R, &seg);
	check_plain(&ck, f, 1);
	check_end(&ck);

	/* a version-0 state is no state: calls in it are not believed */
	check_start(&ck, "state_version_zero_is_empty");
	rpc_conn(&c, V4, UDP);
	{
		struct rpc_priv p = { .xid = { 0x5001 }, .call = { 1 } };

		memcpy(c.priv, &p, sizeof(p));
	}
	run_x(f, &c, R, &reply);
	check_plain(&ck, f, 0);
	check_end(&ck);

	/* random states: no crash, no host rule broken, a sane state after */
	check_start(&ck, "state_random_20k");
	for (unsigned int i = 0; i < 20000 && !ck.failed; i++) {
		bool tcp = rng_below(2);
		enum cth_dir dir = rng_below(2) ? O : R;

		rpc_conn(&c, V4, tcp ? TCP : UDP);
		for (size_t k = 0; k < sizeof(c.priv); k++)
			c.priv[k] = (uint8_t)rng_next();
		if (rng_below(2)) {
			struct rpc_priv p;

			memcpy(&p, c.priv, sizeof(p));
			p.version = RPC_PRIV_VERSION;
			p.reserved[0] = p.reserved[1] = 0;
			p.flags &= RPC_F_ALL;
			for (unsigned int k = 0; k < RPC_CALLS; k++)
				p.call[k] = (uint8_t)(rng_below(5) | (rng_below(2) ? RPC_CALL_TCP : 0));
			if (rng_below(2))
				p.xid[rng_below(RPC_CALLS)] = 0x5001;
			if (rng_below(2))
				p.resume_seq[dir] = seq_of[dir] + rng_below(4000);
			memcpy(c.priv, &p, sizeof(p));
		}
		seg = dir == O ? call : reply;
		if (tcp)
			seg = rec(&seg, 1 + rng_below(3));
		v = run_x(f, &c, dir, &seg);
		check_that(&ck, v == CTH_VERDICT_ACCEPT || v == CTH_VERDICT_DROP, "round %u: %d",
			   i, v);
		check_clean(&ck, f);
		check_that(&ck, f->n_exp <= 1, "round %u: %u expectations", i, f->n_exp);
		check_that(&ck, v == CTH_VERDICT_DROP || state_ok(c.priv),
			   "round %u: version %u", i, priv_of(&c)->version);
	}
	check_end(&ck);
	conn_free(&c);
}

/* ---------------------------------------------------------------- plugin: counters */

/* What the plugin counts (cth_count()), as the host keeps it: a call and
 * its reply of each outcome, every other counter unmoved. */
static void test_plugin_counters(struct plugrun *f)
{
	enum { K_PLAIN, K_NAT, K_BAD_CALL, K_BAD_REPLY };
	const struct {
		const char *name;
		int kind;
		struct xb call, reply;
		const char *counts;
	} cases[] = {
		{ "counters_getport", K_PLAIN, getport(0x6001, 100003, TCP), port_reply(0x6001, 2049),
		  "calls=1,replies=1,expectations=1" },
		{ "counters_getport_nat", K_NAT, getport(0x6002, 100003, TCP),
		  port_reply(0x6002, 2049), "calls=1,replies=1,expectations=1" },
		{ "counters_not_registered", K_PLAIN, getport(0x6003, 100003, TCP),
		  port_reply(0x6003, 0), "calls=1" },
		{ "counters_denied", K_PLAIN, getport(0x6004, 100003, TCP), denied_reply(0x6004),
		  "calls=1" },
		{ "counters_getaddr", K_PLAIN, getaddr(0x6005, 4, 3, "tcp"),
		  uaddr_reply(0x6005, "198.51.100.2.8.1"), "calls=1,replies=1,expectations=1" },
		{ "counters_other_host", K_PLAIN, getaddr(0x6006, 4, 3, "tcp"),
		  uaddr_reply(0x6006, "192.0.2.99.8.1"), "calls=1,replies=1,foreign_ignored=1" },
		{ "counters_unanswered_xid", K_PLAIN, getport(0x6007, 100003, TCP),
		  port_reply(0x6999, 2049), "calls=1" },
		{ "counters_malformed_call", K_BAD_CALL, getport(0x6008, 100003, TCP),
		  port_reply(0x6008, 2049), "parse_errors=1" },
		{ "counters_malformed_reply", K_BAD_REPLY, getport(0x6009, 100003, TCP),
		  port_reply(0x6009, 2049), "calls=1,parse_errors=1" },
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct xb call = cases[i].call, reply = cases[i].reply;
		struct counts before;
		struct check ck;
		struct conn c;
		int v;

		check_start(&ck, "%s", cases[i].name);
		plugrun_answers_reset(f);
		rpc_conn(&c, V4, UDP);
		if (cases[i].kind == K_NAT)
			conn_snat(&c, PUB4, 61000);
		/* a trailing byte: not the message its header says */
		if (cases[i].kind == K_BAD_CALL)
			call.b[call.n++] = 0;
		if (cases[i].kind == K_BAD_REPLY)
			reply.n -= 4;
		counts_take(f, &before);
		run_x(f, &c, O, &call);
		v = run_x(f, &c, R, &reply);
		check_that(&ck, v == CTH_VERDICT_ACCEPT, "verdict %d", v);
		check_counts(&ck, f, &before, cases[i].counts);
		check_end(&ck);
		conn_free(&c);
	}
}

int main(void)
{
	struct plugrun *f;

	test_uaddr_parse();
	test_uaddr_format();
	test_netid();
	test_call_parse();
	test_reply_parse();
	test_record_scan();

	f = plugrun_new();
	test_plugin_desc();
	test_plugin_config();
	test_getport_udp(f);
	test_getport_tcp(f);
	test_tcp_skip(f);
	test_getaddr(f);
	test_pipelined(f);
	test_bad_replies(f);
	test_nat(f);
	test_nat_uaddr(f);
	test_nat_limits(f);
	test_failover(f);
	test_plugin_counters(f);
	test_plugin_fuzz(f);
	plugrun_free(f);

	return check_exit();
}
