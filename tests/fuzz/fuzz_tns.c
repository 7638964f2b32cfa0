/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real TNS plugin (plugins/tns/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for one or two TCP segments of one connection:
 * IPv4 or IPv6, source and/or destination NAT, the server's direction or
 * the client's, an expected connection or not, tns_detach, a host with or
 * without cth_keep(), and expectation answers (created, port taken,
 * error) taken from the input.  A second segment in the same direction is
 * the one that follows the first, so bytes the plugin kept are shown in
 * front of it; private state carries over from the first.
 *
 * The plugin calls the host through a table wrapped here, so a request the
 * host's rules forbid is caught even where the host would only refuse it:
 * every edit inside the payload and after the kept bytes, never two over
 * one byte, none without NAT; every expectation valid (NATed only under
 * NAT); a detach only after an expectation of the same packet or an
 * ACCEPT, and never with tns_detach = no; nothing at all for a client packet.  After every
 * packet the result is checked (fuzz_common.h): at most 65531 bytes,
 * lengths and checksums right, headers otherwise unchanged; and a payload
 * whose TNS packets tiled it still does once rewritten, each REDIRECT's
 * data length inside its packet.
 *
 * Input: flags, host byte, expect mode, the first payload's length (16
 * bits), 16 bytes of private state, then the first payload and, when
 * anything is left, the second one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_common.h"
#include "keep.h"

#define TNS_PRIV_LEN 16u
#define TNS_CLASSES 1u
/* Most payload one packet of ours carries (IP length field, headers). */
#define TNS_PAYLOAD_MAX (65535u - 40u - 20u)

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_SNAT = 1u << 1,
	F_DNAT = 1u << 2,
	F_CLIENT = 1u << 3,     /* the first packet from the client */
	F_TURN = 1u << 4,       /* the second packet in the other direction */
	F_EXPECTED = 1u << 5,   /* an expected connection */
	F_TRUNCATED = 1u << 6,  /* the host holds only part of the first packet */
	F_GAP = 1u << 7,        /* the second segment does not follow the first */
};

/* bits of the host byte */
enum {
	H_NO_DETACH = 1u << 0,  /* tns_detach = no */
	H_OLD_HOST = 1u << 1,   /* no cth_keep() */
	H_TCP_NEW = 1u << 2,    /* a packet not established */
	H_CTL_FAIL = 1u << 3,   /* remove fails */
	H_DETACH_FAIL = 1u << 4,
};

static uint8_t host_bits, expect_mode;
static unsigned int expect_calls, edit_calls, detach_calls;

/* ------------------------------------------------------------ backend */

/* The expect mode's low bits: created; port taken (-EBUSY, or -EEXIST
 * when N is odd) for the first N; every port taken; an error after N. */
static int fz_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	unsigned int n = expect_mode >> 2;

	(void)c;
	(void)e;
	expect_calls++;
	if (!(how & CTH_EXPECT_SYNC))
		return 0;
	switch (expect_mode & 3) {
	case 0:
		return 0;
	case 1:
		return expect_calls > n ? 0 : n & 1 ? -EEXIST : -EBUSY;
	case 2:
		return -EBUSY;
	default:
		return expect_calls > n ? -ENOMEM : 0;
	}
}

static int fz_expect_ctl_fn(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	(void)c;
	(void)e;
	if (host_bits & H_CTL_FAIL)
		return op == CTH_EXPECT_OP_REMOVE ? -ENOENT : -EIO;
	return op == CTH_EXPECT_OP_REMOVE ? 1 : 0;
}

/* ------------------------------------------------------------ the plugin's view of the host */

static const struct cth_host *real_host;
static struct cth_host wrap_host;
static const struct cth_packet *cur;    /* the packet of the running call */
static struct {
	size_t off, len;
} edits[64];
static unsigned int n_edits, call_expects;

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "%s on a client packet", what);
	FZ_ASSERT(e && e->class < TNS_CLASSES && e->family == cur->tuple[0].family &&
		  e->proto == IPPROTO_TCP && e->dport != 0 && e->sport == 0,
		  "%s: class %u family %u proto %u port %u", what, e ? e->class : 0,
		  e ? e->family : 0, e ? e->proto : 0, e ? e->dport : 0);
	FZ_ASSERT(!(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || e->nat_dir == CTH_DIR_ORIGINAL,
		  "%s: nat_dir %d", what, e->nat_dir);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || cur->nat, "%s: NAT expectation without NAT",
		  what);
	FZ_ASSERT(!memcmp(&e->src, &cur->tuple[CTH_DIR_ORIGINAL].src, sizeof(e->src)),
		  "%s: not from the client", what);
}

