/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real ssdp plugin (plugins/ssdp/, linked in) on the
 * host path -- pkt_view_parse(), pkt_call_run(), the result -- for up to 8
 * packets of one flow of four kinds: the querier's M-SEARCH flow to the
 * group (UDP), a device's unicast answer to it (UDP, expected), the
 * querier's HTTP connection to the device (TCP, expected: SUBSCRIBE), the
 * device's event connection to the querier (TCP, expected: NOTIFY); IPv4
 * or IPv6, the querier source-NATed or not, either direction; the keys
 * answers = any and location_own = no from the host byte.
 *
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: at most one
 * expectation a packet, always helped (PERMANENT but for the event
 * connections), and always to the
 * right place: the answers to the querier's address:port as the group
 * sees it, a LOCATION to the answering device (unless location_own = no),
 * a CALLBACK to the subscriber, a NOTIFY's next connection like its own;
 * edits only to a CALLBACK under NAT; a drop only when an expectation
 * failed.
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h), then packets,
 * each a byte (bit 0: reply direction; bit 1: the host holds only part of
 * it), a 16-bit length and the payload.
 */
#include "fuzz_plugin.h"
#include "../../plugins/ssdp/ssdp.h"
#include "../../plugins/ssdp/ssdp_parse.h"

#define SSDP_PACKETS_MAX 8u

/* bits of the flags byte: family, NAT, and the flow's kind in bits 2-3 */
enum {
	F_IPV6 = 1u << 0,
	F_SNAT = 1u << 1,
	F_KIND_SHIFT = 2,
};

enum fz_kind { K_QUERY, K_ANSWER, K_HTTP, K_EVENT };

/* bits of the host byte */
enum {
	H_ANY = 1u << 0,          /* answers = any */
	H_LOCATION_ANY = 1u << 1, /* location_own = no */
	H_OLD_HOST = 1u << 2,     /* no cth_keep() */
};

/* bits of a packet's byte */
enum {
	P_REPLY = 1u << 0,
	P_TRUNCATED = 1u << 1,
};

static enum fz_kind kind;

/* ------------------------------------------------------------ the plugin's requests */

static bool fz_addr_eq(int family, const union cth_addr *a, const union cth_addr *b)
{
	return memcmp(a->raw, b->raw, family == AF_INET6 ? 16 : 4) == 0;
}

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	const struct cth_tuple *o = &cur->tuple[CTH_DIR_ORIGINAL], *r = &cur->tuple[CTH_DIR_REPLY];
	int f = o->family;

	FZ_ASSERT(e && e->family == f && e->sport == 0, "%s: family or sport", what);
	FZ_ASSERT(call_expects == 0, "%s: a second expectation for one packet", what);
	/* helped; PERMANENT for the answers and a LOCATION (many of them),
	 * not for an event connection (each NOTIFY expects the next) */
	FZ_ASSERT((e->flags & CTH_EXPECT_HELPER) &&
		  !(e->flags & CTH_EXPECT_PERMANENT) == (kind >= K_HTTP), "%s: flags %#x", what,
		  e->flags);
	FZ_ASSERT(cur->dir == CTH_DIR_ORIGINAL, "%s: from the reply direction", what);
	switch (kind) {
	case K_QUERY:
		FZ_ASSERT(e->class == SSDP_CLASS && e->proto == IPPROTO_UDP &&
			  fz_addr_eq(f, &e->dst, &r->dst) && e->dport == r->dport,
			  "%s: not the querier as the group sees it", what);
		FZ_ASSERT(host_bits & H_ANY ? (e->flags & CTH_EXPECT_ANY_SRC) != 0 :
			  (e->flags & CTH_EXPECT_SRC_PREFIX) != 0, "%s: source %#x", what, e->flags);
		break;
	case K_ANSWER:
		FZ_ASSERT(e->class == SSDP_CLASS_HTTP && e->proto == IPPROTO_TCP &&
			  fz_addr_eq(f, &e->src, &r->src), "%s: LOCATION not from the querier", what);
		FZ_ASSERT((host_bits & H_LOCATION_ANY) || fz_addr_eq(f, &e->dst, &o->src),
			  "%s: LOCATION to another host", what);
		break;
	case K_HTTP:
	case K_EVENT:
		/* the harness shows no master: either end may SUBSCRIBE or
		 * NOTIFY; a CALLBACK to the subscriber as the device sees it,
		 * a NOTIFY's next connection like its own */
		FZ_ASSERT(e->class == SSDP_CLASS_HTTP && e->proto == IPPROTO_TCP, "%s: class", what);
		FZ_ASSERT((fz_addr_eq(f, &e->src, &r->src) && fz_addr_eq(f, &e->dst, &r->dst)) ||
			  (fz_addr_eq(f, &e->src, &o->src) && fz_addr_eq(f, &e->dst, &o->dst) &&
			   e->dport == o->dport), "%s: not between this connection's ends", what);
		break;
	}
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	(void)ctx;
	(void)e;
	FZ_ASSERT(0, "expect_ctl op %u", op);
	return 0;
}

