/* SPDX-License-Identifier: MIT */
/*
 * Counters: what each one means (stats.c) and the per-worker block they
 * live in; control/stats_report.c sums and renders them.
 *
 * Counters.  Each worker writes only its own block (one writer, so an
 * increment is a relaxed load and store: no lock, no locked instruction
 * on the packet path); the control socket sums the blocks with relaxed
 * loads, which is enough for monotonic counters read now and then.
 */
#ifndef CTH_STATS_H
#define CTH_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/config.h"
#include "base/strbuf.h"

/* Per helper instance (configured [helper NAME] section).  Only packets
 * with payload reach a helper: the others are answered before the
 * connection (hence the helper) is read, and count per queue. */
enum stats_helper_counter {
	STATS_H_PAYLOAD,          /* shown to the plugin */
	STATS_H_ACCEPTS,          /* plugin verdict ACCEPT */
	STATS_H_DROPS,            /* plugin verdict DROP */
	STATS_H_EXPECT_CREATED,
	STATS_H_EXPECT_FAILED,
	STATS_H_EXPECT_TABLE_FULL,/* of those, EMFILE: a kernel table or class max full */
	STATS_H_EXPECT_CLASH,     /* of those, EBUSY/EEXIST: the tuple is another's */
	STATS_H_MANGLED,          /* verdict carried a rewritten payload */
	STATS_H_DETACH_DONE,
	STATS_H_DETACH_DEFERRED,
	STATS_H_SEQADJ_SYNCED,    /* seqsync.c: length change announced */
	STATS_H_EXPECT_SENT,      /* rode on the verdict (NFQA_EXP): outcome unknown there */
	STATS_H_EXPECT_REFUSED,   /* broke a host rule (host/call.c pkt_expect_valid) */
	STATS_H_EXPECT_OVER_LIMIT,/* past the per-packet expectation limit, not made */
	STATS_H_MARK_MASKED,      /* cth_set_mark bits outside mark_mask, ignored */
	STATS_H_KERNEL_CAPPED,    /* kernel requests refused: the per-packet bound */
	STATS_H_EXPECT_DUMPS,     /* expectation dumps (a flush, a listing) */
	STATS_H_STATE_RESET,      /* state of another version zeroed (host/call.c) */
	/* the helper's sandbox (server/sandbox/sandbox.c) */
	STATS_H_SANDBOX_STARTS,   /* started and set up, restarts included */
	STATS_H_SANDBOX_RESTARTS, /* of those, after a death */
	STATS_H_SANDBOX_CRASHES,  /* died of a signal or exited */
	STATS_H_SANDBOX_TIMEOUTS, /* killed: a call past sandbox_timeout_ms */
	STATS_H_SANDBOX_SECCOMP,  /* killed: a system call its filter refuses */
	STATS_H_SANDBOX_CHANNEL,  /* killed: broke the channel's rules */
	STATS_H_SANDBOX_LOST,     /* packets given sandbox_verdict instead */
	STATS_H_UNMATCHED,        /* not shown: no match rule selects them (prefilter.h) */
	STATS_H_N,
};

/* Per queue (worker). */
enum stats_queue_counter {
	STATS_Q_PACKETS,          /* every queued packet answered */
	STATS_Q_NO_PAYLOAD,       /* answered without a plugin (fast path) */
	STATS_Q_PARSE_ERRORS,     /* malformed queue message or conntrack */
	STATS_Q_NOT_OURS,         /* helper not configured on this queue */
	STATS_Q_VERDICT_ERRORS,   /* verdict not sent or refused */
	STATS_Q_UNDELIVERED,      /* packet ids skipped: stats_id_gap() */
	STATS_Q_VERDICT_RETRIES,  /* verdicts re-sent one by one after a batch failed */
	STATS_Q_KEEP_EVICTED,     /* kept bytes (cth_keep) evicted: table full */
	STATS_Q_OVERLAY_EVICTED,  /* in-flight state evicted: table full */
	STATS_Q_DETACH_FULL,      /* detaches not queued: the waiting table was full */
	STATS_Q_STALLS,           /* times the worker was seen stuck in one packet */
	STATS_Q_LOG_SUPPRESSED,   /* log lines dropped by the rate limit */
	STATS_Q_MATCH_EVICTED,    /* prefilter.h: an open line forgotten, table full */
	STATS_Q_N,
};

/*
 * Packets the kernel numbered for a queue but never delivered, from the
 * ids: nfqnl's __nfqnl_enqueue_packet() gives the id before the netlink
 * send, and a failed send (socket full) is a skipped id: passed unhelped
 * with fail_open, else counted by the kernel as user_dropped too.  A full
 * queue (queue_len) is not numbered, so what fail_open lets through there
 * cannot be seen from user space.  Ids are 32-bit and wrap; a step back
 * (or a huge one) is no gap.
 */
static inline uint32_t stats_id_gap(uint32_t last, uint32_t id)
{
	uint32_t step = id - last;

	return step >= 1 && step < 0x80000000u ? step - 1 : 0;
}

struct stats_info {
	const char *name;         /* metric part: cthelperd_<name>_total */
	const char *help;
};
extern const struct stats_info stats_helper_info[STATS_H_N];
extern const struct stats_info stats_queue_info[STATS_Q_N];

/*
 * Helper counters live in slots (instance->slot) that outlast a reload:
 * a helper keeps its slot while its name stays configured, and a new one
 * gets a slot that neither the old nor the new runtime uses (workers may
 * still count into the old one during the grace period), hence twice the
 * helpers of one runtime.
 */
#define STATS_SLOTS (2 * CFG_MAX_HELPERS)

/* One worker's counters: its queue's, and per slot the helper's and its
 * plugin's own (SDK 3 cth_count(), by the plugin's counter index; a
 * reload keeps one while the plugin declares the same name at the same
 * index: daemon/reload_plan.c). */
struct stats_block {
	_Atomic uint64_t q[STATS_Q_N];
	_Atomic uint64_t h[STATS_SLOTS][STATS_H_N];
	_Atomic uint64_t pc[STATS_SLOTS][CTH_COUNTER_MAX];
};

static inline void stats_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}


#endif
