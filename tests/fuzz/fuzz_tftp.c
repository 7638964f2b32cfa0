/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real tftp plugin (plugins/tftp/, linked in) on the
 * host path -- pkt_view_parse(), pkt_call_run(), the result -- for up to 8
 * datagrams of one flow to port 69: IPv4 or IPv6, source and/or
 * destination NAT, either direction, the transfer (an expected
 * connection), its "loose" key, and expectation answers (created, or an
 * error after N) taken from the input.
 *
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: no edit, no keep, no
 * expectation operation; at most one expectation a datagram, exactly
 * when the request parser says it is a request (or, with loose, has a
 * request's opcode), never for the transfer, and always the server's
 * answer: UDP, class 0, from the master's reply source (any port) to its
 * reply destination, following the master back to the client under NAT.
 * A datagram is dropped only when its expectation failed.
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h), then datagrams,
 * each a byte (bit 0: from the server; bit 1: the host holds only part of
 * it), a 16-bit length and the payload.
 */
#include "fuzz_plugin.h"
#include "../../plugins/tftp/tftp.h"
#include "../../plugins/tftp/tftp_parse.h"

#define TFTP_PACKETS_MAX 8u

/* bits of the flags byte */
enum {
	F_IPV6 = 1u << 0,
	F_SNAT = 1u << 1,
	F_DNAT = 1u << 2,
	F_EXPECTED = 1u << 3,   /* the transfer, not the request's flow */
};

/* bits of the host byte */
enum {
	H_LOOSE = 1u << 0,      /* loose = yes */
};

/* bits of a datagram's byte */
enum {
	P_REPLY = 1u << 0,
	P_TRUNCATED = 1u << 1,
};

/* ------------------------------------------------------------ the plugin's requests */

static bool fz_addr_eq(int family, const union cth_addr *a, const union cth_addr *b)
{
	return memcmp(a->raw, b->raw, family == AF_INET6 ? 16 : 4) == 0;
}

static void fz_check_exp(const struct cth_expect *e, const char *what)
{
	const struct cth_tuple *o = &cur->tuple[CTH_DIR_ORIGINAL], *r = &cur->tuple[CTH_DIR_REPLY];
	int f = o->family;

	FZ_ASSERT(e && e->class == TFTP_CLASS && e->family == f && e->proto == IPPROTO_UDP &&
		  e->sport == 0, "%s: class %u family %u proto %u sport %u", what,
		  e ? e->class : 0, e ? e->family : 0, e ? e->proto : 0, e ? e->sport : 0);
	FZ_ASSERT(!(cur->ct_status & CTH_CT_EXPECTED), "%s: for the transfer", what);
	FZ_ASSERT(call_expects == 0, "%s: a second expectation for one datagram", what);
	/* the server's answer, whichever direction asked */
	FZ_ASSERT(fz_addr_eq(f, &e->src, &r->src) && fz_addr_eq(f, &e->dst, &r->dst) &&
		  e->dport == r->dport, "%s: not the master's reply tuple", what);
	FZ_ASSERT(!(e->flags & ~(unsigned int)CTH_EXPECT_NAT), "%s: flags %#x", what, e->flags);
	FZ_ASSERT(!(e->flags & CTH_EXPECT_NAT) == !cur->nat, "%s: NAT flag %#x, nat %u", what,
		  e->flags, cur->nat);
	if (e->flags & CTH_EXPECT_NAT)
		FZ_ASSERT(e->nat_dir == CTH_DIR_REPLY && e->fn &&
			  strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0 &&
			  e->nat_port == o->sport && fz_addr_eq(f, &e->nat_addr, &o->src),
			  "%s: does not follow the master back to the client", what);
}

static int wrap_expect_ctl(struct cth_ctx *ctx, unsigned int op, const struct cth_expect *e)
{
	(void)ctx;
	(void)e;
	FZ_ASSERT(0, "expect_ctl op %u", op);
	return 0;
}

/* ------------------------------------------------------------ the result */

/* An expectation exactly for a request (loose: a request's opcode), a
 * drop only when it failed, nothing rewritten. */
static void fz_after(struct fz_conn *fc, enum cth_dir dir, const struct fzp_out *o)
{
	const struct tftp_config *cfg = (const void *)fc->config;
	struct tftp_req req;
	int ret = tftp_parse(o->payload, o->n, &req);
	bool want = ret == 1 || (cfg->loose && ret < 0 &&
				 (req.opcode == TFTP_OP_RRQ || req.opcode == TFTP_OP_WRQ));

	(void)dir;
	FZ_ASSERT(o->edits == 0 && !o->r, "%u edits", o->edits);
	FZ_ASSERT(o->verdict == CTH_VERDICT_ACCEPT || call_expects == 1, "dropped, %u expect",
		  call_expects);
	if (fc->status & CTH_CT_EXPECTED)
		want = false;
	FZ_ASSERT(call_expects == (want ? 1u : 0u), "%u expectations, parse %d%s", call_expects,
		  ret, cfg->loose ? " (loose)" : "");
}

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	struct tftp_config *cfg = (struct tftp_config *)fc->config;

	fzp_conn_init(fc, flags & F_IPV6, IPPROTO_UDP, flags & F_SNAT, flags & F_DNAT,
		      flags & F_EXPECTED);
	/* the host sets what a request's flow looks like when it arrives;
	 * the keys are the plugin's defaults, loose from the host byte */
	cfg->loose = host_bits & H_LOOSE;
	for (unsigned int i = 0; i < TFTP_PACKETS_MAX && in->n >= 3; i++) {
		uint8_t pb = fz_u8(in);
		size_t n = fzp_clamp(fz_u16(in), in->n);
		const uint8_t *p = fz_take(in, &n);
		enum cth_dir dir = pb & P_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL;

		if (n)
			fzp_packet(fc, dir, 0, p, n, pb & P_TRUNCATED, 1000 + i);
	}
}

/* The seeds' addresses (mkseeds_tftp.py, like tests/unit/test_tftp.c):
 * the client at port 50000 asks the server's 69 and shows as PUB:40001
 * under SNAT. */
static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "10.0.1.2", "10.0.2.2", "10.0.2.1", "192.0.2.100" },
	.v6 = { "fd00:1::2", "fd00:2::2", "fd00:2::1", "fd00:1::1" },
	.sport = 50000,
	.dport = 69,
	.snat_port = 40001,
	.async_errors = true,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.server_edits_only = true,
	.server_keeps_only = true,
	.after = fz_after,
};
