/* SPDX-License-Identifier: MIT */
/*
 * Bytes a plugin kept (cth_keep): the start of a message split across TCP
 * segments, shown again in front of the next in-order segment of the same
 * connection and direction.  The packet that kept them was forwarded as
 * usual: no verdict waits, so nothing here needs a timer.
 *
 * One table per worker, no lock: every packet of a connection comes to
 * one queue, hence one worker.  Bounded: KEEP_ENTRIES connection
 * directions of KEEP_BYTES_MAX bytes at most; an entry older than
 * KEEP_TTL_MS is dropped when a lookup or an insertion passes it (a
 * connection that is destroyed leaves an entry that expires so), the
 * oldest one is evicted when the table is full.  Kept bytes live only in
 * the daemon's memory: a restart loses them, and the plugin then sees the
 * second part alone, as the kernel's own helpers do.
 */
#ifndef CTH_KEEP_H
#define CTH_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/* Connection directions with kept bytes per worker. */
#define KEEP_ENTRIES 64u
/* Most bytes kept per connection direction (a SIP message's headers fit
 * many times over; the plugin.h documentation names this number). */
#define KEEP_BYTES_MAX 16384u
/* An entry not used within this time goes (the next segment of a live
 * connection comes within an RTT; a retransmission drops it anyway). */
#define KEEP_TTL_MS 10000u

struct keep_entry {
	bool used;
	uint8_t dir;                /* enum cth_dir */
	uint16_t zone;
	uint32_t id;                /* conntrack id */
	struct cth_tuple orig;      /* ids get reused: the original tuple too */
	uint32_t next_seq;          /* the segment that may use the bytes */
	uint64_t stored_ms;         /* monotonic */
	uint8_t *bytes;             /* len bytes, malloc'd */
	size_t len;
};

struct keep {
	struct keep_entry e[KEEP_ENTRIES];
	unsigned int used;
	/* the entry the current packet was shown (keep_join), until
	 * keep_done() */
	struct keep_entry *joined;
	unsigned long joins, misses, expired, evictions;
	/* the worker's counters (STATS_Q_KEEP_EVICTED), or NULL */
	struct stats_block *stats;
};

struct pkt_call;
struct stats_block;

/* Before the plugin call: if the table holds bytes for this connection
 * and direction and c->pkt is the segment that follows, show them in
 * front of its payload (c->pkt.payload, payload_len, kept).  An entry
 * whose segment this is not is dropped. */
void keep_join(struct keep *k, struct pkt_call *c, uint64_t now_ms);
/* cth_keep() after call.c's checks: copy payload[off..] now (the bytes
 * as shown, whatever edits follow).  0, -ENOSPC or -ENOMEM. */
int keep_ask(struct pkt_call *c, size_t off);
/* After the plugin call: the joined entry is used up (it stays for the
 * retransmission of a dropped packet), what the plugin kept is stored
 * (not for a dropped packet), a detach drops both directions. */
void keep_done(struct keep *k, struct pkt_call *c, int verdict, uint64_t now_ms);
/* The call's own buffers (pkt_call_release). */
void keep_release(struct pkt_call *c);
/* Every entry (worker exit). */
void keep_free(struct keep *k);

#endif