static int wrap_expect(struct cth_ctx *ctx, const struct cth_expect *e, unsigned int how)
{
	fz_check_exp(e, "expect");
	FZ_ASSERT(!(how & ~(unsigned int)CTH_EXPECT_SYNC), "expect how %#x", how);
	call_expects++;
	return real_host->expect(ctx, e, how);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE, "expect_ctl op %u", op);
	fz_check_exp(e, "remove");
	return real_host->expect_ctl(ctx, op, e);
}

static int wrap_mangle(struct cth_ctx *ctx, size_t off, size_t len, const void *repl,
		       size_t repl_len)
{
	FZ_ASSERT(cur->nat, "edit at %zu without NAT", off);
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "edit of a client packet");
	FZ_ASSERT(off <= cur->payload_len && len <= cur->payload_len - off,
		  "edit %zu+%zu outside the %zu-byte payload", off, len, cur->payload_len);
	FZ_ASSERT(off >= cur->kept, "edit at %zu inside %zu kept bytes", off, cur->kept);
	FZ_ASSERT(repl || !repl_len, "edit without its bytes");
	for (unsigned int i = 0; i < n_edits; i++)
		FZ_ASSERT(edits[i].len || len ? !(edits[i].off < off + len && off < edits[i].off + edits[i].len)
					      : edits[i].off != off,
			  "edit %zu+%zu over %zu+%zu", off, len, edits[i].off, edits[i].len);
	if (n_edits < sizeof(edits) / sizeof(edits[0])) {
		edits[n_edits].off = off;
		edits[n_edits].len = len;
		n_edits++;
	}
	edit_calls++;
	return real_host->mangle(ctx, off, len, repl, repl_len);
}

static int wrap_keep(struct cth_ctx *ctx, size_t off)
{
	FZ_ASSERT(off <= cur->payload_len, "keep at %zu past %zu", off, cur->payload_len);
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "keep on a client packet");
	return real_host->keep(ctx, off);
}

static int wrap_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	(void)ctx;
	FZ_ASSERT(0, "set_mark %u", mark);
	return 0;
}

static int wrap_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	(void)ctx;
	FZ_ASSERT(0, "set_timeout %u", seconds);
	return 0;
}

static int wrap_detach(struct cth_ctx *ctx)
{
	FZ_ASSERT(!(host_bits & H_NO_DETACH), "detach with tns_detach = no");
	/* or an ACCEPT went by (type 2 somewhere in the payload: loose,
	 * but a detach out of nothing still trips it) */
	FZ_ASSERT(call_expects > 0 ||
		  memchr(((struct pkt_call *)ctx)->pkt.payload, 2,
			 ((struct pkt_call *)ctx)->pkt.payload_len),
		  "detach without an expectation or an ACCEPT");
	detach_calls++;
	if (host_bits & H_DETACH_FAIL)
		return -EOPNOTSUPP;
	return real_host->detach(ctx);
}

/* The TNS plugin behind the wrapped host table. */
static int wrap_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		       const void *config)
{
	int verdict;

	real_host = ctx->host;
	wrap_host = *real_host;
	wrap_host.expect = wrap_expect;
	wrap_host.expect_ctl = wrap_expect_ctl;
	wrap_host.mangle = wrap_mangle;
	wrap_host.keep = wrap_keep;
	wrap_host.set_mark = wrap_set_mark;
	wrap_host.set_timeout = wrap_set_timeout;
	wrap_host.detach = wrap_detach;
	if (host_bits & H_OLD_HOST)
		wrap_host.size = offsetof(struct cth_host, keep);
	cur = pkt;
	n_edits = 0;
	call_expects = 0;
	ctx->host = &wrap_host;
	verdict = cth_plugin.packet(ctx, pkt, priv, config);
	ctx->host = real_host;
	cur = NULL;
	FZ_ASSERT(verdict == CTH_VERDICT_ACCEPT || verdict == CTH_VERDICT_DROP, "verdict %d",
		  verdict);
	return verdict;
}

static struct cth_plugin_desc wrap_desc;
static const struct plugin wrap_pl = { .desc = &wrap_desc };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_init();
	wrap_desc = cth_plugin;
	wrap_desc.packet = wrap_packet;
	return 0;
}

/* ------------------------------------------------------------ packets */

struct fz_conn {
	int family;
	struct cth_tuple t[2];
	unsigned int nat, status;
	uint8_t priv[CTH_PRIV_MAX];
	uint64_t config[32];
	struct instance inst;
	struct keep keep;
};

