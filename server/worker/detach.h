/* SPDX-License-Identifier: MIT */
/*
 * Detaches (cth_detach()) that keep the connection's expectations.
 *
 * Linux 6.1 removes a connection's pending expectations together with its
 * helper (ctnetlink_change_helper(): an empty name calls
 * nf_ct_remove_expectations()), and an expectation created for a master
 * that has no helper any more gets no timeout at all
 * (nf_ct_expect_insert() arms its timer only from the master helper's
 * policy), so "detach, then expect again" is not an option.  A connection
 * that asks to detach while it has expectations pending (created by this
 * very packet or earlier) therefore keeps its helper: the worker polls the
 * kernel for the master's expectations and detaches it over ctnetlink as
 * soon as none is left (used, expired or removed).  Until then its packets
 * are still queued and shown to the plugin.
 *
 * A connection that has been detached stays in the table a moment
 * (DETACH_DONE_MS): packets of it that were queued before the detach are
 * passed without running the plugin, whose verdict would name a helper
 * the connection no longer has (the kernel refuses that NFQA_CT, and with
 * it everything the verdict carries).
 *
 * One table per worker, no lock (every packet of a connection comes to
 * one queue).  Bounded: when DETACH_ENTRIES connections wait, a further
 * detach is refused and the connection stays helped; the plugin may ask
 * again on a later packet.  The table lives in the daemon's memory only:
 * after a restart a waiting connection stays helped until the plugin
 * asks again.
 */
#ifndef CTH_DETACH_H
#define CTH_DETACH_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#define DETACH_ENTRIES 128u
/* How often waiting connections are checked: the expected connection
 * usually follows its announcement within a round trip. */
#define DETACH_POLL_MS 20u
/* Waiting connections checked per poll (one ctnetlink dump each). */
#define DETACH_POLL_BATCH 16u
/* How long a detached connection's already queued packets are passed
 * unread (a queued packet gets its verdict in far less). */
#define DETACH_DONE_MS 2000u

enum detach_state {
	DETACH_NONE = 0,       /* not in the table */
	DETACH_WAIT,           /* asked, expectations pending: still helped */
	DETACH_DONE,           /* detached: pass its queued packets unread */
};

struct detach_entry {
	uint8_t state;              /* enum detach_state */
	uint16_t zone;
	uint32_t id;                /* conntrack id */
	struct cth_tuple orig;      /* ids get reused: the original tuple too */
	uint64_t since_ms;          /* monotonic: when it entered this state */
	char helper[CTH_NAME_LEN];  /* for the log */
};

struct detach {
	struct detach_entry e[DETACH_ENTRIES];
	unsigned int used, waiting;
	unsigned int next;          /* round robin start of the next poll */
	unsigned long deferred, detached, refused;
	/* the worker's counters (STATS_Q_DETACH_FULL), or NULL */
	struct stats_block *stats;
};

/* The connection's entry state (a DONE entry past DETACH_DONE_MS is
 * dropped on the way). */
enum detach_state detach_lookup(struct detach *d, const struct cth_packet *p,
				uint64_t now_ms);
/* Record the connection as waiting or detached.  0, or -ENOSPC when the
 * table is full (for DONE: the oldest DONE entry is reused first). */
int detach_add(struct detach *d, const struct cth_packet *p, const char *helper,
	       enum detach_state state, uint64_t now_ms);
/* A waiting entry is settled: detached (DONE) or gone (master destroyed). */
void detach_settle(struct detach *d, struct detach_entry *e, bool detached,
		   uint64_t now_ms);
/* The next waiting entry, round robin (NULL when none waits). */
struct detach_entry *detach_next_waiting(struct detach *d);

#endif
