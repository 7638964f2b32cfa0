/* SPDX-License-Identifier: MIT */
/* Built only for test_loader: needs a symbol nobody provides (RTLD_NOW must refuse it) */
#include <cthelperd/plugin.h>

static __attribute__((unused)) int pkt(struct cth_ctx *ctx, const struct cth_packet *p, void *priv,
	       const void *cfg)
{
	(void)ctx; (void)p; (void)priv; (void)cfg;
	return CTH_VERDICT_ACCEPT;
}
int cth_no_such_function(void);
static int pkt2(struct cth_ctx *ctx, const struct cth_packet *p, void *priv,
		const void *cfg)
{
	return pkt(ctx, p, priv, cfg) + cth_no_such_function();
}
CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION, .size = sizeof(struct cth_plugin_desc), .name = "missing_dep", .version = "1",
	.protocols = CTH_PROTO_TCP, .families = CTH_FAMILY_IPV4,
	.priv_size = 4, .n_classes = 1,
	.classes = { { "a", 1, 10 }, { "b", 1, 10 } },
	.packet = pkt2,
	.configure = NULL,
};
