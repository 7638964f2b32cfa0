/* SPDX-License-Identifier: MIT */
#ifndef CTH_PLUGTEST_KEYS_H
#define CTH_PLUGTEST_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include <cthelperd/plugin.h>

/* Does d declare keys (an SDK 3 descriptor with n_keys)? */
bool plugtest_keys_declared(const struct cth_plugin_desc *d);
/* The declared keys' defaults, then settings ("key=value", NULL-ended
 * array or NULL), into config; then d's check().  0, or a negative errno
 * with err written (one line). */
int plugtest_keys_apply(const struct cth_plugin_desc *d, void *config,
			const char *const *settings, char *err, size_t errlen);

#endif
