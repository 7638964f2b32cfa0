/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the whole host path around a plugin call.  An
 * arbitrary IPv4/IPv6 packet goes through pkt_view_parse(), then
 * pkt_call_run() calls a "plugin" driven by the rest of the input: edits
 * with arbitrary offsets, lengths and replacements (from the input, from
 * the packet itself, NULL, or large), expectations with arbitrary fields
 * into a fake expect_fn, timeout, mark, detach, log, private state writes.
 *
 * Every cth_mangle() answer is compared with a model written from the
 * documented rules (server/host/edit.h), and the packet pkt_call_mangled()
 * returns is compared with the model's payload and checked independently
 * (fuzz_hostpath.h): length <= 65531, IP length field = buffer length, valid
 * checksums, headers otherwise unchanged.  Any difference aborts.
 *
 * Kept bytes (cth_keep, server/host/keep.c): with flags bit 64 an earlier
 * segment of the connection keeps bytes from the input first (up to a
 * little more than the bound), ending right before this packet's sequence
 * number, or one byte short of it with bit 128 (a gap: nothing is joined).
 * The packet is then shown through keep_join() as the worker does; the
 * view, the edits (refused inside kept bytes, translated after them), the
 * script's own cth_keep() answers and what keep_done() leaves in the table
 * are all compared with the model.
 *
 * The link view (cth_link(), server/host/link.c): an opcode gives the
 * interfaces, the packet's addresses and a table of up to four interface
 * addresses, all from the input; the answer must keep plugin.h's promises
 * (a network no longer than the family, nothing set past its prefix).
 * Expectations carry a source prefix, read under CTH_EXPECT_SRC_PREFIX.
 *
 * Input: flags, flags2, packet length (16 bits), the packet, private
 * state length and bytes, with flags bit 64 the kept bytes' length (16
 * bits) and the bytes, then the plugin's script (see fz_plugin()).
 */
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz_hostpath.h"
#include "host/keep.h"
#include "host/edit.h"
#include "host/link.h"

#define FZ_MAX_OPS 64u

/* ------------------------------------------------------------- model */

struct model_edit {
	size_t off, len, repl, rlen;
};

static struct model {
	int layout;                    /* 0 or the errno every edit gets */
	int keep_whole;                /* 0 or the errno every cth_keep() gets */
	size_t kept;                   /* bytes joined in front of the payload */
	bool keep;                     /* a cth_keep() stands: keep_off.. */
	size_t keep_off;
	unsigned int n;
	size_t out_len;
	struct model_edit e[EDIT_MAX];
	uint8_t arena[PC_OUT_MAX];
	size_t arena_len;
} model;

/* The packet's own layout rules, written from the documentation. */
static int model_layout(const struct cth_packet *p)
{
	const uint8_t *d = p->data;

	if ((d[0] >> 4) == 4) {
		if (((d[6] << 8 | d[7]) & 0x3fff) != 0)
			return -EINVAL;              /* a fragment */
		if ((size_t)(d[2] << 8 | d[3]) > p->len)
			return -EMSGSIZE;            /* we hold only part */
		return 0;
	}
	if ((d[4] << 8 | d[5]) == 0 || 40u + (size_t)(d[4] << 8 | d[5]) > p->len)
		return -EMSGSIZE;
	return 0;
}

/* cth_keep() refuses a packet we hold only part of: the IP length field
 * says more than we have (or a jumbogram's 0). */
static int model_keep_whole(const struct pkt_call *c)
{
	const struct cth_packet *p = &c->pkt;
	const uint8_t *d = p->data;

	if (fz_view_proto(p) != 6)
		return -EOPNOTSUPP;
	if (c->truncated)
		return -EMSGSIZE;
	if ((d[0] >> 4) == 4)
		return (size_t)(d[2] << 8 | d[3]) > p->len ? -EMSGSIZE : 0;
	return (d[4] << 8 | d[5]) == 0 || 40u + (size_t)(d[4] << 8 | d[5]) > p->len ?
	       -EMSGSIZE : 0;
}

static int model_keep(const struct cth_packet *p, size_t off)
{
	if (model.keep_whole)
		return model.keep_whole;
	if (off > p->payload_len)
		return -EINVAL;
	if (p->payload_len - off > KEEP_BYTES_MAX)
		return -ENOSPC;
	model.keep = off < p->payload_len;
	model.keep_off = off;
	return 0;
}

