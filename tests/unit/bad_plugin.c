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
#ifndef TIMEOUT
#define TIMEOUT 10
#endif
#ifndef PROTOS
#define PROTOS CTH_PROTO_TCP
#endif

#ifdef MUTATE
/*
 * A plugin that changes its descriptor after the loader checked it: its
 * strings live in writable arrays, and the descriptor itself is made
 * writable with mprotect().  configure("mutate", ...) does it; the
 * daemon must not see any of it.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

static char mutable_name[] = DECLARED_NAME;
static char mutable_class[] = "a";
#define NAME_PTR mutable_name
#define CLASS_A mutable_class

extern const struct cth_plugin_desc cth_plugin;

static void plugin_mutate(void)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)&cth_plugin & ~(pg - 1);
	uintptr_t hi = ((uintptr_t)(&cth_plugin + 1) + pg - 1) & ~(pg - 1);
	struct cth_plugin_desc *d = (struct cth_plugin_desc *)(uintptr_t)&cth_plugin;

	mutable_name[0] = 'X';
	mutable_class[0] = 'z';
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) == 0) {
		d->priv_size = 64;
		d->n_classes = 7;
		d->classes[1].timeout = 0;
	}
}
#else
#define NAME_PTR DECLARED_NAME
#define CLASS_A "a"
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
#ifdef MUTATE
	if (strcmp(key, "mutate") == 0) {
		plugin_mutate();
		return 0;
	}
#endif
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
	.name = NAME_PTR,
	.version = "1",
	.protocols = PROTOS,
	.families = CTH_FAMILY_IPV4,
	.priv_size = PRIV,
	.config_size = 1,
	.n_classes = NCLS,
	.classes = { { CLASS_A, 1, TIMEOUT }, { CLS2, 1, 10 } },
	.configure = plugin_configure,
	.packet = PACKET,
#ifdef ABI3_GARBAGE
	.n_keys = 9999,
	.n_counters = 9999,
	.priv_version = 7,
	.priv_version_at = 200,
#endif
};
#else
CTH_PLUGIN_EXPORT const int cth_plugin_not_here = 1;
#endif
