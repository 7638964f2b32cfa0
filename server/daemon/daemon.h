/* SPDX-License-Identifier: MIT */
/*
 * The running daemon: its runtime, kernel helpers, queue workers and
 * control socket, shared by start/stop (main.c) and reload (reload.c).
 * Everything here belongs to the main thread; workers see only the
 * runtime pointer and their own struct.
 */
#ifndef CTH_DAEMON_H
#define CTH_DAEMON_H

#include <ev.h>

#include "control/control.h"
#include "kernel/cthelper.h"
#include "kernel/exprepair.h"
#include "control/metrics.h"
#include "runtime/runtime.h"
#include "base/strbuf.h"
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

/* The length and fail-open flag queue q gets from rt's helpers: the
 * largest queue_len, fail-open if any of them asks for it. */
void daemon_queue_params(const struct runtime *rt, uint16_t q, uint32_t *qlen,
			 bool *fail_open);
/* Bind queue q (not started yet): the new worker, or NULL (logged). */
struct worker *daemon_worker_new(struct daemon *d, const struct runtime *rt,
				 uint16_t q);
void daemon_worker_destroy(struct worker *w);
/* The control socket's view of the queues and their counters. */
void daemon_control_sync(struct daemon *d);

/*
 * Replace the record with what owned and rt name (plus d->stale), before
 * rt's helpers are registered: a crash right after a registration is
 * then covered.  Logged, never fatal: --release still has the config.
 */
void daemon_record_save(struct daemon *d, const struct runtime *rt);

/*
 * Read the configuration file again and apply it between packets (load →
 * validate → swap → free; reload.c).  On any error the running
 * configuration stays as it was: -EINVAL (file or plugins), -EEXIST
 * (kernel helpers), -EBUSY (a queue), ...; errors and warnings are
 * logged and appended to errs.  Fills d->control.last.
 */
int daemon_reload(struct daemon *d, struct strbuf *errs);

#endif
