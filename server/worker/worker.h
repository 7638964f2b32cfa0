/* SPDX-License-Identifier: MIT */
#ifndef CTH_WORKER_H
#define CTH_WORKER_H

#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "kernel/nlreq.h"
#include "detach.h"
#include "kernel/expect.h"
#include "host/keep.h"
#include "host/overlay.h"
#include "runtime/runtime.h"
#include "rxvec.h"
#include "vbatch.h"
#include "watchdog.h"
#include "runtime/stats.h"

/* One NFQUEUE, owned by one thread with its own loop and sockets: nothing
 * on the packet path is shared with another worker. */
struct worker {
	uint16_t queue;
	struct runtime *_Atomic *rtp;  /* the current runtime, swappable */
	struct nlreq nfq;              /* the queue's socket */
	struct nlreq ctnl;             /* ctnetlink, for synchronous expectations */
	struct ev_loop *loop;          /* timers and wake-ups; not the queue */
	ev_async stop;
	ev_async wake;                 /* worker_poke() */
	_Atomic bool events;           /* stop or wake sent: run the loop */
	_Atomic uint64_t quiescent;
	ev_timer drain;
	ev_timer detach_poll;          /* while connections wait to detach */
	pthread_t thread;
	uint32_t queue_len;            /* as configured in the kernel */
	uint32_t last_id;              /* of the last packet: skipped ids count */
	uint64_t now_ms;               /* monotonic, read once per receive */
	uint64_t loop_ms;              /* when the loop last ran */
	int rcvtimeo_ms;               /* the queue socket's, 0: none */
	bool done;                     /* stopped and drained */
	bool fail_open;
	struct rxvec rx;               /* queue messages, several per receive */
	struct vbatch vb;              /* verdicts waiting for one sendmsg() */
	struct stats_block stats;       /* written by this worker only */
	struct overlay overlay;        /* newest state of connections in flight */
	struct keep keep;              /* bytes kept for the next segment (cth_keep) */
	struct expect_list *xlist;     /* a master's expectations (wexpect.c) */
	/* the per-packet bound on ctnetlink requests (wexpect.h): left for
	 * the packet being helped, whose helper it counts for (NULL: no
	 * packet, no bound); and when a packet past a limit (this bound,
	 * WORKER_MAX_EXPECT) may be logged again */
	unsigned int kreq_left;
	const struct instance *kreq_inst;
	struct detach detach;          /* detaches waiting for expectations (cth_detach) */
	struct watchdog wd;            /* busy since (watchdog.h) */
	bool abandoned;                /* a stop timed out: the thread runs on */
};

/* A helper counter of in (its slot outlasts a reload: stats.h). */
static inline void worker_count(struct worker *w, const struct instance *in,
				enum stats_helper_counter k)
{
	stats_add(&w->stats.h[in->slot][k], 1);
}

/* The same for a helper known by name only (a waiting detach). */
static inline void worker_count_name(struct worker *w, const char *name,
				     enum stats_helper_counter k)
{
	const struct runtime *rt = atomic_load(w->rtp);

	for (size_t i = 0; i < rt->n_inst; i++)
		if (strcmp(rt->inst[i].name, name) == 0) {
			worker_count(w, &rt->inst[i], k);
			return;
		}
}

/* Send the verdicts collected so far (before any ctnetlink request). */
void worker_verdict_flush(struct worker *w);

/* Open and bind the queue (before helpers are enabled, so no packet is
 * ever queued to nobody).  Returns 0 or a negative errno, logged. */
int worker_init(struct worker *w, uint16_t queue, uint32_t queue_len,
		bool fail_open, struct runtime *_Atomic *rtp);
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