/* A SYN's data starts one after its sequence number (RFC 9293, 3.4). */
static uint32_t model_syn(const struct cth_packet *p)
{
	return fz_view_proto(p) == 6 && (p->data[p->l4_offset + 13] & 0x02);
}

static uint32_t model_seq_next(const struct cth_packet *p)
{
	return p->seq + (uint32_t)(p->len - p->payload_offset) + model_syn(p);
}

static int model_add(const struct pkt_call *c, size_t off, size_t len,
		     const void *repl, size_t rlen)
{
	const struct cth_packet *p = &c->pkt;
	size_t plen = p->payload_len;
	unsigned int i;

	if (c->truncated)
		return -EMSGSIZE;
	if (model.layout)
		return model.layout;
	if (c->gso && fz_view_proto(p) != 6)
		return -EMSGSIZE;
	if (off > plen || len > plen - off || (!repl && rlen))
		return -EINVAL;
	if (off < model.kept)
		return -EPERM;
	off -= model.kept;
	if (fz_view_proto(p) == 6 && rlen != len && !p->nat)
		return -EPERM;
	if (!len && !rlen)
		return 0;
	for (i = 0; i < model.n; i++) {
		const struct model_edit *e = &model.e[i];

		if (len == 0 && e->len == 0 ? e->off == off :
		    (off < e->off + e->len && e->off < off + len))
			return -EINVAL;
	}
	if (model.n == EDIT_MAX)
		return -ENOSPC;
	if (rlen > PC_OUT_MAX || model.out_len - len + rlen > PC_OUT_MAX)
		return -ENOSPC;
	model.e[model.n++] = (struct model_edit){ off, len, model.arena_len, rlen };
	if (rlen)
		memcpy(model.arena + model.arena_len, repl, rlen);
	model.arena_len += rlen;
	model.out_len = model.out_len - len + rlen;
	return 0;
}

/* The payload the edits make, position by position: at each original
 * offset first an insertion made there, then a replacement starting
 * there (skipping what it replaces) or the original byte.  The edits are
 * ordered by offset first (insertion sort on a copy). */
static size_t model_payload(const struct cth_packet *p, uint8_t *out)
{
	/* the packet's own payload: kept bytes were forwarded before */
	const uint8_t *own = p->data + p->payload_offset;
	size_t own_len = p->len - p->payload_offset;
	struct model_edit e[EDIT_MAX];
	size_t pos = 0, o = 0;
	unsigned int i, j, k = 0;

	for (i = 0; i < model.n; i++) {
		for (j = i; j > 0 && e[j - 1].off > model.e[i].off; j--)
			e[j] = e[j - 1];
		e[j] = model.e[i];
	}
	for (;;) {
		const struct model_edit *range = NULL;

		for (; k < model.n && e[k].off == pos; k++) {
			if (e[k].len == 0) {
				memcpy(out + o, model.arena + e[k].repl, e[k].rlen);
				o += e[k].rlen;
			} else {
				range = &e[k];
			}
		}
		if (range) {
			memcpy(out + o, model.arena + range->repl, range->rlen);
			o += range->rlen;
			pos += range->len;
			continue;
		}
		if (pos >= own_len)
			break;
		out[o++] = own[pos++];
	}
	FZ_ASSERT(k == model.n, "model edits left unapplied");
	return o;
}

/* ------------------------------------------------------------ plugin */

static struct fz script;
static uint8_t rbuf[65536], pattern[65536];
static int expect_answer;
static struct pkt_call call;
static struct keep table;
static bool fz_prefix;          /* the earlier segment: keep all of it */
static int prefix_rc;

static void fz_mangle(struct cth_ctx *ctx, const struct cth_packet *pkt,
		      uint8_t op)
{
	size_t off = fz_u16(&script), len = fz_u16(&script);
	size_t rlen = fz_u16(&script), plen = pkt->payload_len, start;
	const void *repl = rbuf;
	int rc, want;

	if (op & 0x08)                       /* small replacement */
		rlen %= 64;
	if (op & 0x10) {                     /* a range inside the payload */
		off %= plen + 1;
		len %= plen - off + 1;
	}
	switch ((op >> 5) & 3) {
	case 0:                              /* bytes from the input */
		fz_bytes(&script, rbuf, rlen);
		break;
	case 1:                              /* bytes of the packet itself */
		if (!plen) {
			rlen = 0;
			break;
		}
		start = fz_u16(&script) % plen;
		if (rlen > plen - start)
			rlen = plen - start;
		repl = pkt->payload + start;
		break;
	case 2:
		repl = NULL;
		break;
	default:                             /* large, patterned */
		repl = pattern;
		break;
	}
	want = model_add(&call, off, len, repl, rlen);
	rc = cth_mangle(ctx, off, len, repl, rlen);
	FZ_ASSERT(rc == want, "cth_mangle(%zu, %zu, %s, %zu) = %d, model %d",
		  off, len, repl ? "repl" : "NULL", rlen, rc, want);
}

