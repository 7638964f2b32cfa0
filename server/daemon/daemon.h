/* SPDX-License-Identifier: MIT */
/*
 * The running daemon: its runtime, kernel helpers, queue workers and
 * control socket, and what its start/stop (serve.c) and its reload
 * (reload.c) both do with them (daemon.c).  Everything here belongs to
 * the main thread; workers see only the runtime pointer and their own
 * struct.
 */
#ifndef CTH_DAEMON_H
#define CTH_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "control/control.h"
#include "control/metrics.h"
#include "kernel/cthelper_owned.h"
#include "kernel/exprepair.h"
#include "kernel/nlreq.h"
#include "kernel/record.h"
#include "runtime/runtime.h"
#include "worker/worker.h"

/* Runtimes whose grace period timed out (a worker stuck in a plugin):
 * never freed while workers run, freed at stop after they are joined. */
#define DAEMON_RETIRED_MAX 8

struct daemon {
	const char *file;               /* configuration file, read again on reload */
	struct runtime *_Atomic rt;
	struct nlreq ctl;
	struct cthelper_owned owned;    /* kernel helpers this run registered */
	size_t n_workers;
	/* one per queue; they never move.  Twice a runtime's queues: a
	 * reload binds the new runtime's before it closes the old one's
	 * (reload_queues_open()), and with shards 64 queues are easy */
	struct worker *workers[2 * CFG_MAX_HELPERS];
	/* workers left running by a stop that timed out (watchdog.h): while
	 * there are any, no runtime is freed, as their plugin may still run */
	size_t n_abandoned;
	struct control control;         /* cthelperctl's socket, if configured */
	struct metrics metrics;         /* HTTP /metrics, if configured */
	struct exprepair repair;        /* expectations committed without NAT */
	struct stats_block host_stats;  /* helper counters the main thread keeps */
	size_t n_retired;
	struct runtime *retired[DAEMON_RETIRED_MAX];
	/* record.h: where this run records its kernel helpers ("": none),
	 * fixed at start like share_dir; stale: what an earlier run's
	 * record named and this configuration does not (kept in ours, so a
	 * --release after this run still finds it) */
	char record[4096];
	struct record *stale;
};

/* Bind queue q (not started yet) with the length and fail-open flag rt
 * gives it: the new worker, or NULL (logged). */
struct worker *daemon_worker_new(struct daemon *d, const struct runtime *rt,
				 uint16_t q);
/* Stop and free w; one stuck in a plugin is abandoned (d->n_abandoned). */
void daemon_worker_destroy(struct daemon *d, struct worker *w);
/* The length and fail-open flag queue q gets from rt's helpers: the
 * largest queue_len, fail-open if any of them asks for it. */
void daemon_queue_params(const struct runtime *rt, uint16_t q, uint32_t *qlen,
			 bool *fail_open);
/* The control socket's view of the queues and their counters. */
void daemon_control_sync(struct daemon *d);

/*
 * As root, before anything is registered: where this run keeps its
 * record (its directory owned by the user the daemon becomes, so a
 * reload can replace the file), and what an earlier run's record names
 * beyond rt (d->stale).  Logged, never fatal.
 */
void daemon_record_open(struct daemon *d, const struct runtime *rt);
/*
 * Replace the record with what owned and rt name (plus d->stale), before
 * rt's helpers are registered: a crash right after a registration is
 * then covered.  Logged, never fatal: --release still has the config.
 */
void daemon_record_save(struct daemon *d, const struct runtime *rt);
/* A clean stop deleted what it could: the record goes, unless an earlier
 * run's leftovers are still to be released. */
void daemon_record_close(struct daemon *d);

#endif
