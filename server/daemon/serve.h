/* SPDX-License-Identifier: MIT */
#ifndef CTH_SERVE_H
#define CTH_SERVE_H

#include <stdbool.h>

#include "daemon.h"

/*
 * Serve d->rt until SIGTERM or SIGINT: bind the queues, register the
 * kernel helpers, open the control socket and /metrics, drop privileges,
 * start the workers, then run the main loop (SIGHUP and cthelperctl
 * reload: reload.c); on the way out, undo it in the safe order.  detach:
 * become a daemon(3) once the helpers are registered.  The exit status:
 * 0, or 1 when the start failed (logged).
 */
int serve_run(struct daemon *d, bool detach);

#endif
