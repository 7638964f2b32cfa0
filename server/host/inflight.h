/* SPDX-License-Identifier: MIT */
#ifndef CTH_INFLIGHT_H
#define CTH_INFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/*
 * The newest private state of connections with packets in flight, per
 * worker.  The kernel snapshots CTA_HELP_INFO when it queues a packet, so
 * a second packet queued before the first one's verdict carries the older
 * state; this table remembers what the last verdict wrote so that the
 * plugin sees the state its previous packet left (pkt_call_run_newest(),
 * call.h).  Sized once ([server] inflight_entries), no allocation per
 * packet; an entry lives until the kernel's snapshot catches up with it
 * (the connection's next packet), until INFLIGHT_TTL_MS pass, or until
 * evicted.  An idle connection's entry stays until then, so a worker
 * with more connections writing state within INFLIGHT_TTL_MS than the
 * table holds evicts entries that may still be needed: counted
 * (overlay_evicted); an entry past INFLIGHT_TTL_MS is reused uncounted
 * (it would not be used any more).
 */
#define INFLIGHT_WAYS 4u
#define INFLIGHT_TTL_MS 5000u

struct inflight_entry {
	uint32_t id;                /* conntrack id */
	uint32_t key;               /* zone + original tuple: ids get reused */
	uint64_t written_ms;        /* 0: free */
	uint8_t state[CTH_PRIV_MAX];
};

struct inflight {
	struct inflight_entry (*set)[INFLIGHT_WAYS];
	unsigned int set_bits;      /* 1 << set_bits sets */
	unsigned long hits, evictions;
	/* the worker's counters, or NULL: an eviction counts as
	 * STATS_Q_OVERLAY_EVICTED, whose metric keeps the table's first
	 * name, "overlay_evicted", for operators' dashboards */
	struct stats_block *stats;
};

/* A table of entries: a power of two, at least 2 * INFLIGHT_WAYS (the
 * config's bounds: CFG_INFLIGHT_ENTRIES_*).  0, -EINVAL or -ENOMEM. */
int inflight_init(struct inflight *t, unsigned int entries);
void inflight_free(struct inflight *t);

/* The connection key: zone and original tuple, hashed. */
uint32_t inflight_key(uint16_t zone, const struct cth_tuple *orig);

/*
 * The state to hand to the plugin: the table's when it holds a newer one
 * than the kernel's snapshot kpriv (len bytes, NULL: none), else NULL
 * (use the snapshot).  An entry the snapshot has caught up with, or older
 * than INFLIGHT_TTL_MS, is dropped.
 */
const uint8_t *inflight_get(struct inflight *t, uint32_t id, uint32_t key,
			    const uint8_t *kpriv, size_t len, uint64_t now_ms);
/* A verdict wrote state (len bytes) for the connection. */
void inflight_put(struct inflight *t, uint32_t id, uint32_t key,
		  const uint8_t *state, size_t len, uint64_t now_ms);

#endif
