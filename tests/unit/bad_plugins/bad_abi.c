/* SPDX-License-Identifier: MIT */
/* Built only for test_loader: wrong ABI version */
#include <cthelperd/plugin.h>

static __attribute__((unused)) int pkt(struct cth_ctx *ctx, const struct cth_packet *p, void *priv,
	       const void *cfg)
{
	(void)ctx; (void)p; (void)priv; (void)cfg;
	return CTH_VERDICT_ACCEPT;
}
CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = 99, .size = sizeof(struct cth_plugin_desc), .name = "bad_abi", .version = "1",
	.protocols = CTH_PROTO_TCP, .families = CTH_FAMILY_IPV4,
	.priv_size = 4, .n_classes = 1,
	.classes = { { "a", 1, 10 }, { "b", 1, 10 } },
	.packet = pkt,
	.configure = NULL,
};
