/* SPDX-License-Identifier: MIT */
/* The pure parts of a reload (reload.c does the rest). */
#ifndef CTH_RELOAD_PLAN_H
#define CTH_RELOAD_PLAN_H

#include <stddef.h>

#include "runtime/config.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"
#include "base/strbuf.h"

/* [server] settings that are set up once at start and cannot change on
 * a reload: 0, or -EINVAL with msg naming the key, old and new value. */
int reload_plan_server_check(const struct cfg *old, const struct cfg *nc,
			     char *msg, size_t len);
/* Give nrt's instances their counter slots: a helper name that stays
 * keeps its slot, a new one gets a slot neither runtime uses, listed in
 * fresh (to clear).  Returns how many are fresh. */
size_t reload_plan_slots_assign(const struct runtime *old, struct runtime *nrt,
				unsigned int *fresh);
/* Which plugin counters of nrt's slots start at 0, as a bit per counter
 * index in reset[slot] (STATS_SLOTS entries, all written): a helper's
 * counter is carried when the helper keeps its name (hence its slot) and
 * its plugin, by name, declares the same counter name at the same index;
 * every other, and every counter of a new helper, starts at 0. */
void reload_plan_counters_reset(const struct runtime *old, const struct runtime *nrt,
				uint32_t *reset);
/* "N helper(s) on M queue(s); added X; removed Y; Z moved ...". */
void reload_plan_summary(const struct runtime *old, const struct runtime *nrt,
			 struct strbuf *b);

#endif
