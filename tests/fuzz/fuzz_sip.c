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
 * The plugin calls the host through a table wrapped in fuzz_plugin.h,
 * which holds it to the host's rules; here, on top: every expectation and
 * expectation operation valid.  After every packet the result is checked
 * (fuzz_hostpath.h): at most 65531 bytes, lengths and checksums right,
 * headers otherwise unchanged.
 *
 * Input: flags, host byte, expect mode (fuzz_plugin.h), the first
 * payload's length (16 bits), 16 bytes of private state, then the first
 * payload and, when anything is left, the second one.  Expectations that
 * wait for their answer get the expect mode's (an RTCP one failing after
 * its RTP: the mode's error after N).
 */
#include "fuzz_plugin.h"

#define SIP_PRIV_LEN 16u
#define SIP_CLASSES 4u

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

/* ------------------------------------------------------------ the plugin's requests */

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

static void fz_input(struct fz_conn *fc, struct fz *in, uint8_t flags)
{
	size_t n1 = fz_u16(in);

	fzp_conn_init(fc, flags & F_IPV6, flags & F_TCP ? IPPROTO_TCP : IPPROTO_UDP,
		      flags & F_SNAT, flags & F_DNAT, flags & F_EXPECTED);
	fz_bytes(in, fc->priv, SIP_PRIV_LEN);
	fzp_two_packets(fc, in, n1, flags & F_REPLY ? CTH_DIR_REPLY : CTH_DIR_ORIGINAL,
			0x10203040, flags & F_TURN, 0, flags & F_TRUNCATED);
}

/* The seeds' addresses (mkseeds.py, like tests/unit/test_sip.c): the
 * phone (FZ_CLIENT) calls the proxy on 5060 and shows as PUB:5062 under
 * SNAT. */
static const struct fzp_target fzp_target = {
	.input = fz_input,
	.v4 = { "192.168.1.10", "198.51.100.2", "203.0.113.5", "203.0.113.6" },
	.v6 = { "2001:db8::10", "2001:db8:1::2", "2001:db8:ffff::1", "2001:db8:ffff::2" },
	.sport = 5060,
	.dport = 5060,
	.snat_port = 5062,
	.tcp_flags = 0x10,      /* ACK */
	.keys = { { H_MEDIA_ANY, "sip_direct_media=no" },
		  { H_SIGNAL_ANY, "sip_direct_signalling=no" },
		  { H_OTHER_PORT, "ports=5070" } },
	.h_old_host = H_OLD_HOST,
	.h_tcp_new = H_TCP_NEW,
	.h_ctl_fail = H_CTL_FAIL,
	.h_refresh_enoent = H_REFRESH_ENOENT,
	.check_exp = fz_check_exp,
	.expect_ctl = wrap_expect_ctl,
	.may_set_timeout = true,
};
