/* SPDX-License-Identifier: MIT */
#ifndef CTH_CONFIG_LOAD_H
#define CTH_CONFIG_LOAD_H

#include <stdio.h>

#include "config.h"

/* Parse FILE.  Errors are printed as "FILE:LINE: message" to stderr.
 * Returns 0 with *out set, or a negative errno (-EINVAL: bad config). */
int cfg_load(const char *file, struct cfg **out);
/* The same from an open stream; name stands for the file in messages (and
 * a relative plugin_dir is relative to its directory). */
int cfg_load_fp(const char *name, FILE *fp, struct cfg **out);

#endif
