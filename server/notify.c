/* SPDX-License-Identifier: MIT */
/*
 * sd_notify() through libsystemd, which knows the socket address forms
 * (path, abstract, vsock) and adds our credentials.  NOTIFY_SOCKET is
 * kept in the environment: a daemon reports more than once (each reload,
 * the stop).  Only the main thread calls these.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "log.h"
#include "notify.h"

/* One datagram: FIELDS, then STATUS=status unless NULL.  The protocol is
 * newline-separated, so a status stays one line whatever it contains;
 * a long one is cut. */
static int notify_send(const char *fields, const char *status)
{
	char msg[512];
	size_t n = (size_t)snprintf(msg, sizeof(msg), "%s", fields);
	int rc;

	if (status) {
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sSTATUS=", n ? "\n" : "");
		for (; *status && n < sizeof(msg) - 1; status++)
			msg[n++] = *status == '\n' ? ' ' : *status;
		msg[n] = '\0';
	}
	rc = sd_notify(0, msg);
	if (rc < 0)
		log_warn("sd_notify(%.*s): %s", *fields ? (int)strcspn(fields, "\n") : 6,
			 *fields ? fields : "STATUS", strerror(-rc));
	return rc;
}

int notify_ready(const char *status)
{
	return notify_send("READY=1", status);
}

int notify_reloading(void)
{
	struct timespec ts;
	char head[64];

	/* systemd (253+, Type=notify-reload) matches the reload by this time */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(head, sizeof(head), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull +
		 (unsigned long long)ts.tv_nsec / 1000ull);
	return notify_send(head, NULL);
}

int notify_stopping(void)
{
	return notify_send("STOPPING=1", NULL);
}

int notify_status(const char *status)
{
	return notify_send("", status ? status : "");
}