static void fz_expect(struct cth_ctx *ctx)
{
	static const char *const fns[] = { NULL, CTH_EXPECT_FN_NAT_FOLLOW_MASTER, "" };
	struct cth_expect e;
	uint8_t b;
	unsigned int how;

	memset(&e, 0, sizeof(e));
	e.class = fz_u8(&script) % 4;
	e.flags = fz_u8(&script);
	b = fz_u8(&script);
	e.family = b == 0 ? AF_INET : b == 1 ? AF_INET6 : b;
	b = fz_u8(&script);
	e.proto = b == 0 ? IPPROTO_TCP : b == 1 ? IPPROTO_UDP : b;
	e.sport = fz_u16(&script);
	e.dport = fz_u16(&script);
	fz_bytes(&script, &e.src, sizeof(e.src));
	fz_bytes(&script, &e.dst, sizeof(e.dst));
	b = fz_u8(&script);
	e.nat_dir = (enum cth_dir)(b < 2 ? b : b % 4);
	fz_bytes(&script, &e.nat_addr, sizeof(e.nat_addr));
	e.nat_port = fz_u16(&script);
	e.fn = fns[fz_u8(&script) % 3];
	how = fz_u8(&script) % 3;
	b = fz_u8(&script);
	expect_answer = b % 4 == 0 ? 0 : b % 4 == 1 ? -EBUSY : b % 4 == 2 ? -EEXIST : -EINVAL;
	/* read by the host only under CTH_EXPECT_SRC_PREFIX (flags bit 5) */
	e.src_prefix = fz_u8(&script);
	(void)cth_expect(ctx, &e, how);
}

/* cth_link() on the script's interfaces, packet addresses and address
 * table (host/link.c): whatever they are, the answer keeps its promises
 * (plugin.h, struct cth_link). */
static struct link_addr fz_tab[4];
static size_t fz_n_tab;
static struct link_pkt fz_lpkt;

static int fz_link_fn(struct pkt_call *c, struct cth_link *l)
{
	link_fill(l, &fz_lpkt, fz_tab, fz_n_tab);
	(void)c;
	return 0;
}

static void fz_link(struct cth_ctx *ctx)
{
	/* all 16 bytes: "{ 0 }" initialises only a union's first member */
	static const union cth_addr fz_no_net;
	struct cth_link l;
	union cth_addr masked;
	unsigned int bits;

	call.in_ifindex = fz_u8(&script) % 4;
	call.out_ifindex = fz_u8(&script) % 4;
	fz_lpkt = (struct link_pkt){ .in_ifindex = call.in_ifindex,
				     .out_ifindex = call.out_ifindex,
				     .family = call.pkt.tuple[0].family };
	fz_bytes(&script, &fz_lpkt.src, sizeof(fz_lpkt.src));
	fz_bytes(&script, &fz_lpkt.dst, sizeof(fz_lpkt.dst));
	if (fz_lpkt.family == AF_INET) {
		memset(fz_lpkt.src.raw + 4, 0, 12);
		memset(fz_lpkt.dst.raw + 4, 0, 12);
	}
	fz_n_tab = fz_u8(&script) % 5;
	for (size_t i = 0; i < fz_n_tab; i++) {
		struct link_addr *a = &fz_tab[i];
		uint8_t b;

		memset(a, 0, sizeof(*a));
		a->ifindex = fz_u8(&script) % 4;
		a->family = fz_u8(&script) & 1 ? AF_INET6 : AF_INET;
		a->prefix = fz_u8(&script) % (a->family == AF_INET ? 33 : 129);
		a->scope = fz_u8(&script);
		b = fz_u8(&script);
		a->secondary = b & 1;
		a->has_brd = b & 2;
		fz_bytes(&script, &a->addr, a->family == AF_INET ? 4 : 16);
		fz_bytes(&script, &a->brd, 4);
	}
	FZ_ASSERT(cth_link(ctx, &l) == 0, "cth_link failed");
	bits = fz_lpkt.family == AF_INET6 ? 128 : 32;
	masked = l.net;
	link_addr_mask(fz_lpkt.family, &masked, l.net_prefix);
	FZ_ASSERT(l.in_ifindex == call.in_ifindex && l.out_ifindex == call.out_ifindex &&
		  l.dst_kind <= CTH_DST_BROADCAST_ALL && l.net_prefix <= bits &&
		  memcmp(&masked, &l.net, sizeof(masked)) == 0 &&
		  (l.net_prefix || memcmp(&l.net, &fz_no_net, sizeof(l.net)) == 0),
		  "link: in %u out %u kind %u /%u family %d net %08x %08x", l.in_ifindex,
		  l.out_ifindex, l.dst_kind, l.net_prefix, fz_lpkt.family, l.net.ip6[0],
		  l.net.ip6[1]);
	FZ_ASSERT(fz_lpkt.family == AF_INET6 || l.dst_kind != CTH_DST_BROADCAST ||
		  fz_n_tab, "a broadcast without an address");
}

