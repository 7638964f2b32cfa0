/* SPDX-License-Identifier: MIT */
/*
 * Declared configuration keys (SDK 3, struct cth_key in plugin.h): a
 * plugin's declarations checked once when it loads, and a [helper NAME]
 * section's values parsed by type into the instance's configuration
 * block, defaults first.  A plugin that declares no keys (every ABI 2
 * plugin) gets every key the daemon does not know in its configure(), as
 * before SDK 3.
 */
#ifndef CTH_KEYS_H
#define CTH_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#include "config.h"

/* Most bytes of a CTH_KEY_STRING value (cth_key::max). */
#define KEYS_STRING_MAX 255u
/* Most choices of a CTH_KEY_CHOICE key. */
#define KEYS_CHOICES_MAX 16u
/* Longest default, as written in the config file. */
#define KEYS_DEF_MAX 255u

/*
 * A configure() call left for a sandbox (keys_apply_defer()): a
 * described plugin's code never runs in the daemon, so its CTH_KEY_CUSTOM
 * keys and defaults, and every key of a plugin that declares none, go to
 * its sandbox in order, bounded as the channel carries them.
 */
#define KEYS_DEFER_MAX (CFG_MAX_OPTS + CTH_KEY_MAX)
#define KEYS_DEFER_KEY_MAX 64u          /* bytes of a key, its NUL included */
#define KEYS_DEFER_VALUE_MAX 1024u      /* bytes of a value, its NUL included */

enum keys_call_kind {
	KEYS_CALL_LEGACY = 1,   /* a key of a plugin that declares none */
	KEYS_CALL_CUSTOM,       /* a section's CTH_KEY_CUSTOM key */
	KEYS_CALL_DEFAULT,      /* a CTH_KEY_CUSTOM key's default */
};

struct keys_call {
	unsigned int kind;      /* enum keys_call_kind */
	int line;               /* where an error is reported */
	const char *key, *value;
};

struct keys_defer {
	size_t n;
	struct keys_call call[KEYS_DEFER_MAX];
};

/* Is s a key or counter name: [a-z0-9_], 1..CTH_KEY_NAME_LEN-1? */
bool keys_name_ok(const char *s);
/* Every key d declares sound: 0, or -EINVAL with err saying which and
 * why.  The defaults are parsed as a section's values would be (but a
 * CTH_KEY_CUSTOM default only by the plugin, when an instance is built). */
int keys_decl_check(const struct cth_plugin_desc *d, char *err, size_t errlen);
/* The same with d's functions as PLUGIN_FN_* bits (loader.h). */
int keys_decl_check_fns(const struct cth_plugin_desc *d, uint32_t fns, char *err,
			size_t errlen);
/* d's key called name, or NULL. */
const struct cth_key *keys_find(const struct cth_plugin_desc *d, const char *name);
/* Parse v as key k's value into config (k->offset): 0, or -EINVAL
 * (-ENOTSUP for CTH_KEY_CUSTOM, which only the plugin parses). */
int keys_parse(const struct cth_key *k, const char *v, void *config);
/* What k's values are, for an error message: "a number in 1..65535". */
void keys_describe(const struct cth_key *k, char *buf, size_t len);
/* k's type as -n shows it: "bool", "uint", "ports", ... */
const char *keys_type_name(const struct cth_key *k);
/* k's value in config as the config file would spell it (not for
 * CTH_KEY_CUSTOM: the block is the plugin's there). */
void keys_format(const struct cth_key *k, const void *config, char *buf, size_t len);
/* The ports of d's CTH_KEY_RULE_PORTS key as config holds them (its
 * default, or the section's value), at most max: how many, 0 when d
 * declares no such key. */
size_t keys_rule_ports(const struct cth_plugin_desc *d, const void *config,
		       uint16_t *ports, size_t max);
/* The value in config of d's bool key carrying flag (CTH_KEY_RULE_OUTPUT
 * or CTH_KEY_RULE_PREROUTING): whether --print-rules attaches the helper
 * on that hook; def when d declares no such key. */
bool keys_rule_hook(const struct cth_plugin_desc *d, const void *config,
		    unsigned int flag, bool def);
/*
 * Configure an instance of d from section h into config (zeroed,
 * d->config_size bytes): with declared keys, every default, then each of
 * the section's keys by its declaration; without, each key through
 * configure().  Errors are reported "FILE:LINE: ..." (cfg_error()) and
 * make it return -EINVAL.
 */
int keys_apply(const struct cfg *cfg, const struct cfg_helper *h,
	       const struct cth_plugin_desc *d, void *config);
/* The same, but with defer set every configure() call is appended to it
 * instead of made (more than it holds, or a key or value longer than the
 * channel carries, is an error at its line). */
int keys_apply_defer(const struct cfg *cfg, const struct cfg_helper *h,
		     const struct cth_plugin_desc *d, void *config,
		     struct keys_defer *defer);
/* Make one configure() call: 0, or a negative errno with msg the error
 * as keys_apply() reports it (without "FILE:LINE: "); helper names the
 * section. */
int keys_call_run(const struct cth_plugin_desc *d, const char *helper, void *config,
		  const struct keys_call *c, char *msg, size_t len);

#endif
