/* SPDX-License-Identifier: MIT */
/*
 * The optional Prometheus endpoint: GET (or HEAD) /metrics over HTTP on
 * the [server] metrics address, answered with what the control socket's
 * "stats prometheus" answers (cthelperctl stats --prometheus), so both
 * render from one place.
 *
 * libmicrohttpd runs without a thread of its own, inside the main libev
 * loop: the counters and the runtime may only be read from the main
 * thread (a reload swaps and frees the runtime there).
 */
#ifndef CTH_METRICS_H
#define CTH_METRICS_H

#include <ev.h>
#include <stddef.h>

#include "control.h"

#define METRICS_CONNS_MAX 16       /* beyond that, new clients are closed */
#define METRICS_TIMEOUT 5          /* seconds a client may stay idle */
#define METRICS_PATH "/metrics"
#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct MHD_Daemon;

/* All zero: not serving (metrics_close() does nothing). */
struct metrics {
	struct MHD_Daemon *mhd;        /* NULL: not serving */
	struct ev_loop *loop;
	struct control *ctl;           /* answers "stats prometheus" */
	ev_io io;                      /* MHD's epoll fd */
	ev_timer timer;                /* MHD_get_timeout(): idle clients */
	int port;                      /* bound, in host order */
};

/* Load libmicrohttpd (dlopen): it is not linked, so a daemon without an
 * endpoint never maps it or gnutls.  Once loaded, later calls return 0
 * at once.  Returns 0, or a negative errno with why set to a message
 * naming the library and dlerror()'s reason (nothing logged). */
int metrics_lib_load(char *why, size_t len);
/* Listen on addr_port ("A.B.C.D:PORT" or "[IPv6]:PORT", as the config
 * key; NULL: nothing to do, 0) and serve in loop, answering from c, whose
 * queues and counters must be set; metrics_lib_load() first if not done.
 * Returns 0 or a negative errno, logged. */
int metrics_open(struct metrics *m, struct ev_loop *loop, struct control *c,
		 const char *addr_port);
/* Stop serving: the listening socket and every client closed. */
void metrics_close(struct metrics *m);
/* The port listened on (the kernel's choice for port 0), or -ENOTCONN. */
int metrics_port(const struct metrics *m);

#endif
