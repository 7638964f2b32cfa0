/* SPDX-License-Identifier: MIT */
/*
 * shards = N (docs/architecture.md, "Sharding"): one section becomes N
 * kernel helpers, each on its own queue.  Checked once the whole file is
 * read, then expanded into one cfg_helper entry per shard: shard 0 keeps
 * the section's name and queue, shard k is "NAME.k" on queue + k.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_shards.h"

static void cfg_shards_clash(struct cfg *cfg, const struct cfg_helper *a,
			     const struct cfg_helper *b);
static uint32_t cfg_shards_queue_last(const struct cfg_helper *h);
static int cfg_shards_copy(struct cfg_helper *dst, const struct cfg_helper *src);

int cfg_shards_name(char *out, size_t len, const char *base, unsigned int k)
{
	return snprintf(out, len, "%s.%u", base, k);
}

void cfg_shards_check(struct cfg *cfg)
{
	size_t total = 0;

	for (size_t i = 0; i < cfg->n_helpers; i++) {
		const struct cfg_helper *h = &cfg->helpers[i];

		total += h->shards;
		/* reported where the total first passes the limit, whichever
		 * section that is: a plain one after a sharded one too
		 * (cfg_shards_expand() writes every entry into helpers[]) */
		if (total > CFG_MAX_HELPERS && total - h->shards <= CFG_MAX_HELPERS)
			cfg_error(cfg, h->shards > 1 ? h->shards_line : h->line,
				  "helper '%s': %zu helpers in all with the shards (max %d)",
				  h->name, total, CFG_MAX_HELPERS);
		if (h->shards == 1)
			continue;
		if (cfg_shards_queue_last(h) > 65535)
			cfg_error(cfg, h->shards_line, "shards = %u: helper '%s' from queue %u needs queues up to %u (the last is 65535)",
				  h->shards, h->name, h->queue, cfg_shards_queue_last(h));
	}
	for (size_t i = 0; i < cfg->n_helpers; i++)
		for (size_t j = 0; j < i; j++)
			cfg_shards_clash(cfg, &cfg->helpers[j], &cfg->helpers[i]);
}

/*
 * In place and in file order: a section's shards are consecutive
 * (--print-rules reads them so).  Walking from the last section down,
 * each one's destination is at or after where it stands, so nothing is
 * overwritten before it has moved; a moved-from slot is zeroed so that
 * no pointer has two owners.
 */
int cfg_shards_expand(struct cfg *cfg)
{
	size_t sections = cfg->n_helpers, total = 0, end;

	for (size_t i = 0; i < sections; i++)
		total += cfg->helpers[i].shards;
	/* cfg_shards_check() refused it; never write past helpers[] */
	if (total > CFG_MAX_HELPERS)
		return -E2BIG;
	/* cfg_free() sees every slot; those past the sections are zero
	 * (calloc) until filled */
	cfg->n_helpers = end = total;
	for (size_t i = sections; i-- > 0; ) {
		struct cfg_helper *h = &cfg->helpers[i], *d;
		unsigned int n = h->shards;

		end -= n;
		d = &cfg->helpers[end];
		if (d != h) {
			*d = *h;
			memset(h, 0, sizeof(*h));
		}
		for (unsigned int k = 1; k < n; k++) {
			if (cfg_shards_copy(&d[k], d))
				return -ENOMEM;
			cfg_shards_name(d[k].name, sizeof(d[k].name), d->name, k);
			d[k].queue = (uint16_t)(d->queue + k);
			d[k].shard = k;
		}
	}
	return 0;
}

/*
 * A sharded section's queues are its own: a shard exists so that one
 * worker thread (one per queue) serves it alone, and a queue shared with
 * another helper would put two shards' or two helpers' packets on one
 * thread again.  Unsharded sections may still share a queue, as before.
 * Each clash is reported once, at the shards line of the sharded one.
 */
static void cfg_shards_clash(struct cfg *cfg, const struct cfg_helper *a,
			     const struct cfg_helper *b)
{
	const struct cfg_helper *s = b->shards > 1 ? b : a, *o = s == b ? a : b;
	uint32_t first = a->queue > b->queue ? a->queue : b->queue;

	if (s->shards == 1 || first > cfg_shards_queue_last(a) ||
	    first > cfg_shards_queue_last(b))
		return;
	cfg_error(cfg, s->shards_line, "shards = %u: helper '%s' takes queues %u..%u, and helper '%s' (line %d) "
		  "also uses queue %u: a sharded helper's queues are its own",
		  s->shards, s->name, s->queue, cfg_shards_queue_last(s), o->name, o->line, first);
}

/* The last queue of a section: queue + shards - 1 (may pass 65535). */
static uint32_t cfg_shards_queue_last(const struct cfg_helper *h)
{
	return (uint32_t)h->queue + h->shards - 1;
}

/* A deep copy: the plugin name and options are strdup()ed, so that
 * cfg_free() frees every entry on its own.  On -ENOMEM dst holds only
 * what was copied (nothing of src's is freed twice). */
static int cfg_shards_copy(struct cfg_helper *dst, const struct cfg_helper *src)
{
	*dst = *src;
	dst->plugin = NULL;
	dst->n_opts = 0;
	if (cfg_str_set(&dst->plugin, src->plugin))
		return -ENOMEM;
	for (size_t i = 0; i < src->n_opts; i++) {
		struct cfg_opt *o = &dst->opts[i];

		o->key = strdup(src->opts[i].key);
		o->value = strdup(src->opts[i].value);
		dst->n_opts++;
		if (!o->key || !o->value)
			return -ENOMEM;
	}
	return 0;
}