/* The seeds' addresses (mkseeds_tns.py, like tests/unit/test_tns.c): the
 * client calls the listener on 1521; SNAT shows the client as PUB, DNAT
 * has the client dial PUB (DNAT2 when both). */
enum fz_host { FZ_CLIENT, FZ_SERVER, FZ_PUB, FZ_DNAT2 };

static void fz_addr(int family, union cth_addr *a, enum fz_host h)
{
	static const char *const v4[] = { "192.168.1.10", "10.0.0.5", "203.0.113.5",
					   "203.0.113.6" };
	static const char *const v6[] = { "2001:db8:1::10", "2001:db8:2::5", "2001:db8:ffff::5",
					   "2001:db8:ffff::6" };

	memset(a, 0, sizeof(*a));
	if (inet_pton(family, family == AF_INET6 ? v6[h] : v4[h], a->raw) != 1)
		abort();
}

static void fz_conn_init(struct fz_conn *fc, uint8_t flags)
{
	struct cth_tuple *o = &fc->t[CTH_DIR_ORIGINAL], *r = &fc->t[CTH_DIR_REPLY];

	fc->family = flags & F_IPV6 ? AF_INET6 : AF_INET;
	memset(fc->t, 0, sizeof(fc->t));
	fz_addr(fc->family, &o->src, FZ_CLIENT);
	fz_addr(fc->family, &o->dst, FZ_SERVER);
	o->sport = 40000;
	o->dport = 1521;
	o->family = r->family = (uint8_t)fc->family;
	o->proto = r->proto = IPPROTO_TCP;
	r->src = o->dst;
	r->dst = o->src;
	r->sport = o->dport;
	r->dport = o->sport;
	fc->nat = 0;
	if (flags & F_SNAT) {
		fz_addr(fc->family, &r->dst, FZ_PUB);
		r->dport = 61000;
		fc->nat |= CTH_NAT_SRC;
	}
	if (flags & F_DNAT) {
		fz_addr(fc->family, &o->dst, flags & F_SNAT ? FZ_DNAT2 : FZ_PUB);
		fc->nat |= CTH_NAT_DST;
	}
	fc->status = CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY | (flags & F_EXPECTED ? CTH_CT_EXPECTED : 0);
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

/* An IP packet of the connection's direction dir carrying n payload
 * bytes (checksums left 0: the host recomputes what it sends). */
static uint8_t *fz_build(const struct fz_conn *fc, enum cth_dir dir, uint32_t seq,
			 const uint8_t *payload, size_t n, size_t *lenp)
{
	const struct cth_tuple *t = &fc->t[dir];
	bool v6 = fc->family == AF_INET6;
	size_t l3 = v6 ? 40 : 20, l4 = 20, len = l3 + l4 + n;
	uint8_t *p = calloc(1, len), *h;

	if (!p)
		abort();
	if (v6) {
		p[0] = 0x60;
		put16(p + 4, (unsigned int)(l4 + n));
		p[6] = IPPROTO_TCP;
		p[7] = 64;
		memcpy(p + 8, t->src.raw, 16);
		memcpy(p + 24, t->dst.raw, 16);
	} else {
		p[0] = 0x45;
		put16(p + 2, (unsigned int)len);
		p[8] = 64;
		p[9] = IPPROTO_TCP;
		memcpy(p + 12, t->src.raw, 4);
		memcpy(p + 16, t->dst.raw, 4);
	}
	h = p + l3;
	put16(h, t->sport);
	put16(h + 2, t->dport);
	put32(h + 4, seq);
	h[12] = 5 << 4;
	h[13] = 0x18;          /* PSH, ACK */
	put16(h + 14, 0xffff);
	memcpy(h + l4, payload, n);
	*lenp = len;
	return p;
}

static uint16_t fz_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Do TNS packets tile the bytes, each REDIRECT's data length inside its
 * packet?  (The plugin's reading: a 2-byte length, or a 4-byte one when
 * the first two bytes are 0; types 1..19.) */
static bool fz_tiles(const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		uint32_t len;

		if (n - off < 8)
			return false;
		len = fz_get16(p + off);
		if (len == 0)
			len = fz_get16(p + off + 2);
		if (len < 8 || len > n - off || p[off + 4] == 0 || p[off + 4] > 19)
			return false;
		if (p[off + 4] == 5 && len >= 10 && fz_get16(p + off + 8) > len - 10)
			return false;
		off += len;
	}
	return true;
}

/* One packet through the worker's steps; the state the verdict writes
 * back is the connection's from then on. */
