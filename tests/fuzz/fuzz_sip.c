/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real SIP plugin (plugins/sip/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for one or two packets of one connection: UDP
 * or TCP, IPv4 or IPv6, source and/or destination NAT, either direction,
 * an expected connection or not, the plugin's yes/no keys, a host with or
 * without cth_keep(), and expectation answers (created, port taken, error)
 * taken from the input.  Over TCP a second packet in the same direction is
 * the segment that follows the first, so bytes the plugin kept are shown
 * in front of it.
 *
 * The plugin calls the host through a table wrapped here, so a request the
 * host's rules forbid is caught even where the host would only refuse it:
 * every edit inside the payload and after the kept bytes, never two over
 * one byte, none without NAT; every expectation, expectation operation and
 * keep offset valid.  After every packet the result is checked
 * (fuzz_common.h): at most 65531 bytes, lengths and checksums right,
 * headers otherwise unchanged.
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

#define SIP_PRIV_LEN 16u
#define SIP_CLASSES 4u
/* Most payload one packet of ours carries (IP length field, headers). */
#define SIP_PAYLOAD_MAX (65535u - 40u - 20u)

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_TCP = 1u << 1,
	F_SNAT = 1u << 2,
	F_DNAT = 1u << 3,
	F_REPLY = 1u << 4,      /* the first packet in the reply direction */
	F_TURN = 1u << 5,       /* the second packet in the other direction */
	F_EXPECTED = 1u << 6,   /* an expected connection */
	F_TRUNCATED = 1u << 7,  /* the host holds only part of the first packet */
};

/* bits of the host byte */
enum {
	H_MEDIA_ANY = 1u << 0,      /* sip_direct_media = no */
	H_SIGNAL_ANY = 1u << 1,     /* sip_direct_signalling = no */
	H_OLD_HOST = 1u << 2,       /* no cth_keep() */
	H_REFRESH_ENOENT = 1u << 3, /* the registration's expectation is gone */
	H_OTHER_PORT = 1u << 4,     /* ports = 5070: 5060 is not ours */
	H_TCP_NEW = 1u << 5,        /* a TCP packet not established */
	H_CTL_FAIL = 1u << 6,       /* flush and remove fail */
};

static uint8_t host_bits, expect_mode;
static unsigned int expect_calls, ctl_calls, edit_calls;

/* ------------------------------------------------------------ backend */

/* The expect mode's low bits: created; port taken (-EBUSY, or -EEXIST
 * when N is odd) for the first N; every port taken; an error after N
 * created (RTCP failing after its RTP). */
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
	ctl_calls++;
	if (op == CTH_EXPECT_OP_REFRESH)
		return host_bits & H_REFRESH_ENOENT ? -ENOENT : 0;
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
static unsigned int n_edits;

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	FZ_ASSERT(e && e->class < SIP_CLASSES && e->family == cur->tuple[0].family &&
		  (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP) && e->dport != 0,
		  "%s: class %u family %u proto %u port %u", what, e ? e->class : 0,
		  e ? e->family : 0, e ? e->proto : 0, e ? e->dport : 0);
	FZ_ASSERT(!(e->flags & ~(unsigned int)(CTH_EXPECT_ANY_SRC | CTH_EXPECT_PERMANENT |
					       CTH_EXPECT_INACTIVE | CTH_EXPECT_NAT |
					       CTH_EXPECT_HELPER)), "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || e->nat_dir == CTH_DIR_ORIGINAL ||
		  e->nat_dir == CTH_DIR_REPLY, "%s: nat_dir %d", what, e->nat_dir);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || cur->nat, "%s: NAT expectation without NAT",
		  what);
}

static int wrap_expect(struct cth_ctx *ctx, const struct cth_expect *e, unsigned int how)
{
	fz_check_exp(e, "expect");
	FZ_ASSERT(!(how & ~(unsigned int)CTH_EXPECT_SYNC), "expect how %#x", how);
	return real_host->expect(ctx, e, how);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	if (op == CTH_EXPECT_OP_FLUSH)
		FZ_ASSERT(!e || e->class < SIP_CLASSES, "flush class %u", e->class);
	else if (op == CTH_EXPECT_OP_REFRESH)
		fz_check_exp(e, "refresh");
	else
		FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE && e && e->family == cur->tuple[0].family,
			  "expect_ctl op %u", op);
	return real_host->expect_ctl(ctx, op, e);
}

static int wrap_mangle(struct cth_ctx *ctx, size_t off, size_t len, const void *repl,
		       size_t repl_len)
{
	FZ_ASSERT(cur->nat, "edit at %zu without NAT", off);
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
	return real_host->keep(ctx, off);
}

static int wrap_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	(void)ctx;
	FZ_ASSERT(0, "set_mark %u", mark);
	return 0;
}

static int wrap_detach(struct cth_ctx *ctx)
{
	(void)ctx;
	FZ_ASSERT(0, "detach");
	return 0;
}

/* The SIP plugin behind the wrapped host table. */
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
	wrap_host.detach = wrap_detach;
	if (host_bits & H_OLD_HOST)
		wrap_host.size = offsetof(struct cth_host, keep);
	cur = pkt;
	n_edits = 0;
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
	uint8_t proto;
	struct cth_tuple t[2];
	unsigned int nat, status;
	uint8_t priv[CTH_PRIV_MAX];
	uint64_t config[32];
	struct instance inst;
	struct keep keep;
};

/* The seeds' addresses (mkseeds.py, like tests/unit/test_sip.c): the
 * phone calls the proxy on 5060; SNAT shows the phone as PUB:5062, DNAT
 * has the phone call PUB (DNAT2 when both) on 5060. */
