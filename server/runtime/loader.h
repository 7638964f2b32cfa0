/* SPDX-License-Identifier: MIT */
#ifndef CTH_LOADER_H
#define CTH_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#include "keys.h"

/*
 * Longest expectation timeout, in seconds, for plugin defaults and config
 * overrides alike.  The kernel turns it into jiffies in 32 bits
 * (nf_ct_expect_insert(): expect_policy[class].timeout * HZ, unsigned
 * int), so it must stay below 2^32 / 1000 for HZ up to 1000; a week is
 * far below that and far above any protocol's need.
 */
#define PLUGIN_TIMEOUT_MAX 604800u
/* Most live expectations per class: the kernel's NF_CT_EXPECT_MAX_CNT. */
#define PLUGIN_EXPECT_MAX 255u

/* Bounds of the informational strings copied from a descriptor. */
#define PLUGIN_NAME_LEN 64u
#define PLUGIN_VERSION_LEN 64u
#define PLUGIN_DESCRIPTION_LEN 256u
#define PLUGIN_DOC_LEN 256u

/*
 * The texts of one declared key, copied like the descriptor's: a name or
 * choice one byte longer than allowed, and a default longer than
 * KEYS_DEF_MAX, are still seen as too long; a doc line is cut.  One
 * choice more than allowed is copied, so that it is refused.
 */
struct plugin_key_text {
	char name[CTH_KEY_NAME_LEN + 1];
	char doc[PLUGIN_DOC_LEN];
	char def[KEYS_DEF_MAX + 2];
	const char *choices[KEYS_CHOICES_MAX + 2];
	char choice[KEYS_CHOICES_MAX + 1][CTH_KEY_NAME_LEN + 1];
};

struct plugin_counter_text {
	char name[CTH_KEY_NAME_LEN + 1];
	char help[PLUGIN_DOC_LEN];
};

/* The descriptor's functions, as a bit each (struct plugin::fns). */
enum plugin_fn {
	PLUGIN_FN_CONFIGURE = 1u << 0,
	PLUGIN_FN_PACKET = 1u << 1,
	PLUGIN_FN_CHECK = 1u << 2,
	PLUGIN_FN_INIT = 1u << 3,
	PLUGIN_FN_FINI = 1u << 4,
	PLUGIN_FN_PRIV_VALID = 1u << 5,
};
#define PLUGIN_FN_ALL 0x3fu

/* Which of a key's texts the plugin gave (plugin_has::key). */
enum plugin_has_key {
	PLUGIN_HAS_NAME = 1u << 0,
	PLUGIN_HAS_DOC = 1u << 1,
	PLUGIN_HAS_DEF = 1u << 2,
	PLUGIN_HAS_CHOICES = 1u << 3,
};

/*
 * Which of the descriptor's pointers were set, so that the copy's can be
 * bound again (loader_plugin_bind()) from this alone: a NULL default or
 * name means something other than "", and a described plugin's copy
 * arrives with every pointer zeroed.
 */
struct plugin_has {
	uint8_t name, version, description, keys, counters;
	uint8_t class_name[CTH_CLASS_MAX];
	uint8_t key[CTH_KEY_MAX];             /* PLUGIN_HAS_* */
	uint8_t n_choices[CTH_KEY_MAX];       /* <= KEYS_CHOICES_MAX + 1 */
	uint8_t counter_name[CTH_COUNTER_MAX];
	uint8_t match;
};

struct plugin {
	char *path;
	/* NULL for a described plugin (server/sandbox/describe.h): its code
	 * was loaded in a sandbox only, and its function pointers here are
	 * NULL; fns says which the descriptor has */
	void *dl;
	bool described;
	uint32_t fns;                 /* PLUGIN_FN_* */
	uint64_t dev, ino;            /* of the file checked (and loaded) */
	struct plugin_has has;
	/*
	 * Points at copy below, never into the plugin: a plugin's own
	 * memory is writable by the plugin, and the daemon must not see a
	 * descriptor change after it was checked (priv_size, classes).
	 */
	const struct cth_plugin_desc *desc;
	struct cth_plugin_desc copy;
	char name[PLUGIN_NAME_LEN + 1];
	char version[PLUGIN_VERSION_LEN];
	char description[PLUGIN_DESCRIPTION_LEN];
	char class_names[CTH_CLASS_MAX][CTH_NAME_LEN + 1];
	/* copy.keys and copy.counters point here (SDK 3; none for ABI 2) */
	struct cth_key keys[CTH_KEY_MAX];
	struct plugin_key_text key_text[CTH_KEY_MAX];
	struct cth_counter counters[CTH_COUNTER_MAX];
	struct plugin_counter_text counter_text[CTH_COUNTER_MAX];
	/* copy.match points here (no pointer inside: the sandbox's describe
	 * carries them as they are) */
	struct cth_match match[CTH_MATCH_MAX];
};

/*
 * The descriptor size of each ABI the loader takes: an ABI 2 descriptor
 * is the ABI 3 one up to and including packet (plugin.h), copied into
 * the daemon's with the ABI 3 fields zeroed.
 */
#define PLUGIN_ABI2_SIZE offsetof(struct cth_plugin_desc, keys)
/* ABI 3 as first released, before the match rules were appended: taken,
 * with no rules (every packet queued). */
#define PLUGIN_ABI3_FIRST_SIZE offsetof(struct cth_plugin_desc, match)

/* Load DIR/NAME.so, copy its descriptor into daemon memory and validate
 * the copy; the descriptor must be called NAME.  On failure returns a
 * negative errno and writes why into err. */
int loader_load(const char *dir, const char *name, struct plugin **out,
		char *err, size_t errlen);
/* Validate a descriptor (exposed for tests): everything but whether its
 * name is the one it was loaded as. */
int loader_desc_check(const struct cth_plugin_desc *d, char *err, size_t errlen);
/* The same with the functions given as PLUGIN_FN_* bits (a described
 * plugin's pointers are NULL). */
int loader_desc_check_fns(const struct cth_plugin_desc *d, uint32_t fns, char *err,
			  size_t errlen);
/* The PLUGIN_FN_* bits of d's function pointers. */
uint32_t loader_desc_fns(const struct cth_plugin_desc *d);
/*
 * Point pl->desc at pl->copy and every pointer of the copy at pl's own
 * arrays, as pl->has says which were set (the loader's copy, and a
 * described plugin's adopted one alike); counts above their maximum bind
 * nothing (the checks refuse them).  The arrays must hold terminated
 * strings.
 */
void loader_plugin_bind(struct plugin *pl);
/* The checks of a bound copy (pl->fns for its functions), then that its
 * name is name: 0, or -EINVAL with err saying "PATH: why". */
int loader_plugin_vet(const struct plugin *pl, const char *name, char *err,
		      size_t errlen);
/* The file checks loader_load() makes before dlopen(), alone (for a
 * plugin a sandbox loads): 0 and the file's dev and ino. */
int loader_file_vet(const char *path, uint64_t *dev, uint64_t *ino, char *err,
		    size_t errlen);
void loader_unload(struct plugin *pl);

#endif
