/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real rpc plugin (plugins/rpc/, linked in) on the
 * host path -- pkt_view_parse(), keep_join(), pkt_call_run(), keep_done(),
 * its edits, the result -- for up to 8 packets of one connection to port
 * 111: UDP or TCP, IPv4 or IPv6, source and/or destination NAT, calls
 * from the client and replies from the server in any order, its
 * "permanent" key, a host with or without cth_keep(), and expectation
 * answers (created, port taken, error) taken from the input.  Over TCP
 * each direction's segments follow one another (unless the input says a
 * segment was lost), so bytes the plugin kept are shown in front of the
 * next one.
 *
 * The plugin calls the host through a table wrapped here, so a request
 * the host's rules forbid is caught even where the host would only refuse
 * it: every edit inside the payload and after the kept bytes, never two
 * over one byte, none without NAT; every expectation valid, of class 0,
 * towards the address the client dialled, NATed only under NAT.  After
 * every packet the result is checked (fuzz_common.h): lengths and
 * checksums right, headers otherwise unchanged; a rewritten UDP reply
 * still parses as a successful reply naming the dialled address, and a
 * rewritten TCP segment whose records were whole still is whole records.
 *
 * Input: flags, host byte, expect mode, 32 bytes of private state, then
 * packets, each a byte (bit 0: from the server; bit 1: the host holds
 * only part of it; bit 2: a segment before it was lost), a 16-bit
 * length and the payload.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_common.h"
#include "keep.h"
#include "../../plugins/rpc/rpc_parse.h"

#define RPC_CLASSES 1u
#define RPC_PACKETS_MAX 8u
/* Most payload one packet of ours carries (IP length field, headers). */
#define RPC_PAYLOAD_MAX (65535u - 40u - 20u)

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_TCP = 1u << 1,
	F_SNAT = 1u << 2,
	F_DNAT = 1u << 3,
	F_STATE = 1u << 4,      /* start from the input's private state */
	F_EXPECTED = 1u << 5,   /* an expected connection */
};

/* bits of the host byte */
enum {
	H_PERMANENT = 1u << 0,  /* permanent = yes */
	H_OLD_HOST = 1u << 1,   /* no cth_keep() */
	H_TCP_NEW = 1u << 2,    /* TCP packets not established */
	H_CTL_FAIL = 1u << 3,   /* remove fails */
};

/* bits of a packet's byte */
enum {
	P_REPLY = 1u << 0,
	P_TRUNCATED = 1u << 1,
	P_GAP = 1u << 2,
};

static uint8_t host_bits, expect_mode;
static unsigned int expect_calls, ctl_calls, edit_calls;

/* ------------------------------------------------------------ backend */

/* The expect mode's low bits: created; port taken (-EBUSY, or -EEXIST
 * when N is odd) for the first N; every port taken; an error after N
 * created. */
static int fz_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	unsigned int n = expect_mode >> 2;

	(void)c;
	(void)e;
	expect_calls++;
	if (!(how & CTH_EXPECT_SYNC))
		return (expect_mode & 3) == 3 && expect_calls > n ? -ENOMEM : 0;
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
	if (host_bits & H_CTL_FAIL)
		return -ENOENT;
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
	const struct cth_tuple *o = &cur->tuple[CTH_DIR_ORIGINAL];

	FZ_ASSERT(e && e->class < RPC_CLASSES && e->family == o->family &&
		  (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP) && e->dport != 0,
		  "%s: class %u family %u proto %u port %u", what, e ? e->class : 0,
		  e ? e->family : 0, e ? e->proto : 0, e ? e->dport : 0);
	FZ_ASSERT(!(e->flags & ~(unsigned int)(CTH_EXPECT_PERMANENT | CTH_EXPECT_NAT)),
		  "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_PERMANENT) == !(host_bits & H_PERMANENT),
		  "%s: permanent flag %#x without the key", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || (e->nat_dir == CTH_DIR_ORIGINAL && e->fn &&
						  strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0),
		  "%s: nat_dir %d", what, e->nat_dir);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) == !cur->nat, "%s: NAT flag %#x, nat %u", what,
		  e->flags, cur->nat);
	/* only ever the client towards the server as it dialled it */
	FZ_ASSERT(memcmp(e->src.raw, o->src.raw, o->family == AF_INET6 ? 16 : 4) == 0 &&
		  memcmp(e->dst.raw, o->dst.raw, o->family == AF_INET6 ? 16 : 4) == 0 &&
		  e->sport == 0, "%s: not client -> dialled server", what);
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "%s: expectation from a client's packet", what);
}