static void fz_packet(struct fz_conn *fc, enum cth_dir dir, uint32_t seq, const uint8_t *payload,
		      size_t n, bool truncated, uint64_t now)
{
	struct pkt_call c;
	const uint8_t *r;
	size_t len, rlen = 0;
	uint8_t *pkt = fz_build(fc, dir, seq, payload, n, &len);
	bool keep = !(host_bits & H_OLD_HOST);
	unsigned int edits_before = edit_calls;
	int verdict;

	memset(&c, 0, sizeof(c));
	if (pkt_view_parse(&c.pkt, pkt, len, fc->family) < 0)
		abort();
	c.inst = &fc->inst;
	c.expect_fn = fz_expect_fn;
	c.expect_ctl_fn = fz_expect_ctl_fn;
	c.keep = keep ? &fc->keep : NULL;
	c.truncated = truncated;
	c.pkt.dir = dir;
	c.pkt.ctinfo = (host_bits & H_TCP_NEW) ? CTH_CT_NEW :
		       dir == CTH_DIR_ORIGINAL ? CTH_CT_ESTABLISHED : CTH_CT_ESTABLISHED_REPLY;
	c.pkt.tuple[0] = fc->t[0];
	c.pkt.tuple[1] = fc->t[1];
	c.pkt.nat = fc->nat;
	c.pkt.ct_status = fc->status;
	c.pkt.ct_id = 1;
	if (keep)
		keep_join(&fc->keep, &c, now);
	verdict = pkt_call_run(&c, fc->priv, sizeof(fc->priv));
	if (keep)
		keep_done(&fc->keep, &c, verdict, now);
	memcpy(fc->priv, c.priv, sizeof(fc->priv));

	r = pkt_call_mangled(&c, &rlen);
	if (fz_verbose)
		fprintf(stderr, "fuzz_tns: %s%s dir %d, %zu+%zu payload bytes, verdict %d, "
			"%u expect, %u edits, %u detach, result %zu bytes\n",
			fc->family == AF_INET6 ? "IPv6" : "IPv4", fc->nat ? " NAT" : "", dir,
			c.pkt.kept, n, verdict, expect_calls, edit_calls, detach_calls,
			r ? rlen : 0);
	if (r) {
		FZ_ASSERT(fc->nat && !truncated, "rewritten without NAT, or truncated");
		fz_check_result(&c.pkt, r, rlen, NULL, 0);
		if (edit_calls != edits_before && c.pkt.kept == 0 && fz_tiles(payload, n))
			FZ_ASSERT(fz_tiles(r + c.pkt.payload_offset, rlen - c.pkt.payload_offset),
				  "rewritten TNS packets no longer tile the payload");
	}
	pkt_call_release(&c);
	free(pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_conn fc;
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in);
	size_t n1, n2;
	enum cth_dir dir;
	uint32_t seq = 0xfffffe00;   /* wraps within a long input */

	host_bits = fz_u8(&in);
	expect_mode = fz_u8(&in);
	n1 = fz_u16(&in);
	expect_calls = edit_calls = detach_calls = 0;

	memset(&fc, 0, sizeof(fc));
	fz_conn_init(&fc, flags);
	fz_bytes(&in, fc.priv, TNS_PRIV_LEN);
	FZ_ASSERT(cth_plugin.config_size <= sizeof(fc.config), "config_size %zu",
		  cth_plugin.config_size);
	FZ_ASSERT(cth_plugin.priv_size <= CTH_PRIV_MAX, "priv_size %zu", cth_plugin.priv_size);
	if (host_bits & H_NO_DETACH)
		cth_plugin.configure(fc.config, "tns_detach", "no");
	fc.inst = (struct instance){ .name = "tns", .pl = &wrap_pl, .config = fc.config,
				     .n_classes = TNS_CLASSES };

	if (n1 > in.n)
		n1 = in.n;
	if (n1 > TNS_PAYLOAD_MAX)
		n1 = TNS_PAYLOAD_MAX;
	n2 = in.n - n1;
	if (n2 > TNS_PAYLOAD_MAX)
		n2 = TNS_PAYLOAD_MAX;

	dir = flags & F_CLIENT ? CTH_DIR_ORIGINAL : CTH_DIR_REPLY;
	if (n1)
		fz_packet(&fc, dir, seq, in.p, n1, flags & F_TRUNCATED, 1000);
	if (n2) {
		/* the same direction's next segment (or one further on), or
		 * the other side's */
		if (flags & F_TURN)
			dir = dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
		else
			seq += (uint32_t)n1 + (flags & F_GAP ? 1000u : 0u);
		fz_packet(&fc, dir, seq, in.p + n1, n2, false, 1001);
	}
	keep_free(&fc.keep);
	return 0;
}