/* ------------------------------------------------------------ the result */

static void fz_after(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o)
{
	(void)dir;
	FZ_ASSERT(o->edits == 0 || (kind == K_HTTP && fc->nat), "%u edits", o->edits);
	FZ_ASSERT(o->verdict == CTH_VERDICT_ACCEPT || call_expects == 1 || o->edits,
		  "dropped, %u expect", call_expects);
}

/* The flow of the kind asked for: the seeds' addresses (mkseeds_ssdp.py,
 * like tests/unit/test_ssdp.c).  The querier 10.0.1.2 port 50000, the
 * group, the NAT address 10.0.2.1 port 40001, the device 10.0.1.3. */
static void fz_flow(struct fz_conn *fc, bool snat)
{
	struct cth_tuple *o = &fc->t[CTH_DIR_ORIGINAL], *r = &fc->t[CTH_DIR_REPLY];
	union cth_addr querier = o->src, pub = r->dst, device;

	fz_addr(fc->family, &device, FZ_DNAT2);
	if (kind == K_QUERY)
		return;
	if (kind == K_ANSWER || kind == K_EVENT) {
		/* the device opens it, to the querier as it knows it */
		o->src = device;
		o->dst = snat ? pub : querier;
		o->sport = kind == K_ANSWER ? 1900 : 41000;
		o->dport = snat ? fzp->snat_port : (kind == K_ANSWER ? 50000 : 49200);
		r->src = querier;
		r->dst = device;
		r->sport = kind == K_ANSWER ? 50000 : 49200;
		r->dport = o->sport;
		fc->nat = snat ? CTH_NAT_DST : 0;
	} else {
		o->dst = device;
		o->dport = 49152;
		r->src = device;
		r->sport = 49152;
	}
}

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	kind = (enum fz_kind)((flags >> F_KIND_SHIFT) & 3u);
	fzp_conn_init(fc, flags & F_IPV6, kind >= K_HTTP ? IPPROTO_TCP : IPPROTO_UDP,
		      flags & F_SNAT, false, kind != K_QUERY);
	fz_flow(fc, flags & F_SNAT);
	if (kind == K_QUERY)
		fc->status = 0; /* a query is the flow's first packet */
	for (unsigned int i = 0; i < SSDP_PACKETS_MAX && in->n >= 3; i++) {
		uint8_t pb = fz_u8(in);
		size_t n = fzp_clamp(fz_u16(in), in->n);
		const uint8_t *p = fz_take(in, &n);
		enum cth_dir dir = pb & P_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;

		if (n)
			fzp_packet(fc, dir, fc->seq[dir], p, n, pb & P_TRUNCATED, 1000 + i);
		fc->seq[dir] += (uint32_t)n;
	}
}

static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "10.0.1.2", "239.255.255.250", "10.0.2.1", "10.0.1.3" },
	.v6 = { "fd00:1::2", "ff02::c", "fd00:2::1", "fd00:1::3" },
	.sport = 50000,
	.dport = 1900,
	.snat_port = 40001,
	.tcp_flags = 0x18,
	.keys = { { H_ANY, "answers=any" }, { H_LOCATION_ANY, "location_own=no" } },
	.h_old_host = H_OLD_HOST,
	.async_errors = true,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.after = fz_after,
};