enum fz_host { FZ_PHONE, FZ_PROXY, FZ_PUB, FZ_DNAT2 };

static void fz_addr(int family, union cth_addr *a, enum fz_host h)
{
	static const char *const v4[] = { "192.168.1.10", "198.51.100.2", "203.0.113.5",
					   "203.0.113.6" };
	static const char *const v6[] = { "2001:db8::10", "2001:db8:1::2", "2001:db8:ffff::1",
					   "2001:db8:ffff::2" };

	memset(a, 0, sizeof(*a));
	if (inet_pton(family, family == AF_INET6 ? v6[h] : v4[h], a->raw) != 1)
		abort();
}

static void fz_conn_init(struct fz_conn *fc, uint8_t flags)
{
	struct cth_tuple *o = &fc->t[CTH_DIR_ORIGINAL], *r = &fc->t[CTH_DIR_REPLY];

	fc->family = flags & F_IPV6 ? AF_INET6 : AF_INET;
	fc->proto = flags & F_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	memset(fc->t, 0, sizeof(fc->t));
	fz_addr(fc->family, &o->src, FZ_PHONE);
	fz_addr(fc->family, &o->dst, FZ_PROXY);
	o->sport = o->dport = 5060;
	o->family = r->family = (uint8_t)fc->family;
	o->proto = r->proto = fc->proto;
	r->src = o->dst;
	r->dst = o->src;
	r->sport = o->dport;
	r->dport = o->sport;
	fc->nat = 0;
	if (flags & F_SNAT) {
		fz_addr(fc->family, &r->dst, FZ_PUB);
		r->dport = 5062;
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
	bool v6 = fc->family == AF_INET6, tcp = fc->proto == IPPROTO_TCP;
	size_t l3 = v6 ? 40 : 20, l4 = tcp ? 20 : 8, len = l3 + l4 + n;
	uint8_t *p = calloc(1, len), *h;

	if (!p)
		abort();
	if (v6) {
		p[0] = 0x60;
		put16(p + 4, (unsigned int)(l4 + n));
		p[6] = fc->proto;
		p[7] = 64;
		memcpy(p + 8, t->src.raw, 16);
		memcpy(p + 24, t->dst.raw, 16);
	} else {
		p[0] = 0x45;
		put16(p + 2, (unsigned int)len);
		p[8] = 64;
		p[9] = fc->proto;
		memcpy(p + 12, t->src.raw, 4);
		memcpy(p + 16, t->dst.raw, 4);
	}
	h = p + l3;
	put16(h, t->sport);
	put16(h + 2, t->dport);
	if (tcp) {
		put32(h + 4, seq);
		h[12] = 5 << 4;
		h[13] = 0x10;          /* ACK */
		put16(h + 14, 0xffff);
	} else {
		put16(h + 4, (unsigned int)(l4 + n));
	}
	memcpy(h + l4, payload, n);
	*lenp = len;
	return p;
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
	c.pkt.ctinfo = fc->proto == IPPROTO_TCP && (host_bits & H_TCP_NEW) ? CTH_CT_NEW :
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
		fprintf(stderr, "fuzz_sip: %s %s%s dir %d, %zu+%zu payload bytes, verdict %d, "
			"%u expect, %u ctl, %u edits, result %zu bytes\n",
			fc->family == AF_INET6 ? "IPv6" : "IPv4",
			fc->proto == IPPROTO_TCP ? "TCP" : "UDP", fc->nat ? " NAT" : "", dir,
			c.pkt.kept, n, verdict, expect_calls, ctl_calls, edit_calls, r ? rlen : 0);
	if (r) {
		FZ_ASSERT(fc->nat && !truncated, "rewritten without NAT, or truncated");
		fz_check_result(&c.pkt, r, rlen, NULL, 0);
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
	uint32_t seq = 0x10203040;

	host_bits = fz_u8(&in);
	expect_mode = fz_u8(&in);
	n1 = fz_u16(&in);
	expect_calls = ctl_calls = edit_calls = 0;

	memset(&fc, 0, sizeof(fc));
	fz_conn_init(&fc, flags);
	fz_bytes(&in, fc.priv, SIP_PRIV_LEN);
	FZ_ASSERT(cth_plugin.config_size <= sizeof(fc.config), "config_size %zu",
		  cth_plugin.config_size);
	if (host_bits & H_MEDIA_ANY)
		cth_plugin.configure(fc.config, "sip_direct_media", "no");
	if (host_bits & H_SIGNAL_ANY)
		cth_plugin.configure(fc.config, "sip_direct_signalling", "no");
	if (host_bits & H_OTHER_PORT)
		cth_plugin.configure(fc.config, "ports", "5070");
	fc.inst = (struct instance){ .name = "sip", .pl = &wrap_pl, .config = fc.config,
				     .n_classes = SIP_CLASSES };

	if (n1 > in.n)
		n1 = in.n;
	if (n1 > SIP_PAYLOAD_MAX)
		n1 = SIP_PAYLOAD_MAX;
	n2 = in.n - n1;
	if (n2 > SIP_PAYLOAD_MAX)
		n2 = SIP_PAYLOAD_MAX;

	dir = flags & F_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	if (n1)
		fz_packet(&fc, dir, seq, in.p, n1, flags & F_TRUNCATED, 1000);
	if (n2) {
		/* the same direction's next segment, or the other side's */
		if (flags & F_TURN)
			dir = dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
		else
			seq += (uint32_t)n1;
		fz_packet(&fc, dir, seq, in.p + n1, n2, false, 1001);
	}
	keep_free(&fc.keep);
	return 0;
}
