/* SPDX-License-Identifier: MIT */
/*
 * Shared by the targets that run one real plugin (linked in as cth_plugin)
 * on the host path for packets of a connection of their own (fuzz_sip,
 * fuzz_tns, fuzz_rpc, fuzz_tftp, fuzz_rtsp): pkt_view_parse(), keep_join(),
 * pkt_call_run(), keep_done(), its edits, the result.  It holds their libFuzzer entry
 * point: every input starts with a flags byte, a host byte and an expect
 * mode, then the target reads the rest (fzp_target.input); the host
 * byte's bits the target names switch the plugin's keys, old host,
 * TCP not established and failing expectation operations.
 *
 * The plugin calls the host through a table wrapped here, so a request the
 * host's rules forbid is caught even where the host would only refuse it:
 * every edit inside the payload and after the kept bytes, never two over
 * one byte, none without NAT; every keep offset inside the payload; no
 * set_mark.  What else a plugin may ask for, the target says in its
 * struct fzp_target fzp_target.
 */
#ifndef CTH_FUZZ_PLUGIN_H
#define CTH_FUZZ_PLUGIN_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_hostpath.h"
#include "host/keep.h"

/* Most payload one packet of ours carries (IP length field, headers). */
#define FZP_PAYLOAD_MAX (65535u - 40u - 20u)

struct fz_conn {
	int family;
	uint8_t proto;
	struct cth_tuple t[2];
	unsigned int nat, status;
	uint8_t priv[CTH_PRIV_MAX];
	uint64_t config[32];
	struct instance inst;
	struct keep keep;
	uint32_t seq[2];        /* for targets that track each direction's */
};

/* One packet's call, for the target's own checks. */
struct fzp_out {
	const struct pkt_call *c;
	int verdict;
	const uint8_t *r;       /* the packet sent back when rewritten, else NULL */
	size_t rlen;
	const uint8_t *payload; /* what went in */
	size_t n;
	unsigned int edits;     /* the plugin's edits in this call */
};

/* Where the seeds' connections lead (mkseeds*.py, like the unit tests):
 * the client dials the server; SNAT shows the client as PUB:snat_port,
 * DNAT has the client dial PUB (DNAT2 when both). */
enum fz_host { FZ_CLIENT, FZ_SERVER, FZ_PUB, FZ_DNAT2 };

/* A plugin key the host byte's bit switches on ("key=value"). */
struct fzp_key {
	uint8_t bit;
	const char *set;
};

struct fzp_target {
	/* the rest of the input after the flags byte and fzp_read_head()'s:
	 * the connection (fzp_conn_init()) and its packets */
	void (*input)(struct fz_conn *fc, struct fz *in, uint8_t flags);
	const char *v4[4], *v6[4];      /* by enum fz_host */
	uint16_t sport, dport, snat_port;
	uint8_t tcp_flags;
	struct fzp_key keys[4];
	/* these host byte bits: no cth_keep(), TCP not established,
	 * expectation operations fail, a REFRESH finds nothing */
	uint8_t h_old_host, h_tcp_new, h_ctl_fail, h_refresh_enoent;
	/* the expect mode's error after N for expectations that do not
	 * wait for their answer too */
	bool async_errors;
	/* the target's rules for what the plugin asks of the host */
	void (*check_exp)(const struct cth_expect *e, const char *what);
	int (*expect_ctl)(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e);
	int (*detach)(struct cth_ctx *ctx);     /* NULL: a detach is a bug */
	bool may_set_timeout;
	bool server_edits_only, server_keeps_only;
	/* after every packet (NULL: nothing more to check) */
	void (*after)(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o);
};

/* Each target defines its own. */
static const struct fzp_target fzp_target;
static const struct fzp_target *fzp = &fzp_target;
/* Read from the input by the target. */
static uint8_t host_bits, expect_mode;
static bool fzp_old_host;       /* no cth_keep() */
static bool fzp_tcp_new;        /* TCP packets not established */
/* Over one input; for the verbose line. */
static unsigned int expect_calls, ctl_calls, edit_calls, detach_calls;

/* ------------------------------------------------------------ backend */

/* The expect mode's low bits, for an expectation that waits for its
 * answer: created; port taken (-EBUSY, or -EEXIST when N is odd) for the
 * first N; every port taken; an error after N created.  N is the mode's
 * other bits. */
