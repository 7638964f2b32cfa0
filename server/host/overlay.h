/* SPDX-License-Identifier: MIT */
#ifndef CTH_OVERLAY_H
#define CTH_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/*
 * The newest private state of connections with packets in flight, per
 * worker.  The kernel snapshots CTA_HELP_INFO when it queues a packet, so
 * a second packet queued before the first one's verdict carries the older
 * state; the overlay remembers what the last verdict wrote so that the
 * plugin sees the state its previous packet left.  Fixed size, no
 * allocation per packet; an entry lives until the kernel's snapshot
 * catches up with it, until OVERLAY_TTL_MS pass, or until evicted.
 */
#define OVERLAY_WAYS 4u
#define OVERLAY_SETS 64u        /* power of two */
#define OVERLAY_TTL_MS 5000u

struct overlay_entry {
	uint32_t id;                /* conntrack id */
	uint32_t key;               /* zone + original tuple: ids get reused */
	uint64_t written_ms;        /* 0: free */
	uint8_t state[CTH_PRIV_MAX];
};

struct overlay {
	struct overlay_entry set[OVERLAY_SETS][OVERLAY_WAYS];
	unsigned long hits, evictions;
	/* the worker's counters (STATS_Q_OVERLAY_EVICTED), or NULL */
	struct stats_block *stats;
};

/* The connection key: zone and original tuple, hashed. */
uint32_t overlay_key(uint16_t zone, const struct cth_tuple *orig);

/*
 * The state to hand to the plugin: the overlay's when it holds a newer
 * one than the kernel's snapshot kpriv (len bytes, NULL: none), else
 * NULL (use the snapshot).  An entry the snapshot has caught up with, or
 * older than OVERLAY_TTL_MS, is dropped.
 */
const uint8_t *overlay_get(struct overlay *o, uint32_t id, uint32_t key,
			   const uint8_t *kpriv, size_t len, uint64_t now_ms);
/* A verdict wrote state (len bytes) for the connection. */
void overlay_put(struct overlay *o, uint32_t id, uint32_t key,
		 const uint8_t *state, size_t len, uint64_t now_ms);

struct pkt_call;
/* Run the plugin (pkt_call_run) with the newest state: the overlay's, or
 * the kernel's snapshot kpriv (klen bytes); sets c->priv_changed to
 * "the verdict must write c->priv" and records it.  Returns the verdict. */
int overlay_call_run(struct overlay *o, struct pkt_call *c,
		     const uint8_t *kpriv, size_t klen, uint64_t now_ms);

#endif
