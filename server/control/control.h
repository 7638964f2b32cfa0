/* SPDX-License-Identifier: MIT */
/*
 * The control socket (cthelperctl): a Unix stream socket served by the
 * main loop.  One request line per connection, one answer, then close.
 *
 * Request: "VERB [ARG...]\n", at most CONTROL_LINE_MAX bytes.
 * Answer:  "OK\n" and the body, or "ERROR message\n" and perhaps a body
 *          (e.g. the FILE:LINE errors of a refused reload), then EOF.
 * Verbs:   status [json], stats [json|prometheus], reload.
 */
#ifndef CTH_CONTROL_H
#define CTH_CONTROL_H

#include <ev.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "runtime/runtime.h"
#include "stats_report.h"

#define CONTROL_LINE_MAX 256
#define CONTROL_TIMEOUT 1.0        /* seconds a client may take, in all */
#define CONTROL_CONNS_MAX 16       /* beyond that, new clients are closed */

struct control;

/* One client: its request, then the answer being written. */
struct control_conn {
	struct control *ctl;
	int fd;                        /* -1: slot free */
	ev_io io;
	ev_timer timer;
	char req[CONTROL_LINE_MAX + 1];
	size_t len;
	struct strbuf out;
	size_t sent;
};

/* The last reload, for status. */
struct control_reload {
	unsigned long count;           /* 0: none since start */
	time_t at;                     /* wall clock */
	bool ok;
	char result[512];              /* a summary, or the first error */
};

/*
 * Runs a reload to its end (main loop, blocking it): 0 applied, or a
 * negative errno with the old configuration still serving.  Appends the
 * lines worth showing (errors) to out and fills last.
 */
typedef int control_reload_fn(void *arg, struct strbuf *out);
/* Is the daemon ready to serve (its kernel helpers registered, enabled
 * and pointing at its queues)?  why gets the one-line reason. */
typedef bool control_ready_fn(void *arg, char *why, size_t len);

struct control {
	struct ev_loop *loop;
	ev_io io;
	int fd;
	char *path;                    /* NULL: not open */
	double started;                /* CLOCK_MONOTONIC, seconds */
	struct control_conn conn[CONTROL_CONNS_MAX];
	struct runtime *_Atomic *rtp;
	size_t n_queues;
	uint16_t queue[CFG_MAX_HELPERS];
	const struct stats_block *stats[CFG_MAX_HELPERS];
	const struct stats_block *host_stats; /* the main thread's helper counters, or NULL */
	control_reload_fn *reload;     /* NULL: reload refused */
	control_ready_fn *ready;       /* NULL: no "ready" line in status */
	void *reload_arg;              /* both callbacks' argument */
	struct control_reload last;
};

/* Bind and listen on the runtime's control_socket (mode, group from the
 * config) and watch it in loop.  The queues and their workers' counters
 * must be set before.  Returns 0 or a negative errno, logged. */
int control_open(struct control *c, struct ev_loop *loop);
/* Stop serving and remove the socket file. */
void control_close(struct control *c);
/* An answer to one request line (exposed for tests): 0 OK, <0 error. */
int control_answer(struct control *c, const char *line, struct strbuf *out);

#endif