static int wrap_expect(struct cth_ctx *ctx, const struct cth_expect *e, unsigned int how)
{
	fz_check_exp(e, "expect");
	FZ_ASSERT(!(how & ~(unsigned int)CTH_EXPECT_SYNC), "expect how %#x", how);
	return real_host->expect(ctx, e, how);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	FZ_ASSERT(op == CTH_EXPECT_OP_REMOVE && e && e->family == cur->tuple[0].family,
		  "expect_ctl op %u", op);
	return real_host->expect_ctl(ctx, op, e);
}

static int wrap_mangle(struct cth_ctx *ctx, size_t off, size_t len, const void *repl,
		       size_t repl_len)
{
	FZ_ASSERT(cur->nat, "edit at %zu without NAT", off);
	FZ_ASSERT(cur->dir == CTH_DIR_REPLY, "edit of a client's packet at %zu", off);
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

static int wrap_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	(void)ctx;
	FZ_ASSERT(0, "set_timeout %u", seconds);
	return 0;
}

static int wrap_detach(struct cth_ctx *ctx)
{
	(void)ctx;
	FZ_ASSERT(0, "detach");
	return 0;
}

/* The rpc plugin behind the wrapped host table. */
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
	uint32_t seq[2];
};

/* The seeds' addresses (mkseeds_rpc.py, like tests/unit/test_rpc.c): the
 * client at port 812 asks the server's 111; SNAT shows the client as
 * PUB:40000, DNAT has the client dial PUB (DNAT2 when both). */
enum fz_host { FZ_CLIENT, FZ_SERVER, FZ_PUB, FZ_DNAT2 };

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
	fz_addr(fc->family, &o->src, FZ_CLIENT);
	fz_addr(fc->family, &o->dst, FZ_SERVER);
	o->sport = 812;
	o->dport = 111;
	o->family = r->family = (uint8_t)fc->family;
	o->proto = r->proto = fc->proto;
	r->src = o->dst;
	r->dst = o->src;
	r->sport = o->dport;
	r->dport = o->sport;
	fc->nat = 0;
	if (flags & F_SNAT) {
		fz_addr(fc->family, &r->dst, FZ_PUB);
		r->dport = 40000;
		fc->nat |= CTH_NAT_SRC;
	}
	if (flags & F_DNAT) {
		fz_addr(fc->family, &o->dst, flags & F_SNAT ? FZ_DNAT2 : FZ_PUB);
		fc->nat |= CTH_NAT_DST;
	}
	fc->status = CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY | (flags & F_EXPECTED ? CTH_CT_EXPECTED : 0);
	fc->seq[0] = 0x10203040;
	fc->seq[1] = 0xfffffc00;        /* wraps within a few segments */
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

/* Whole records from 0 to len exactly. */
static bool fz_records_whole(const uint8_t *buf, size_t len)
{
	struct rpc_record r;
	size_t off = 0;

	while (off < len) {
		if (rpc_record_scan(buf, len, off, &r) < 0)
			return false;
		off = r.end;
	}
	return true;
}

/* A rewritten datagram is a successful reply naming the dialled server. */
static void fz_check_udp_reply(const struct fz_conn *fc, const uint8_t *p, size_t n)
{
	const union cth_addr *dialled = &fc->t[CTH_DIR_ORIGINAL].dst;
	struct rpc_reply r;
	struct rpc_uaddr u;
	uint16_t port;

	FZ_ASSERT(rpc_reply_parse(p, n, &r) == 0 && r.success, "rewritten reply does not parse");
	if (rpc_port_result(p, n, &r, &port) == 0) {
		FZ_ASSERT(port != 0, "rewritten to port 0");
		return;
	}
	FZ_ASSERT(rpc_uaddr_result(p, n, &r, fc->family, &u) == 0 && u.port != 0 &&
		  memcmp(u.addr.raw, dialled->raw, fc->family == AF_INET6 ? 16 : 4) == 0,
		  "rewritten universal address does not name the dialled server");
}

