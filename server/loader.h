/* SPDX-License-Identifier: MIT */
#ifndef CTH_LOADER_H
#define CTH_LOADER_H

#include <stddef.h>

#include <cthelperd/plugin.h>

struct plugin {
	char *path;
	void *dl;
	const struct cth_plugin_desc *desc;
};

/* Load DIR/NAME.so and validate its descriptor.  On failure returns a
 * negative errno and writes why into err. */
int plugin_load(const char *dir, const char *name, struct plugin **out,
		char *err, size_t errlen);
/* Validate a descriptor (exposed for tests). */
int plugin_desc_check(const struct cth_plugin_desc *d, const char *name,
		      char *err, size_t errlen);
void plugin_unload(struct plugin *pl);

#endif