/* cth_keep() at an offset from the script: anywhere in or just past the
 * payload (op bit 16), or any 16-bit value. */
static void fz_keep(struct cth_ctx *ctx, const struct cth_packet *pkt,
		    uint8_t op)
{
	size_t off = fz_u16(&script);
	int rc, want;

	if (op & 0x10)
		off %= pkt->payload_len + 2;
	want = model_keep(pkt, off);
	rc = cth_keep(ctx, off);
	FZ_ASSERT(rc == want, "cth_keep(%zu) of %zu bytes = %d, model %d", off,
		  pkt->payload_len, rc, want);
}

/* The view: the kept bytes the model expects, then the packet's own
 * payload, all of it readable. */
static uint32_t fz_view_check(const struct cth_packet *pkt)
{
	size_t own = pkt->len - pkt->payload_offset, i;
	uint32_t sum = 0;

	for (i = 0; i < pkt->len; i++)
		sum += pkt->data[i];
	for (i = 0; i < pkt->payload_len; i++)
		sum += pkt->payload[i];
	FZ_ASSERT(pkt->kept == model.kept && pkt->payload_len == pkt->kept + own &&
		  pkt->payload_offset <= pkt->len, "view offsets: kept %zu (model "
		  "%zu), payload %zu, own %zu", pkt->kept, model.kept,
		  pkt->payload_len, own);
	FZ_ASSERT(pkt->kept ? pkt->payload != pkt->data + pkt->payload_offset
			    : pkt->payload == pkt->data + pkt->payload_offset,
		  "payload pointer");
	FZ_ASSERT(memcmp(pkt->payload + pkt->kept, pkt->data + pkt->payload_offset,
			 own) == 0, "own payload after the kept bytes differs");
	return sum;
}

/* The script: up to FZ_MAX_OPS operations, each an opcode byte (low 3
 * bits: what) and its arguments. */
static int fz_plugin(struct cth_ctx *ctx, const struct cth_packet *pkt,
		     void *priv, const void *config)
{
	unsigned int ops;
	uint32_t sum;

	(void)config;
	if (fz_prefix) {
		prefix_rc = cth_keep(ctx, 0);
		return CTH_VERDICT_ACCEPT;
	}
	sum = fz_view_check(pkt);
	for (ops = 0; ops < FZ_MAX_OPS && script.n; ops++) {
		uint8_t op = fz_u8(&script);

		switch (op & 7) {
		case 0:
		case 1:
			fz_mangle(ctx, pkt, op);
			break;
		case 2:
			fz_expect(ctx);
			break;
		case 3:
			(void)cth_set_timeout(ctx, fz_u32(&script));
			break;
		case 4:
			(void)cth_set_mark(ctx, fz_u32(&script));
			break;
		case 5:
			(void)cth_detach(ctx);
			break;
		case 6: {
			uint8_t at = fz_u8(&script) % CTH_PRIV_MAX;

			((uint8_t *)priv)[at] = fz_u8(&script);
			break;
		}
		default:
			if ((op & 0x48) == 0x48) {
				fz_keep(ctx, pkt, op);
				break;
			}
			if ((op & 0xe8) == 0xe0) {
				fz_link(ctx);
				break;
			}
			if (op & 8) {
				cth_log(ctx, CTH_LOG_INFO, "fuzz %u", (unsigned int)sum);
				break;
			}
			return op & 16 ? CTH_VERDICT_DROP : fz_u8(&script);
		}
	}
	return CTH_VERDICT_ACCEPT;
}

