/* SPDX-License-Identifier: MIT */
/* Built only for test_loader: exports no descriptor */
#include <cthelperd/plugin.h>

static __attribute__((unused)) int pkt(struct cth_ctx *ctx, const struct cth_packet *p, void *priv,
	       const void *cfg)
{
	(void)ctx; (void)p; (void)priv; (void)cfg;
	return CTH_VERDICT_ACCEPT;
}
int cth_plugin_not_here(void); int cth_plugin_not_here(void) { return pkt(0, 0, 0, 0); }
