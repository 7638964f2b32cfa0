/* SPDX-License-Identifier: MIT */
/*
 * systemd's readiness protocol (sd_notify(3)) for Type=notify units.
 * Each call is a no-op returning 0 when NOTIFY_SOCKET is unset (not
 * started by systemd, or by a unit of another type).  Otherwise it sends
 * one datagram and returns a positive number, or a negative errno, logged:
 * a lost READY=1 makes systemd time the start out, so it must be seen.
 * The first such call loads libsystemd; if it cannot, that is logged once
 * and every call returns -ELIBACC.
 */
#ifndef CTH_NOTIFY_H
#define CTH_NOTIFY_H

/* READY=1, with STATUS=status unless it is NULL: start-up or a reload done. */
int notify_ready(const char *status);
/* RELOADING=1 and MONOTONIC_USEC=now: a reload begins (notify_ready() ends it). */
int notify_reloading(void);
/* STOPPING=1: the stop has begun; systemd waits for the exit. */
int notify_stopping(void);
/* STATUS=status: the one-line text `systemctl status` shows. */
int notify_status(const char *status);

#endif
