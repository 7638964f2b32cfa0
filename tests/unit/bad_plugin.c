/* SPDX-License-Identifier: MIT */
/*
 * One source for every plugin test_loader loads: each variant is this file
 * built with other -D values (see BAD_PLUGIN_DEFS_* in tests/tests.mk), so
 * every variant differs from a valid plugin in exactly one way.
 */
#include <errno.h>
#include <string.h>

#include <cthelperd/plugin.h>

#ifndef ABI
#define ABI CTH_ABI_VERSION
#endif
#ifndef SIZE
#define SIZE sizeof(struct cth_plugin_desc)
#endif
#ifndef PRIV
#define PRIV 4
#endif
#ifndef NCLS
#define NCLS 2
#endif
#ifndef CLS2
#define CLS2 "b"
#endif
#ifndef DECLARED_NAME
#define DECLARED_NAME NAME
#endif
#ifndef PACKET
#define PACKET plugin_packet
#endif

static __attribute__((unused)) int plugin_packet(struct cth_ctx *ctx,
						  const struct cth_packet *p,
						  void *priv, const void *cfg)
{
	(void)ctx; (void)p; (void)priv; (void)cfg;
#ifdef MISSING_DEP
	/* nobody provides it: dlopen(RTLD_NOW) must refuse the plugin */
	extern int cth_no_such_function(void);
	return cth_no_such_function();
#endif
	return CTH_VERDICT_ACCEPT;
}

/* knows one key, "color", with values red and blue */
static __attribute__((unused)) int plugin_configure(void *cfg, const char *key, const char *value)
{
	if (strcmp(key, "color") != 0)
		return -ENOENT;
	if (strcmp(value, "red") != 0 && strcmp(value, "blue") != 0)
		return -EINVAL;
	*(char *)cfg = value[0];
	return 0;
}

#ifndef NO_SYMBOL
CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = ABI,
	.size = SIZE,
	.name = DECLARED_NAME,
	.version = "1",
	.protocols = CTH_PROTO_TCP,
	.families = CTH_FAMILY_IPV4,
	.priv_size = PRIV,
	.config_size = 1,
	.n_classes = NCLS,
	.classes = { { "a", 1, 10 }, { CLS2, 1, 10 } },
	.configure = plugin_configure,
	.packet = PACKET,
};
#else
CTH_PLUGIN_EXPORT const int cth_plugin_not_here = 1;
#endif
