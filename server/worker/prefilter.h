/* SPDX-License-Identifier: MIT */
/*
 * The plugin's match rules applied in the daemon (issue 34): a packet with
 * payload that none of them selects is answered ACCEPT at once, without a
 * plugin call (no sandbox turn, no conntrack update on its verdict).
 * kmod/ applies the same rules before the queue (kmod/cthd_match.h); on
 * the in-tree nfnetlink_cthelper, which queues every packet, this is where
 * they save the work.
 *
 * The module keeps a byte of state per connection direction; the daemon
 * keeps none in the conntrack, so its rules are set to pass more than the
 * module does, never less of what a plugin may need:
 *  - every payload start counts as a line start (the plugin reads its own
 *    line starts; a segment passed for a false start costs a call);
 *  - a TCP segment that does not end in '\n' is passed: every segment the
 *    plugin does not see ended a line, so the one after skipped segments
 *    starts a line (what plugin.h promises a plugin with rules, and what
 *    its pickup after skipped packets relies on: FTP's ftp_skipped()).
 *    Not a table entry instead: the table is bounded, and a peer that
 *    filled it would turn an evicted continuation into a line start (a
 *    command forged mid-line); passed, the plugin's own state, in the
 *    conntrack, knows where its lines start;
 *  - the segment after such a one is passed too (the rest of its line:
 *    a command split over two segments), and so is the segment after one
 *    whose bytes the plugin kept (cth_keep(): a message split at a line
 *    end, the rest in a segment no rule selects), found in a small table of the
 *    worker's: bounded, oldest evicted and counted (STATS_Q_MATCH_EVICTED),
 *    entries that wait longer than PREFILTER_TTL_MS forgotten.
 */
#ifndef CTH_PREFILTER_H
#define CTH_PREFILTER_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#include "../../kmod/cthd_match.h"

/* Connection directions with a line left open, per worker: a segment
 * whose line goes on in the next is rare (a long line, a slow sender). */
#define PREFILTER_ENTRIES 64u
/* The next segment of a live connection comes within an RTT. */
#define PREFILTER_TTL_MS 10000u

struct prefilter_entry {
	bool used;
	uint8_t dir;                /* enum cth_dir */
	uint16_t zone;
	uint32_t id;                /* conntrack id */
	struct cth_tuple orig;      /* ids get reused: the original tuple too */
	uint32_t next_seq;          /* the segment that continues the line */
	uint64_t stored_ms;         /* monotonic */
};

struct prefilter {
	struct prefilter_entry e[PREFILTER_ENTRIES];
	unsigned int used;
	unsigned long evictions;
};

/*
 * Whether packet p (with payload) goes to the plugin whose compiled rules
 * are rs (NULL or none: always).  Records what the next segment of its
 * direction needs.  *evicted is set when that cost another connection its
 * entry.
 */
bool prefilter_wanted(struct prefilter *f, const struct cthd_rules *rs,
		      const struct cth_packet *p, uint64_t now_ms, bool *evicted);
/*
 * After the plugin's call on p (as queued, without kept bytes joined):
 * it kept bytes for the next segment (cth_keep), which goes to the plugin
 * whatever it holds (a SIP message's headers split at a line end, the
 * rest of them in a segment no rule selects).  True when the oldest entry
 * had to go for it.
 */
bool prefilter_kept(struct prefilter *f, const struct cth_packet *p, uint64_t now_ms);

#endif