static const struct cth_plugin_desc fz_desc = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "fuzz",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.priv_size = CTH_PRIV_MAX,
	.n_classes = 2,
	.classes = { { .name = "a", .max = 1, .timeout = 5 },
		     { .name = "b", .max = 3, .timeout = 9 } },
	.packet = fz_plugin,
};
static const struct plugin fz_pl = { .desc = &fz_desc };
static const struct instance fz_inst = { .name = "fuzz", .pl = &fz_pl,
					 .n_classes = 2 };

/* What pkt_host_expect() promises to pass on. */
static int fz_expect_fn(struct pkt_call *c, const struct cth_expect *e,
			unsigned int how)
{
	FZ_ASSERT(e && e->class < c->inst->n_classes &&
		  e->family == c->pkt.tuple[0].family &&
		  (e->proto == IPPROTO_TCP || e->proto == IPPROTO_UDP) &&
		  e->dport != 0 && !(how & ~(unsigned int)CTH_EXPECT_SYNC),
		  "expectation passed on unchecked");
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) || e->nat_dir == CTH_DIR_ORIGINAL ||
		  e->nat_dir == CTH_DIR_REPLY, "NAT direction passed on unchecked");
	if (e->flags & CTH_EXPECT_SRC_PREFIX) {
		union cth_addr net = e->src;

		link_addr_mask(e->family, &net, e->src_prefix);
		FZ_ASSERT(e->src_prefix >= 1 &&
			  e->src_prefix <= (e->family == AF_INET6 ? 128 : 32) &&
			  !(e->flags & CTH_EXPECT_ANY_SRC) &&
			  memcmp(&net, &e->src, sizeof(net)) == 0,
			  "source network /%u passed on unchecked or with host bits",
			  e->src_prefix);
	} else {
		FZ_ASSERT(e->src_prefix == 0, "a prefix without its flag passed on");
	}
	c->n_expect++;
	return expect_answer;
}

void fz_setup(void)
{
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 1);
}

/*
 * The earlier segment (flags bit 64): the packet's own view with n input
 * bytes as its payload, ending right before the packet (bit 128: one
 * byte short), run through the worker's steps by a plugin that keeps all
 * of it.  Returns the kept bytes (a heap block of exactly n), *n set.
 */
static uint8_t *fz_prefix_run(struct fz *in, uint8_t flags, size_t *np)
{
	struct pkt_call pre = call;
	size_t n = fz_u16(in) % (KEEP_BYTES_MAX + 64);
	uint8_t *bytes = fz_heap(in, n);
	int want;

	pre.pkt.payload = bytes;
	pre.pkt.payload_len = n;
	pre.pkt.seq = call.pkt.seq - (uint32_t)n - model_syn(&call.pkt) -
		      (flags & 128 ? 1u : 0u);
	fz_prefix = true;
	keep_join(&table, &pre, 1000);
	keep_done(&table, &pre, pkt_call_run(&pre, NULL, 0), 1000);
	fz_prefix = false;
	pkt_call_release(&pre);
	want = model.keep_whole ? model.keep_whole : n > KEEP_BYTES_MAX ? -ENOSPC : 0;
	FZ_ASSERT(prefix_rc == want, "earlier segment: cth_keep(0) of %zu bytes = "
		  "%d, model %d", n, prefix_rc, want);
	FZ_ASSERT(table.used == (want == 0 && n > 0), "earlier segment: %u entries",
		  table.used);
	*np = n;
	return bytes;
}

/* What keep_done() left: nothing after a detach; after a drop only the
 * entry this packet used (for its retransmission); else what the last
 * cth_keep() asked, as the plugin was shown it. */
