/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "overlay.h"
#include "base/log.h"
#include "packet.h"
#include "runtime/stats.h"

/* FNV-1a: the key only has to tell apart connections that share an id. */
static uint32_t overlay_hash(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

uint32_t overlay_key(uint16_t zone, const struct cth_tuple *t)
{
	uint32_t h = 2166136261u;

	h = overlay_hash(h, &zone, sizeof(zone));
	h = overlay_hash(h, t->src.raw, sizeof(t->src.raw));
	h = overlay_hash(h, t->dst.raw, sizeof(t->dst.raw));
	h = overlay_hash(h, &t->sport, sizeof(t->sport));
	h = overlay_hash(h, &t->dport, sizeof(t->dport));
	h = overlay_hash(h, &t->family, sizeof(t->family));
	return overlay_hash(h, &t->proto, sizeof(t->proto));
}

static struct overlay_entry *overlay_set(struct overlay *o, uint32_t id)
{
	return o->set[(id * 2654435761u) >> 26 & (OVERLAY_SETS - 1)];
}

static struct overlay_entry *overlay_find(struct overlay *o, uint32_t id,
					  uint32_t key)
{
	struct overlay_entry *s = overlay_set(o, id);

	for (unsigned i = 0; i < OVERLAY_WAYS; i++)
		if (s[i].written_ms && s[i].id == id && s[i].key == key)
			return &s[i];
	return NULL;
}

const uint8_t *overlay_get(struct overlay *o, uint32_t id, uint32_t key,
			   const uint8_t *kpriv, size_t len, uint64_t now_ms)
{
	struct overlay_entry *e = overlay_find(o, id, key);
	uint8_t snap[CTH_PRIV_MAX] = { 0 };

	if (!e || len > CTH_PRIV_MAX)
		return NULL;
	if (now_ms - e->written_ms > OVERLAY_TTL_MS) {
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
	o->hits++;
	return e->state;
}

/* An evicted state: the plugin may see the kernel's older snapshot for
 * that connection's next packet (counted, logged at a bounded rate). */
static void overlay_evicted(struct overlay *o)
{
	int quiet;

	o->evictions++;
	quiet = log_rl(LOG_L_NOTICE, "in-flight helper state: a set of %u is full, "
		       "the oldest evicted", OVERLAY_WAYS);
	if (!o->stats)
		return;
	stats_add(&o->stats->q[STATS_Q_OVERLAY_EVICTED], 1);
	stats_add(&o->stats->q[STATS_Q_LOG_SUPPRESSED], (uint64_t)quiet);
}

void overlay_put(struct overlay *o, uint32_t id, uint32_t key,
		 const uint8_t *state, size_t len, uint64_t now_ms)
{
	struct overlay_entry *e = overlay_find(o, id, key);

	if (len > CTH_PRIV_MAX)
		return;
	if (!e) {
		struct overlay_entry *s = overlay_set(o, id);

		/* a free way, else the oldest (its connection has most
		 * likely no packet in flight any more) */
		e = &s[0];
		for (unsigned i = 0; i < OVERLAY_WAYS && e->written_ms; i++)
			if (!s[i].written_ms || s[i].written_ms < e->written_ms)
				e = &s[i];
		if (e->written_ms)
			overlay_evicted(o);
	}
	e->id = id;
	e->key = key;
	e->written_ms = now_ms ? now_ms : 1;
	memset(e->state, 0, sizeof(e->state));
	memcpy(e->state, state, len);
}

/*
 * The verdict writes the state whenever it differs from what the kernel
 * sent, or the overlay was used (the kernel may be behind: even a state
 * equal to its snapshot must then be written).
 */
int overlay_call_run(struct overlay *o, struct pkt_call *c,
		     const uint8_t *kpriv, size_t klen, uint64_t now_ms)
{
	size_t n = c->inst->pl->desc->priv_size;
	const uint8_t *newer = NULL;
	/* an expected connection keeps no state in the kernel */
	bool track = n && c->pkt.ct_id && !(c->pkt.ct_status & CTH_CT_EXPECTED);
	uint32_t key = track ? overlay_key(c->pkt.zone, &c->pkt.tuple[CTH_DIR_ORIGINAL]) : 0;
	int verdict;

	if (klen > n)
		klen = n;
	if (track)
		newer = overlay_get(o, c->pkt.ct_id, key, kpriv, klen, now_ms);
	verdict = pkt_call_run(c, newer ? newer : kpriv, newer ? n : klen);
	c->priv_changed = newer || pkt_call_priv_differs(c, kpriv, klen);
	if (!track)
		return verdict;
	/* also when the plugin detaches: the detach may wait for the
	 * connection's expectations (detach.h), and packets meanwhile must
	 * see this state; after a detach the entry just ages out */
	if (c->priv_changed)
		overlay_put(o, c->pkt.ct_id, key, c->priv, n, now_ms);
	return verdict;
}
