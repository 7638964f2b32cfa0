/* SPDX-License-Identifier: MIT */
/*
 * The worker's counters (runtime/stats.h), counted by the parts of its
 * packet path: each holds a pointer to the worker's block, written by the
 * worker's thread only.  A helper's counters sit in its instance's slot,
 * which outlasts a reload.
 */
#ifndef CTH_WORKER_COUNT_H
#define CTH_WORKER_COUNT_H

#include <string.h>

#include "runtime/runtime.h"
#include "runtime/stats.h"

/* A helper counter of in. */
static inline void worker_count(struct stats_block *s, const struct instance *in,
				enum stats_helper_counter k)
{
	stats_add(&s->h[in->slot][k], 1);
}

/* The same for a helper known by name only (a waiting detach), in the
 * runtime rt; nothing when no helper of rt has that name any more. */
static inline void worker_count_name(struct stats_block *s, const struct runtime *rt,
				     const char *name, enum stats_helper_counter k)
{
	for (size_t i = 0; i < rt->n_inst; i++)
		if (strcmp(rt->inst[i].name, name) == 0) {
			worker_count(s, &rt->inst[i], k);
			return;
		}
}

/* A queue counter. */
static inline void worker_count_queue(struct stats_block *s, enum stats_queue_counter k)
{
	stats_add(&s->q[k], 1);
}

#endif
