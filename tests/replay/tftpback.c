/* SPDX-License-Identifier: MIT */
/*
 * Test plugins of the replay's NAT check (tests/replay/README.md, "The
 * NAT check"): a TFTP-shaped UDP helper.  A client's request (RFC 1350
 * RRQ or WRQ: opcode 1 or 2) is answered by the server from another port
 * back to the client's port, so the request expects the server, any
 * port, to the client's port as the server knows it; cth_expect_back()
 * (util.h) fills it, NAT included.  Built several times (tests/replay/
 * replay.mk), each named by NAME, one of them right:
 *   tftpback_ok     as cth_expect_back() fills it
 *   tftpback_nonat  BROKEN_NO_NAT: without its NAT (flag, function, port)
 *   tftpback_priv   BROKEN_PRIVATE: to the client's own address, the one
 *                   behind the NAT, instead of the one the server knows
 *   tftpback_port   BROKEN_PORT: NAT port the server's (69), not the client's
 *   tftpback_crash  CRASH: writes through a null pointer on a request
 */
#include <netinet/in.h>
#include <string.h>

#include <cthelperd/plugin.h>
#include <cthelperd/util.h>

#ifndef NAME
#define NAME "tftpback_ok"
#endif

static int tb_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
		     const void *config)
{
	const uint8_t *p = pkt->payload;
	struct cth_expect e;
	int rc;

	(void)priv;
	(void)config;
	if (pkt->dir != CTH_DIR_ORIGINAL || pkt->payload_len < 4 || p[0] != 0 ||
	    (p[1] != 1 && p[1] != 2))
		return CTH_VERDICT_ACCEPT;
#ifdef CRASH
	*(volatile int *)(uintptr_t)pkt->kept = 1;
#endif
	cth_expect_back(&e, pkt, 0, IPPROTO_UDP);
#if defined(BROKEN_NO_NAT)
	e.flags &= ~(unsigned int)CTH_EXPECT_NAT;
	e.fn = NULL;
	e.nat_port = 0;
	memset(&e.nat_addr, 0, sizeof(e.nat_addr));
#elif defined(BROKEN_PRIVATE)
	cth_addr_copy(e.family, &e.dst, &pkt->tuple[pkt->dir].src);
#elif defined(BROKEN_PORT)
	if (e.flags & CTH_EXPECT_NAT)
		e.nat_port = pkt->tuple[pkt->dir].dport;
#endif
	rc = cth_expect(ctx, &e, CTH_EXPECT_SYNC);
	if (rc < 0) {
		cth_log(ctx, CTH_LOG_WARNING, "request not expected: %d", rc);
		return cth_expect_verdict(rc);
	}
	return CTH_VERDICT_ACCEPT;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = NAME,
	.version = "1",
	.description = "test: a TFTP-shaped helper, the answer back to the requester",
	.protocols = CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.n_classes = 1,
	.classes = { { .name = "data", .max = 8, .timeout = 30 } },
	.packet = tb_packet,
};
