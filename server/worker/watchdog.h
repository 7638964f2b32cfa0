/* SPDX-License-Identifier: MIT */
#ifndef CTH_WATCHDOG_H
#define CTH_WATCHDOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A plugin runs in its queue's worker thread; one that never returns (a
 * loop on crafted input) holds every packet of that queue and, without a
 * bound, the main thread too (a stop or reload joining it).  Each worker
 * publishes when the packets it is handling arrived ("busy since", 0 when
 * it waits for more); the main loop looks every WATCHDOG_PERIOD_MS and
 * calls a worker busy for WATCHDOG_STUCK_MS stuck.  Nothing here can stop
 * the plugin: the point is to say so, and not to wait for it forever.
 */
#define WATCHDOG_PERIOD_MS 1000u
/* no plugin call on one receive's packets takes anywhere near this */
#define WATCHDOG_STUCK_MS 5000u
/* a worker not out this long after being told to stop is left behind */
#define WATCHDOG_JOIN_MS 5000u

struct watchdog {
	_Atomic uint64_t busy_since;  /* monotonic ms; 0: idle (worker writes) */
	uint64_t reported;            /* busy_since of the episode counted; main thread */
};

/* Worker side, around one receive's packets (now_ms > 0: CLOCK_MONOTONIC
 * since boot). */
static inline void watchdog_busy(struct watchdog *wd, uint64_t now_ms)
{
	atomic_store_explicit(&wd->busy_since, now_ms ? now_ms : 1, memory_order_release);
}

static inline void watchdog_idle(struct watchdog *wd)
{
	atomic_store_explicit(&wd->busy_since, 0, memory_order_release);
}

enum watchdog_state {
	WATCHDOG_OK,
	WATCHDOG_STUCK_NEW,   /* a new stall episode: count it and log it */
	WATCHDOG_STUCK,       /* the same one, already reported */
};

/* Main thread: what wd shows at now_ms; *for_ms gets how long it has
 * been busy.  An episode ends when the worker goes idle or moves on to
 * another receive (busy_since changes). */
enum watchdog_state watchdog_check(struct watchdog *wd, uint64_t now_ms,
				   uint64_t stuck_ms, uint64_t *for_ms);
/* Is wd stuck now (for status; no episode bookkeeping)? */
bool watchdog_stuck(const struct watchdog *wd, uint64_t now_ms, uint64_t stuck_ms,
		    uint64_t *for_ms);

/* CLOCK_MONOTONIC_COARSE in ms, the workers' clock (what
 * watchdog_busy() takes). */
uint64_t watchdog_now_ms(void);

/* pthread_join() for at most ms: 0 (joined), -ETIMEDOUT (still running:
 * the caller decides what to leak) or another negative errno. */
int watchdog_join(pthread_t t, unsigned int ms);

#endif
