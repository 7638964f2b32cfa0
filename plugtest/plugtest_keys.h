/* SPDX-License-Identifier: MIT */
#ifndef CTH_PLUGTEST_KEYS_H
#define CTH_PLUGTEST_KEYS_H

#include <stddef.h>

#include <cthelperd/plugin.h>

/* The configuration block the daemon would build for d from a [helper]
 * section of settings ("key=value", NULL-ended array or NULL), into
 * config (zeroed, d->config_size bytes): the declared keys' defaults and
 * the settings by the daemon's key parser, then d's check().  d is a
 * descriptor the loader's checks passed, its ABI 3 fields zero for an
 * ABI 2 plugin.  0, or a negative errno with err written (one line). */
int plugtest_keys_apply(const struct cth_plugin_desc *d, void *config,
			const char *const *settings, char *err, size_t errlen);

#endif