static int fzp_expect_answer(void)
{
	unsigned int n = expect_mode >> 2;

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

/* The kernel's answer to an expectation: the expect mode's for one that
 * waits for it; for one that does not, created (or the mode's error
 * after N, when the target says so). */
static int fzp_expect_fn(struct pkt_call *c, const struct cth_expect *e, unsigned int how)
{
	(void)c;
	(void)e;
	expect_calls++;
	if ((how & CTH_EXPECT_SYNC) || (fzp->async_errors && (expect_mode & 3) == 3))
		return fzp_expect_answer();
	return 0;
}

/* The kernel's answer to an expectation operation: done (REMOVE: one
 * removed), unless the host byte makes it fail (REMOVE: none there, the
 * others an I/O error) or a REFRESH find nothing. */
static int fzp_expect_ctl_fn(struct pkt_call *c, unsigned int op, const struct cth_expect *e)
{
	(void)c;
	(void)e;
	ctl_calls++;
	if (op == CTH_EXPECT_OP_REFRESH)
		return host_bits & fzp->h_refresh_enoent ? -ENOENT : 0;
	if (host_bits & fzp->h_ctl_fail)
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

static int fzp_wrap_expect(struct cth_ctx *ctx, const struct cth_expect *e, unsigned int how)
{
	fzp->check_exp(e, "expect");
	FZ_ASSERT(!(how & ~(unsigned int)CTH_EXPECT_SYNC), "expect how %#x", how);
	call_expects++;
	return real_host->expect(ctx, e, how);
}

static bool fzp_overlap(size_t off, size_t len, unsigned int i)
{
	if (!edits[i].len && !len)
		return edits[i].off == off;
	return edits[i].off < off + len && off < edits[i].off + edits[i].len;
}

static int fzp_wrap_mangle(struct cth_ctx *ctx, size_t off, size_t len, const void *repl,
			   size_t repl_len)
{
	FZ_ASSERT(cur->nat, "edit at %zu without NAT", off);
	FZ_ASSERT(!fzp->server_edits_only || cur->dir == CTH_DIR_REPLY,
		  "edit of a client's packet at %zu", off);
	FZ_ASSERT(off <= cur->payload_len && len <= cur->payload_len - off,
		  "edit %zu+%zu outside the %zu-byte payload", off, len, cur->payload_len);
	FZ_ASSERT(off >= cur->kept, "edit at %zu inside %zu kept bytes", off, cur->kept);
	FZ_ASSERT(repl || !repl_len, "edit without its bytes");
	for (unsigned int i = 0; i < n_edits; i++)
		FZ_ASSERT(!fzp_overlap(off, len, i), "edit %zu+%zu over %zu+%zu", off, len,
			  edits[i].off, edits[i].len);
	if (n_edits < sizeof(edits) / sizeof(edits[0])) {
		edits[n_edits].off = off;
		edits[n_edits].len = len;
		n_edits++;
	}
	edit_calls++;
	return real_host->mangle(ctx, off, len, repl, repl_len);
}

static int fzp_wrap_keep(struct cth_ctx *ctx, size_t off)
{
	FZ_ASSERT(off <= cur->payload_len, "keep at %zu past %zu", off, cur->payload_len);
	FZ_ASSERT(!fzp->server_keeps_only || cur->dir == CTH_DIR_REPLY,
		  "keep on a client packet");
	return real_host->keep(ctx, off);
}

static int fzp_wrap_set_mark(struct cth_ctx *ctx, uint32_t mark)
{
	(void)ctx;
	FZ_ASSERT(0, "set_mark %u", mark);
	return 0;
}

static int fzp_wrap_set_timeout(struct cth_ctx *ctx, uint32_t seconds)
{
	(void)ctx;
	FZ_ASSERT(0, "set_timeout %u", seconds);
	return 0;
}

static int fzp_wrap_detach(struct cth_ctx *ctx)
{
	(void)ctx;
	FZ_ASSERT(0, "detach");
	return 0;
}

static void fzp_wrap_table(struct cth_ctx *ctx)
{
	real_host = ctx->host;
	wrap_host = *real_host;
	wrap_host.expect = fzp_wrap_expect;
	wrap_host.expect_ctl = fzp->expect_ctl;
	wrap_host.mangle = fzp_wrap_mangle;
	wrap_host.keep = fzp_wrap_keep;
	wrap_host.set_mark = fzp_wrap_set_mark;
	if (!fzp->may_set_timeout)
		wrap_host.set_timeout = fzp_wrap_set_timeout;
	wrap_host.detach = fzp->detach ? fzp->detach : fzp_wrap_detach;
	if (fzp_old_host)
		wrap_host.size = offsetof(struct cth_host, keep);
	ctx->host = &wrap_host;
}

/* The plugin behind the wrapped host table. */
static int fzp_wrap_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
			   const void *config)
{
	int verdict;

	fzp_wrap_table(ctx);
	cur = pkt;
	n_edits = 0;
	call_expects = 0;
	verdict = cth_plugin.packet(ctx, pkt, priv, config);
	ctx->host = real_host;
	cur = NULL;
	FZ_ASSERT(verdict == CTH_VERDICT_ACCEPT || verdict == CTH_VERDICT_DROP, "verdict %d",
		  verdict);
	return verdict;
}

static struct cth_plugin_desc wrap_desc;
static const struct plugin wrap_pl = { .desc = &wrap_desc };

void fz_setup(void)
{
	wrap_desc = cth_plugin;
	wrap_desc.packet = fzp_wrap_packet;
}

/* What every input starts with after its flags: the host byte and the
 * expect mode. */
static void fzp_read_head(struct fz *in)
{
	host_bits = fz_u8(in);
	expect_mode = fz_u8(in);
	fzp_old_host = host_bits & fzp->h_old_host;
	fzp_tcp_new = host_bits & fzp->h_tcp_new;
}

/* Every input: its head, then the target's part; the kept bytes a
 * connection leaves go with it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_conn fc;
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in);

	fzp_read_head(&in);
	fzp->input(&fc, &in, flags);
	keep_free(&fc.keep);
	return 0;
}

/* ------------------------------------------------------------ the connection */

static void fz_addr(int family, union cth_addr *a, enum fz_host h)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(family, family == AF_INET6 ? fzp->v6[h] : fzp->v4[h], a->raw) != 1)
		abort();
}

