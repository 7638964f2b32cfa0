/* SPDX-License-Identifier: MIT */
/*
 * sd_notify() through libsystemd, which knows the socket address forms
 * (path, abstract, vsock) and adds our credentials.  NOTIFY_SOCKET is
 * kept in the environment: a daemon reports more than once (each reload,
 * the stop).  Only the main thread calls these.
 *
 * libsystemd is not linked but loaded (dlopen) at the first message with
 * NOTIFY_SOCKET set: linked, it costs ~1 MB of RSS at every start, under
 * systemd or not.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <time.h>

#include "base/dynlib.h"
#include "base/log.h"
#include "notify.h"

/* libsystemd's SONAME since systemd 209; a test builds with a name that
 * does not exist (tests/unit/nolib.mk) */
#ifndef NOTIFY_LIB
#define NOTIFY_LIB "libsystemd.so.0"
#endif

struct sd_api {
	typeof(&sd_notify) sd_notify;
};

static const struct dynlib_sym sd_syms[] = {
	DYNLIB_SYM(struct sd_api, sd_notify),
};
DYNLIB_TABLE_CHECK(struct sd_api, sd_syms);

static struct sd_api sd_table;

static int notify_send(const char *fields, const char *status);
static const struct sd_api *notify_api_get(void);

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

/* One datagram: FIELDS, then STATUS=status unless NULL.  The protocol is
 * newline-separated, so a status stays one line whatever it contains;
 * a long one is cut. */
static int notify_send(const char *fields, const char *status)
{
	const struct sd_api *sd;
	char msg[512];
	size_t n;
	int rc;

	/* sd_notify() would do nothing either: no library to load */
	if (!getenv("NOTIFY_SOCKET"))
		return 0;
	if (!(sd = notify_api_get()))
		return -ELIBACC;
	n = (size_t)snprintf(msg, sizeof(msg), "%s", fields);
	if (status) {
		n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sSTATUS=", n ? "\n" : "");
		for (; *status && n < sizeof(msg) - 1; status++)
			msg[n++] = *status == '\n' ? ' ' : *status;
		msg[n] = '\0';
	}
	rc = sd->sd_notify(0, msg);
	if (rc < 0)
		log_warn("sd_notify(%.*s): %s", *fields ? (int)strcspn(fields, "\n") : 6,
			 *fields ? fields : "STATUS", strerror(-rc));
	return rc;
}

/* libsystemd's functions, loaded at the first call; NULL if it cannot be
 * (told once: every later message is lost the same way). */
static const struct sd_api *notify_api_get(void)
{
	static int rc = 1;            /* 1: not tried yet */
	char why[512];

	if (rc > 0) {
		rc = dynlib_load(NOTIFY_LIB, RTLD_NOW | RTLD_LOCAL, sd_syms,
				 sizeof(sd_syms) / sizeof(sd_syms[0]), &sd_table,
				 sizeof(sd_table), why, sizeof(why));
		if (rc < 0)
			log_warn("NOTIFY_SOCKET is set but systemd cannot be told anything: %s; "
				 "a Type=notify unit will time out waiting for READY=1", why);
	}
	return rc == 0 ? &sd_table : NULL;
}
