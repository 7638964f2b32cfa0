/* SPDX-License-Identifier: MIT */
/*
 * The in-flight state table (inflight.h): sets of INFLIGHT_WAYS entries,
 * the set chosen by conntrack id, an entry matched by id and key.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inflight.h"
#include "base/log.h"
#include "runtime/stats.h"

static struct inflight_entry *inflight_find(struct inflight *t, uint32_t id,
					    uint32_t key);
static struct inflight_entry *inflight_set(struct inflight *t, uint32_t id);
static void inflight_evicted(struct inflight *t);
static uint32_t inflight_hash(uint32_t h, const void *p, size_t n);

int inflight_init(struct inflight *t, unsigned int entries)
{
	unsigned int sets;

	/* two sets at least: inflight_set() shifts by 32 - set_bits */
	if (entries < 2 * INFLIGHT_WAYS || (entries & (entries - 1)))
		return -EINVAL;
	sets = entries / INFLIGHT_WAYS;
	t->set = calloc(sets, sizeof(*t->set));
	if (!t->set)
		return -ENOMEM;
	for (t->set_bits = 0; (1u << t->set_bits) < sets; t->set_bits++)
		;
	return 0;
}

void inflight_free(struct inflight *t)
{
	free(t->set);
	t->set = NULL;
}

uint32_t inflight_key(uint16_t zone, const struct cth_tuple *orig)
{
	uint32_t h = 2166136261u;

	h = inflight_hash(h, &zone, sizeof(zone));
	h = inflight_hash(h, orig->src.raw, sizeof(orig->src.raw));
	h = inflight_hash(h, orig->dst.raw, sizeof(orig->dst.raw));
	h = inflight_hash(h, &orig->sport, sizeof(orig->sport));
	h = inflight_hash(h, &orig->dport, sizeof(orig->dport));
	h = inflight_hash(h, &orig->family, sizeof(orig->family));
	return inflight_hash(h, &orig->proto, sizeof(orig->proto));
}

const uint8_t *inflight_get(struct inflight *t, uint32_t id, uint32_t key,
			    const uint8_t *kpriv, size_t len, uint64_t now_ms)
{
	struct inflight_entry *e = inflight_find(t, id, key);
	uint8_t snap[CTH_PRIV_MAX] = { 0 };

	if (!e || len > CTH_PRIV_MAX)
		return NULL;
	if (now_ms - e->written_ms > INFLIGHT_TTL_MS) {
		e->written_ms = 0;
		return NULL;
	}
	if (kpriv)
		memcpy(snap, kpriv, len);
	if (memcmp(snap, e->state, len) == 0) {
		/* the kernel has it: nothing newer is in flight */
		e->written_ms = 0;
		return NULL;
	}
	t->hits++;
	return e->state;
}

void inflight_put(struct inflight *t, uint32_t id, uint32_t key,
		  const uint8_t *state, size_t len, uint64_t now_ms)
{
	struct inflight_entry *e = inflight_find(t, id, key);

	if (len > CTH_PRIV_MAX)
		return;
	if (!e) {
		struct inflight_entry *s = inflight_set(t, id);

		/* a free way, else the oldest (its connection has most
		 * likely no packet in flight any more) */
		e = &s[0];
		for (unsigned i = 0; i < INFLIGHT_WAYS && e->written_ms; i++)
			if (!s[i].written_ms || s[i].written_ms < e->written_ms)
				e = &s[i];
		/* one past its TTL is as good as free: inflight_get()
		 * would not use it */
		if (e->written_ms && now_ms - e->written_ms <= INFLIGHT_TTL_MS)
			inflight_evicted(t);
	}
	e->id = id;
	e->key = key;
	e->written_ms = now_ms ? now_ms : 1;
	memset(e->state, 0, sizeof(e->state));
	memcpy(e->state, state, len);
}

static struct inflight_entry *inflight_find(struct inflight *t, uint32_t id,
					    uint32_t key)
{
	struct inflight_entry *s = inflight_set(t, id);

	for (unsigned i = 0; i < INFLIGHT_WAYS; i++)
		if (s[i].written_ms && s[i].id == id && s[i].key == key)
			return &s[i];
	return NULL;
}

static struct inflight_entry *inflight_set(struct inflight *t, uint32_t id)
{
	/* the product's top bits (Fibonacci hashing); at least 2 sets */
	return t->set[(id * 2654435761u) >> (32 - t->set_bits)];
}

/* An evicted state: the plugin may see the kernel's older snapshot for
 * that connection's next packet (counted, logged at a bounded rate). */
static void inflight_evicted(struct inflight *t)
{
	int quiet;

	t->evictions++;
	quiet = log_rl(LOG_L_NOTICE, "in-flight helper state: a set of %u is full, "
		       "an entry younger than %u ms evicted (overlay_evicted; "
		       "[server] inflight_entries sizes the table)", INFLIGHT_WAYS,
		       INFLIGHT_TTL_MS);
	if (!t->stats)
		return;
	/* the metric keeps its first name, overlay_evicted (inflight.h) */
	stats_add(&t->stats->q[STATS_Q_OVERLAY_EVICTED], 1);
	stats_add(&t->stats->q[STATS_Q_LOG_SUPPRESSED], (uint64_t)quiet);
}

/* FNV-1a: the key only has to tell apart connections that share an id. */
static uint32_t inflight_hash(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}
