/* SPDX-License-Identifier: MIT */
#ifndef CTH_WORKER_H
#define CTH_WORKER_H

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernel/nlreq.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"
#include "rxvec.h"
#include "watchdog.h"
#include "worker_help.h"

/* One NFQUEUE, owned by one thread with its own loop and sockets: nothing
 * on the packet path is shared with another worker. */
struct worker {
	uint16_t queue;
	struct nlreq nfq;              /* the queue's socket */
	struct nlreq ctnl;             /* ctnetlink, for synchronous requests */
	struct ev_loop *loop;          /* timers and wake-ups; not the queue */
	ev_async stop;
	ev_async wake;                 /* worker_poke() */
	_Atomic bool events;           /* stop or wake sent: run the loop */
	_Atomic uint64_t quiescent;
	ev_timer drain;
	ev_timer detach_poll;          /* while connections wait to detach */
	pthread_t thread;
	uint32_t queue_len;            /* as configured in the kernel */
	uint64_t now_ms;               /* monotonic, read once per receive */
	uint64_t loop_ms;              /* when the loop last ran */
	int rcvtimeo_ms;               /* the queue socket's, 0: none */
	bool done;                     /* stopped and drained */
	bool fail_open;
	struct rxvec rx;               /* queue messages, several per receive */
	struct stats_block stats;      /* written by this worker only */
	struct worker_help help;       /* what its packets use (worker_help.h) */
	struct watchdog wd;            /* busy since (watchdog.h) */
	bool abandoned;                /* a stop timed out: the thread runs on */
};

/* Open and bind the queue (before helpers are enabled, so no packet is
 * ever queued to nobody).  Returns 0 or a negative errno, logged. */
int worker_init(struct worker *w, uint16_t queue, uint32_t queue_len,
		bool fail_open, unsigned int inflight_entries,
		struct runtime *_Atomic *rtp);
int worker_start(struct worker *w);
/* Change a running queue's length and fail-open flag (main thread):
 * 1 changed, 0 nothing to change, or a negative errno. */
int worker_params_set(struct worker *w, uint32_t queue_len, bool fail_open);
/* Quiescent states passed so far, and a wake-up to pass one now: the
 * reload's grace period (server/daemon/reload.c). */
uint64_t worker_quiescent(const struct worker *w);
void worker_poke(struct worker *w);
/* Drain what is still queued, then stop the thread, waiting at most
 * WATCHDOG_JOIN_MS: a worker stuck in a plugin is then logged, detached
 * and marked abandoned. */
void worker_stop(struct worker *w);
/* Close the sockets (unbinds the queue); nothing for an abandoned
 * worker, whose thread may still use all of it. */
void worker_free(struct worker *w);

#endif