static void fz_table_check(int verdict, const uint8_t *prefix, size_t n)
{
	const struct keep_entry *e = NULL;
	size_t want_len;

	for (unsigned int i = 0; i < KEEP_ENTRIES; i++)
		if (table.e[i].used)
			e = &table.e[i];
	if (call.detach || (verdict == CTH_VERDICT_DROP && !model.kept) ||
	    (verdict != CTH_VERDICT_DROP && !model.keep)) {
		FZ_ASSERT(table.used == 0 && !e, "%u entries left", table.used);
		return;
	}
	FZ_ASSERT(table.used == 1 && e, "%u entries, want 1", table.used);
	if (verdict == CTH_VERDICT_DROP) {
		FZ_ASSERT(e->len == n && memcmp(e->bytes, prefix, n) == 0 &&
			  e->next_seq == call.pkt.seq,
			  "the dropped packet's kept bytes changed");
		return;
	}
	want_len = call.pkt.payload_len - model.keep_off;
	FZ_ASSERT(e->len == want_len &&
		  memcmp(e->bytes, call.pkt.payload + model.keep_off, want_len) == 0,
		  "kept %zu bytes, want %zu from offset %zu", e->len, want_len,
		  model.keep_off);
	FZ_ASSERT(e->next_seq == model_seq_next(&call.pkt) && e->dir == call.pkt.dir,
		  "kept for seq %u, want %u", e->next_seq, model_seq_next(&call.pkt));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz in = { data, size };
	uint8_t flags = fz_u8(&in), flags2 = fz_u8(&in), priv[CTH_PRIV_MAX];
	size_t len = fz_u16(&in), priv_len, rlen = 0, mlen, n_prefix = 0;
	const uint8_t *r, *r2;
	static uint8_t want[PC_OUT_MAX];
	uint8_t *pkt, *prefix = NULL;
	int family = flags & FZ_F_IPV6 ? AF_INET6 : AF_INET, verdict;

	if (len > in.n)
		len = in.n;
	pkt = fz_packet_view(&in, len, flags, &call);
	if (!pkt)
		return 0;
	FZ_ASSERT(call.pkt.len <= len && call.pkt.payload_offset <= call.pkt.len &&
		  call.pkt.l4_offset < call.pkt.payload_offset,
		  "view outside the packet");
	priv_len = fz_u8(&in) % (CTH_PRIV_MAX + 2);
	fz_bytes(&in, priv, sizeof(priv));

	call.inst = &fz_inst;
	call.expect_fn = fz_expect_fn;
	call.link_fn = fz_link_fn;
	call.keep = &table;
	fz_call_flags(&call, flags);
	call.pkt.ctinfo = (enum cth_ctinfo)(flags2 % 5);
	call.pkt.ct_status = flags2 >> 4;
	for (int d = 0; d < 2; d++) {
		call.pkt.tuple[d].family = (uint8_t)family;
		call.pkt.tuple[d].proto = fz_view_proto(&call.pkt);
	}

	model.n = 0;
	model.arena_len = 0;
	model.layout = model_layout(&call.pkt);
	model.out_len = call.pkt.len;
	model.keep_whole = model_keep_whole(&call);
	model.keep = false;
	model.kept = 0;
	if (flags & 64) {
		prefix = fz_prefix_run(&in, flags, &n_prefix);
		if (table.used && !(flags & 128))
			model.kept = n_prefix;
	}
	script = in;

	keep_join(&table, &call, 1000);
	FZ_ASSERT(call.pkt.kept == model.kept &&
		  (!model.kept || memcmp(call.pkt.payload, prefix, n_prefix) == 0),
		  "joined %zu bytes, model %zu", call.pkt.kept, model.kept);
	verdict = pkt_call_run(&call, priv_len > CTH_PRIV_MAX ? NULL : priv,
			       priv_len > CTH_PRIV_MAX ? 0 : priv_len);
	keep_done(&table, &call, verdict, 1000);
	fz_table_check(verdict, prefix, n_prefix);

	r = pkt_call_mangled(&call, &rlen);
	if (fz_verbose)
		fprintf(stderr, "fuzz_host: %zu-byte IPv%d packet, %zu kept bytes "
			"shown, %u edits, result %zu bytes, %u expectations, "
			"%u kept\n", call.pkt.len, family == AF_INET6 ? 6 : 4,
			model.kept, model.n, r ? rlen : 0, call.n_expect, table.used);
	if (model.n == 0) {
		FZ_ASSERT(!r, "a result without an accepted edit");
	} else {
		FZ_ASSERT(r, "no result after %u accepted edits", model.n);
		FZ_ASSERT(rlen == model.out_len, "result %zu bytes, model %zu",
			  rlen, model.out_len);
		mlen = model_payload(&call.pkt, want);
		fz_check_result(&call.pkt, r, rlen, want, mlen);
		r2 = pkt_call_mangled(&call, &mlen);
		FZ_ASSERT(r2 == r && mlen == rlen, "second result differs");
	}
	pkt_call_release(&call);
	keep_free(&table);
	free(prefix);
	free(pkt);
	return 0;
}
