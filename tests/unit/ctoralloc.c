/* SPDX-License-Identifier: MIT */
/*
 * A test-only plugin whose constructor allocates and touches
 * CTORALLOC_BYTES as soon as it is loaded, before any host function or
 * init() runs: what the sandbox's address-space limit (sandbox_memory)
 * must already bound (server/sandbox/confine.h, the order).  Its init()
 * says whether the constructor got the memory: 0, or -ENOMEM when the
 * allocation was refused, so a sandbox whose limit came too late starts
 * and one whose limit came first does not.  Packets: accepted, nothing
 * else.  Built for the tests only ($(B)/tests/plugins/ctoralloc.so,
 * tests/tests.mk).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cthelperd/plugin.h>

/* more than the smallest sandbox_memory (16 MiB), far less than the
 * default (256) */
#define CTORALLOC_BYTES (32u << 20)

static bool ctoralloc_got;

__attribute__((constructor)) static void ctoralloc_ctor(void)
{
	char *p = malloc(CTORALLOC_BYTES);

	if (!p)
		return;
	/* touched: the pages are really the process's */
	memset(p, 0x5a, CTORALLOC_BYTES);
	ctoralloc_got = p[CTORALLOC_BYTES - 1] == 0x5a;
	free(p);
}

static int ctoralloc_init(void *config, const char *instance)
{
	(void)config;
	(void)instance;
	return ctoralloc_got ? 0 : -ENOMEM;
}

static int ctoralloc_packet(struct cth_ctx *ctx, const struct cth_packet *pkt, void *priv,
			    const void *config)
{
	(void)ctx;
	(void)pkt;
	(void)priv;
	(void)config;
	return CTH_VERDICT_ACCEPT;
}

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "ctoralloc",
	.version = "0",
	.description = "test plugin whose constructor allocates 32 MiB",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.n_classes = 1,
	.classes = { { .name = "none", .max = 1, .timeout = 1 } },
	.init = ctoralloc_init,
	.packet = ctoralloc_packet,
};
