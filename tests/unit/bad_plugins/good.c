/* SPDX-License-Identifier: MIT */
/* Built only for test_loader: a valid plugin with a configure() that knows 'color' */
#include <cthelperd/plugin.h>

static __attribute__((unused)) int pkt(struct cth_ctx *ctx, const struct cth_packet *p, void *priv,
	       const void *cfg)
{
	(void)ctx; (void)p; (void)priv; (void)cfg;
	return CTH_VERDICT_ACCEPT;
}
#include <errno.h>
#include <string.h>

static int conf(void *cfg, const char *key, const char *value)
{
	if (strcmp(key, "color") != 0)
		return -ENOENT;
	if (strcmp(value, "red") != 0 && strcmp(value, "blue") != 0)
		return -EINVAL;
	*(char *)cfg = value[0];
	return 0;
}
CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION, .size = sizeof(struct cth_plugin_desc), .name = "good", .version = "1",
	.protocols = CTH_PROTO_TCP, .families = CTH_FAMILY_IPV4,
	.priv_size = 4, .config_size = 1, .n_classes = 2,
	.classes = { { "a", 1, 10 }, { "b", 1, 10 } },
	.packet = pkt,
	.configure = conf,
};
