/* SPDX-License-Identifier: MIT */
#ifndef CTH_CONFIG_SHARDS_H
#define CTH_CONFIG_SHARDS_H

#include <stddef.h>

#include "config.h"

/* "NAME.k": the kernel name of shard k (k >= 1) of section NAME.  The
 * dot keeps it apart from every section name (cfg_name_ok() refuses a
 * dot in one), so only its length and its queue can clash.  Returns the
 * length it needs, as snprintf() does. */
int cfg_shards_name(char *out, size_t len, const char *base, unsigned int k);

/* Once the whole file is read: the total number of helpers with their
 * shards, the queues each sharded section takes, and that no other
 * section uses them.  Errors are reported and counted (cfg_error()). */
void cfg_shards_check(struct cfg *cfg);

/* shards = N into N entries of cfg->helpers (a checked configuration):
 * 0, -E2BIG or -ENOMEM. */
int cfg_shards_expand(struct cfg *cfg);

#endif