static void fzp_tuples(struct fz_conn *fc, bool snat, bool dnat)
{
	struct cth_tuple *o = &fc->t[CTH_DIR_ORIGINAL], *r = &fc->t[CTH_DIR_REPLY];

	fz_addr(fc->family, &o->src, FZ_CLIENT);
	fz_addr(fc->family, &o->dst, FZ_SERVER);
	o->sport = fzp->sport;
	o->dport = fzp->dport;
	o->family = r->family = (uint8_t)fc->family;
	o->proto = r->proto = fc->proto;
	r->src = o->dst;
	r->dst = o->src;
	r->sport = o->dport;
	r->dport = o->sport;
	if (snat) {
		fz_addr(fc->family, &r->dst, FZ_PUB);
		r->dport = fzp->snat_port;
		fc->nat |= CTH_NAT_SRC;
	}
	if (dnat) {
		fz_addr(fc->family, &o->dst, snat ? FZ_DNAT2 : FZ_PUB);
		fc->nat |= CTH_NAT_DST;
	}
}

/* A new input's connection, with the plugin's default configuration and
 * the keys the host byte switches on. */
static void fzp_conn_init(struct fz_conn *fc, bool v6, uint8_t proto, bool snat, bool dnat,
			  bool expected)
{
	memset(fc, 0, sizeof(*fc));
	expect_calls = ctl_calls = edit_calls = detach_calls = 0;
	fc->family = v6 ? AF_INET6 : AF_INET;
	fc->proto = proto;
	fzp_tuples(fc, snat, dnat);
	fc->status = CTH_CT_CONFIRMED | CTH_CT_SEEN_REPLY | (expected ? CTH_CT_EXPECTED : 0);
	FZ_ASSERT(cth_plugin.config_size <= sizeof(fc->config), "config_size %zu",
		  cth_plugin.config_size);
	FZ_ASSERT(cth_plugin.priv_size <= CTH_PRIV_MAX, "priv_size %zu", cth_plugin.priv_size);
	fz_instance_init(&fc->inst, &wrap_pl, fc->config);
	for (size_t i = 0; i < sizeof(fzp->keys) / sizeof(fzp->keys[0]); i++)
		if (fzp->keys[i].set && (host_bits & fzp->keys[i].bit))
			fz_configure(&cth_plugin, fc->config, fzp->keys[i].set);
}

/* ------------------------------------------------------------ packets */

/* An IP packet of the connection's direction dir carrying n payload
 * bytes (pc_build; NULL when it does not fit one packet). */
static uint8_t *fz_build(const struct fz_conn *fc, enum cth_dir dir, uint32_t seq,
			 const uint8_t *payload, size_t n, size_t *lenp)
{
	return pc_build(fc->family, fc->proto, &fc->t[dir], seq, fzp->tcp_flags, payload, n,
			lenp);
}

