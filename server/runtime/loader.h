/* SPDX-License-Identifier: MIT */
#ifndef CTH_LOADER_H
#define CTH_LOADER_H

#include <stddef.h>

#include <cthelperd/plugin.h>

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

struct plugin {
	char *path;
	void *dl;
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
};

/* Load DIR/NAME.so, copy its descriptor into daemon memory and validate
 * the copy.  On failure returns a negative errno and writes why into err. */
int loader_load(const char *dir, const char *name, struct plugin **out,
		char *err, size_t errlen);
/* Validate a descriptor (exposed for tests). */
int loader_desc_check(const struct cth_plugin_desc *d, const char *name,
		      char *err, size_t errlen);
void loader_unload(struct plugin *pl);

#endif