/* One packet through the worker's steps; the state the verdict writes
 * back is the connection's from then on. */
static void fz_packet(struct fz_conn *fc, enum cth_dir dir, const uint8_t *payload, size_t n,
		      bool truncated, uint64_t now)
{
	struct pkt_call c;
	const uint8_t *r;
	size_t len, rlen = 0;
	uint8_t *pkt = fz_build(fc, dir, fc->seq[dir], payload, n, &len);
	bool keep = !(host_bits & H_OLD_HOST);
	bool whole = fz_records_whole(payload, n);
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
	if (verdict == CTH_VERDICT_ACCEPT)
		fc->seq[dir] += (uint32_t)n;

	r = pkt_call_mangled(&c, &rlen);
	if (fz_verbose)
		fprintf(stderr, "fuzz_rpc: %s %s%s dir %d, %zu+%zu payload bytes, verdict %d, "
			"%u expect, %u ctl, %u edits, result %zu bytes\n",
			fc->family == AF_INET6 ? "IPv6" : "IPv4",
			fc->proto == IPPROTO_TCP ? "TCP" : "UDP", fc->nat ? " NAT" : "", dir,
			c.pkt.kept, n, verdict, expect_calls, ctl_calls, edit_calls, r ? rlen : 0);
	if (r) {
		FZ_ASSERT(fc->nat && !truncated, "rewritten without NAT, or truncated");
		fz_check_result(&c.pkt, r, rlen, NULL, 0);
		if (verdict == CTH_VERDICT_ACCEPT && fc->proto == IPPROTO_UDP)
			fz_check_udp_reply(fc, r + c.pkt.payload_offset, rlen - c.pkt.payload_offset);
		if (verdict == CTH_VERDICT_ACCEPT && fc->proto == IPPROTO_TCP && whole &&
		    c.pkt.kept == 0)
			FZ_ASSERT(fz_records_whole(r + c.pkt.payload_offset,
						   rlen - c.pkt.payload_offset),
				  "rewritten records no longer whole");
	}
	pkt_call_release(&c);
	free(pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_conn fc;
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in);
	uint8_t state[CTH_PRIV_MAX];

	host_bits = fz_u8(&in);
	expect_mode = fz_u8(&in);
	expect_calls = ctl_calls = edit_calls = 0;

	memset(&fc, 0, sizeof(fc));
	fz_conn_init(&fc, flags);
	fz_bytes(&in, state, sizeof(state));
	if (flags & F_STATE)
		memcpy(fc.priv, state, sizeof(state));
	FZ_ASSERT(cth_plugin.config_size <= sizeof(fc.config), "config_size %zu",
		  cth_plugin.config_size);
	if (host_bits & H_PERMANENT)
		cth_plugin.configure(fc.config, "permanent", "yes");
	fc.inst = (struct instance){ .name = "rpc", .pl = &wrap_pl, .config = fc.config,
				     .n_classes = RPC_CLASSES };

	for (unsigned int i = 0; i < RPC_PACKETS_MAX && in.n >= 3; i++) {
		uint8_t pb = fz_u8(&in);
		size_t n = fz_u16(&in);
		enum cth_dir dir = pb & P_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;

		if (n > in.n)
			n = in.n;
		if (n > RPC_PAYLOAD_MAX)
			n = RPC_PAYLOAD_MAX;
		if (pb & P_GAP)
			fc.seq[dir] += 1000;
		if (n)
			fz_packet(&fc, dir, in.p, n, pb & P_TRUNCATED, 1000 + i);
		in.p += n;
		in.n -= n;
	}
	keep_free(&fc.keep);
	return 0;
}