static void fzp_call_init(struct pkt_call *c, struct fz_conn *fc, enum cth_dir dir,
			  bool truncated)
{
	c->inst = &fc->inst;
	c->expect_fn = fzp_expect_fn;
	c->expect_ctl_fn = fzp_expect_ctl_fn;
	c->keep = fzp_old_host ? NULL : &fc->keep;
	c->truncated = truncated;
	c->pkt.dir = dir;
	c->pkt.ctinfo = fc->proto == IPPROTO_TCP && fzp_tcp_new ? CTH_CT_NEW :
			dir == CTH_DIR_ORIGINAL ? CTH_CT_ESTABLISHED : CTH_CT_ESTABLISHED_REPLY;
	c->pkt.tuple[0] = fc->t[0];
	c->pkt.tuple[1] = fc->t[1];
	c->pkt.nat = fc->nat;
	c->pkt.ct_status = fc->status;
	c->pkt.ct_id = 1;
}

static void fzp_say(const struct fz_conn *fc, const struct fzp_out *o)
{
	fprintf(stderr, "fuzz_%s: %s %s%s dir %d, %zu+%zu payload bytes, verdict %d, "
		"%u expect, %u ctl, %u edits, %u detach, result %zu bytes\n", cth_plugin.name,
		fc->family == AF_INET6 ? "IPv6" : "IPv4",
		fc->proto == IPPROTO_TCP ? "TCP" : "UDP", fc->nat ? " NAT" : "",
		o->c->pkt.dir, o->c->pkt.kept, o->n, o->verdict, expect_calls, ctl_calls,
		edit_calls, detach_calls, o->r ? o->rlen : 0);
}

/* One packet through the worker's steps; the state the verdict writes
 * back is the connection's from then on. */
static void fzp_packet(struct fz_conn *fc, enum cth_dir dir, uint32_t seq,
		       const uint8_t *payload, size_t n, bool truncated, uint64_t now)
{
	struct pkt_call c;
	size_t len;
	uint8_t *pkt = fz_build(fc, dir, seq, payload, n, &len);
	unsigned int edits_before = edit_calls;
	struct fzp_out o = { .c = &c, .payload = payload, .n = n };

	if (!pkt)               /* more than one packet holds: not a packet */
		return;
	memset(&c, 0, sizeof(c));
	if (pkt_view_parse(&c.pkt, pkt, len, fc->family) < 0)
		abort();
	fzp_call_init(&c, fc, dir, truncated);
	if (c.keep)
		keep_join(c.keep, &c, now);
	o.verdict = pkt_call_run(&c, fc->priv, sizeof(fc->priv));
	if (c.keep)
		keep_done(c.keep, &c, o.verdict, now);
	memcpy(fc->priv, c.priv, sizeof(fc->priv));
	o.edits = edit_calls - edits_before;

	o.r = pkt_call_mangled(&c, &o.rlen);
	if (fz_verbose)
		fzp_say(fc, &o);
	fz_check_sent(&c, o.r, o.rlen);
	if (fzp->after)
		fzp->after(fc, dir, &o);
	pkt_call_release(&c);
	free(pkt);
}

/* n of the avail bytes, as much as one packet carries. */
static size_t fzp_clamp(size_t n, size_t avail)
{
	if (n > avail)
		n = avail;
	return n > FZP_PAYLOAD_MAX ? FZP_PAYLOAD_MAX : n;
}

/* The rest of the input as one or two payloads, n1 bytes and what is
 * left: the first in direction dir at seq; the second the same
 * direction's next segment (gap bytes further on) or, with turn, the
 * other side's. */
static inline void fzp_two_packets(struct fz_conn *fc, struct fz *in, size_t n1,
				   enum cth_dir dir, uint32_t seq, bool turn, uint32_t gap,
				   bool truncated)
{
	const uint8_t *p1, *p2;
	size_t n2;

	n1 = fzp_clamp(n1, in->n);
	p1 = fz_take(in, &n1);
	n2 = fzp_clamp(in->n, in->n);
	p2 = fz_take(in, &n2);
	if (n1)
		fzp_packet(fc, dir, seq, p1, n1, truncated, 1000);
	if (!n2)
		return;
	if (turn)
		dir = dir == CTH_DIR_ORIGINAL ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;
	else
		seq += (uint32_t)n1 + gap;
	fzp_packet(fc, dir, seq, p2, n2, false, 1001);
}

#endif
