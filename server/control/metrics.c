/* SPDX-License-Identifier: MIT */
/*
 * HTTP /metrics with libmicrohttpd (MHD), driven by the main libev loop.
 *
 * MHD is started without a thread of its own (MHD_USE_EPOLL alone): its
 * epoll fd is watched with an ev_io, and MHD_run() is called when it is
 * readable and when MHD_get_timeout() says, so every answer is built in
 * the main thread, the only one that may read the runtime.  MHD_run()
 * never blocks; a client is held to METRICS_TIMEOUT idle seconds and at
 * most METRICS_CONNS_MAX are served at once, so a slow scraper cannot tie
 * up the loop or the endpoint.
 *
 * The listening socket is ours (bound here, then handed to MHD), so a
 * bad address or a port in use is reported with its errno.
 *
 * libmicrohttpd is not linked but loaded by metrics_lib_load() when an
 * endpoint is configured: linked, it and gnutls cost ~2.8 MB of RSS at
 * every start, metrics or not.  Every MHD function is called through
 * mhd_api, typed from <microhttpd.h>.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/config.h"
#include "base/dynlib.h"
#include "base/log.h"
#include "metrics.h"
#include "base/strbuf.h"

/* the SONAME of libmicrohttpd 0.9.x (Debian 12's libmicrohttpd12); a test
 * builds with a name that does not exist (tests/unit/nolib.mk) */
#ifndef METRICS_LIB
#define METRICS_LIB "libmicrohttpd.so.12"
#endif

/* ---- libmicrohttpd, loaded ---- */

struct mhd_api {
	typeof(&MHD_start_daemon) MHD_start_daemon;
	typeof(&MHD_stop_daemon) MHD_stop_daemon;
	typeof(&MHD_get_daemon_info) MHD_get_daemon_info;
	typeof(&MHD_run) MHD_run;
	typeof(&MHD_get_timeout) MHD_get_timeout;
	typeof(&MHD_create_response_from_buffer) MHD_create_response_from_buffer;
	typeof(&MHD_add_response_header) MHD_add_response_header;
	typeof(&MHD_queue_response) MHD_queue_response;
	typeof(&MHD_destroy_response) MHD_destroy_response;
};

static const struct dynlib_sym mhd_syms[] = {
	DYNLIB_SYM(struct mhd_api, MHD_start_daemon),
	DYNLIB_SYM(struct mhd_api, MHD_stop_daemon),
	DYNLIB_SYM(struct mhd_api, MHD_get_daemon_info),
	DYNLIB_SYM(struct mhd_api, MHD_run),
	DYNLIB_SYM(struct mhd_api, MHD_get_timeout),
	DYNLIB_SYM(struct mhd_api, MHD_create_response_from_buffer),
	DYNLIB_SYM(struct mhd_api, MHD_add_response_header),
	DYNLIB_SYM(struct mhd_api, MHD_queue_response),
	DYNLIB_SYM(struct mhd_api, MHD_destroy_response),
};
DYNLIB_TABLE_CHECK(struct mhd_api, mhd_syms);

static struct mhd_api mhd_table;
/* &mhd_table once every pointer in it is set; read-only from then on */
static const struct mhd_api *mhd_api;

static int metrics_listen(const struct sockaddr_storage *sa, socklen_t len);
static int metrics_mhd_start(struct metrics *m, int fd, const char *addr_port);
__attribute__((format(printf, 2, 0)))
static void metrics_mhd_log(void *cls, const char *fmt, va_list ap);
static void metrics_url(char *buf, size_t max, const struct sockaddr_storage *sa, int port);
static void metrics_io_cb(struct ev_loop *loop, ev_io *io, int revents);
static void metrics_timer_cb(struct ev_loop *loop, ev_timer *t, int revents);
static void metrics_run(struct metrics *m);
static enum MHD_Result metrics_answer(void *cls, struct MHD_Connection *conn,
				      const char *url, const char *method,
				      const char *version, const char *upload,
				      size_t *upload_len, void **req);
static enum MHD_Result metrics_text(struct MHD_Connection *conn, unsigned int status,
				    const char *text, bool allow);
static enum MHD_Result metrics_reply(struct MHD_Connection *conn, unsigned int status,
				     const char *type, const char *body, size_t len,
				     bool allow);

int metrics_lib_load(char *why, size_t len)
{
	int rc;

	if (mhd_api)
		return 0;
	rc = dynlib_load(METRICS_LIB, RTLD_NOW | RTLD_LOCAL, mhd_syms,
			 sizeof(mhd_syms) / sizeof(mhd_syms[0]), &mhd_table,
			 sizeof(mhd_table), why, len);
	if (rc == 0)
		mhd_api = &mhd_table;
	return rc;
}

/* ---- serving ---- */

int metrics_open(struct metrics *m, struct ev_loop *loop, struct control *c,
		 const char *addr_port)
{
	struct sockaddr_storage sa, bound;
	socklen_t len, blen = sizeof(bound);
	char url[96], why[512];
	int fd, efd, rc;

	memset(m, 0, sizeof(*m));
	if (!addr_port)
		return 0;
	/* the config checked it: a failure here is a caller's bug */
	if (cfg_addr_port_parse(addr_port, &sa, &len) < 0) {
		log_err("metrics = %s: not ADDR:PORT", addr_port);
		return -EINVAL;
	}
	/* the daemon has loaded it already (main.c); a test has not */
	if ((rc = metrics_lib_load(why, sizeof(why))) < 0) {
		log_err("metrics = %s: %s", addr_port, why);
		return rc;
	}
	fd = metrics_listen(&sa, len);
	if (fd >= 0 && getsockname(fd, (struct sockaddr *)&bound, &blen) < 0) {
		rc = -errno;
		close(fd);
		fd = rc;
	}
	if (fd < 0) {
		log_err("metrics = %s: cannot listen: %s", addr_port, strerror(-fd));
		return fd;
	}
	m->port = ntohs(bound.ss_family == AF_INET6 ?
			((struct sockaddr_in6 *)&bound)->sin6_port :
			((struct sockaddr_in *)&bound)->sin_port);
	if ((efd = metrics_mhd_start(m, fd, addr_port)) < 0)
		return efd;
	m->loop = loop;
	m->ctl = c;
	ev_io_init(&m->io, metrics_io_cb, efd, EV_READ);
	m->io.data = m;
	ev_init(&m->timer, metrics_timer_cb);
	m->timer.data = m;
	ev_io_start(loop, &m->io);
	metrics_url(url, sizeof(url), &bound, m->port);
	log_notice("metrics: serving %s", url);
	return 0;
}

void metrics_close(struct metrics *m)
{
	if (!m->mhd)
		return;
	ev_io_stop(m->loop, &m->io);
	ev_timer_stop(m->loop, &m->timer);
	/* closes the listening socket and clients */
	mhd_api->MHD_stop_daemon(m->mhd);
	m->mhd = NULL;
}

int metrics_port(const struct metrics *m)
{
	return m->mhd ? m->port : -ENOTCONN;
}

/* ---- the listening socket ---- */

static int metrics_listen(const struct sockaddr_storage *sa, socklen_t len)
{
	int fd, one = 1;

	fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a restart must not wait for the old run's TIME_WAIT clients; a
	 * port another program listens on is still refused */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (const struct sockaddr *)sa, len) < 0 ||
	    listen(fd, METRICS_CONNS_MAX) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/* MHD serving on fd, the listening socket (closed on failure): MHD's
 * epoll fd, or -EIO, logged. */
static int metrics_mhd_start(struct metrics *m, int fd, const char *addr_port)
{
	const union MHD_DaemonInfo *info;

	/* the logger first, so MHD's start-up messages go through it */
	m->mhd = mhd_api->MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL,
					   metrics_answer, m,
					   MHD_OPTION_EXTERNAL_LOGGER, metrics_mhd_log, NULL,
					   MHD_OPTION_LISTEN_SOCKET, fd,
					   MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONNS_MAX,
					   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT,
					   MHD_OPTION_END);
	info = m->mhd ? mhd_api->MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (info)
		return info->epoll_fd;
	log_err("metrics = %s: cannot start the HTTP server (libmicrohttpd)", addr_port);
	/* MHD closes the socket it was given on stop, not on a failed
	 * start (measured with 0.9.75) */
	if (m->mhd)
		mhd_api->MHD_stop_daemon(m->mhd);
	else
		close(fd);
	m->mhd = NULL;
	return -EIO;
}

/* MHD's own messages (a client beyond the limit, a broken connection):
 * one log line each, without MHD's trailing newline. */
__attribute__((format(printf, 2, 0)))
static void metrics_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	log_info("metrics: %s", line);
}

/* "http://ADDR:PORT/metrics" with the port bound, for the log. */
static void metrics_url(char *buf, size_t max, const struct sockaddr_storage *sa, int port)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, host, sizeof(host));
		snprintf(buf, max, "http://[%s]:%d%s", host, port, METRICS_PATH);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, host, sizeof(host));
		snprintf(buf, max, "http://%s:%d%s", host, port, METRICS_PATH);
	}
}

/* ---- the loop ---- */

static void metrics_io_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	(void)loop;
	(void)revents;
	metrics_run(io->data);
}

static void metrics_timer_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	(void)loop;
	(void)revents;
	metrics_run(t->data);
}

/* Let MHD do what is due, then wake up again when it next needs to:
 * MHD_get_timeout() is 0 while it has work left over (edge-triggered
 * epoll), the nearest client timeout otherwise, and MHD_NO when no
 * client is connected. */
static void metrics_run(struct metrics *m)
{
	MHD_UNSIGNED_LONG_LONG ms;

	mhd_api->MHD_run(m->mhd);
	ev_timer_stop(m->loop, &m->timer);
	if (mhd_api->MHD_get_timeout(m->mhd, &ms) == MHD_YES) {
		ev_timer_set(&m->timer, (double)ms / 1000., 0.);
		ev_timer_start(m->loop, &m->timer);
	}
}

/* ---- answers ---- */

/*
 * MHD calls this once when the headers are in, once per piece of a
 * request body, and once when the request is complete.  An answer queued
 * before the end makes MHD close the connection after it, so GET and HEAD
 * (which a scraper repeats on one kept-alive connection) are answered at
 * the end, any body thrown away; another method is refused at once and
 * its connection closed, its body unread.
 */
static enum MHD_Result metrics_answer(void *cls, struct MHD_Connection *conn,
				      const char *url, const char *method,
				      const char *version, const char *upload,
				      size_t *upload_len, void **req)
{
	struct metrics *m = cls;
	struct strbuf out = { 0 };
	enum MHD_Result ok;
	int rc;

	(void)version;
	(void)upload;
	/* MHD sends no body for HEAD, but the headers of GET's */
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return metrics_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "method not allowed: GET or HEAD\n", true);
	if (!*req) {
		*req = m;                /* any non-NULL: the headers were seen */
		return MHD_YES;
	}
	if (*upload_len) {
		*upload_len = 0;         /* read and ignored */
		return MHD_YES;
	}
	/* MHD gives the path without the query string */
	if (strcmp(url, METRICS_PATH) != 0)
		return metrics_text(conn, MHD_HTTP_NOT_FOUND, "not found: try " METRICS_PATH "\n",
				    false);
	/* the control socket's answer, "OK\n" and the body: one renderer */
	rc = control_answer(m->ctl, "stats prometheus", &out);
	if (rc < 0 || out.err || out.len < 3 || memcmp(out.p, "OK\n", 3) != 0) {
		log_warn("metrics: cannot render the counters: %s",
			 strerror(rc < 0 ? -rc : out.err ? -out.err : EPROTO));
		strbuf_free(&out);
		return metrics_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				    "cannot render the counters\n", false);
	}
	ok = metrics_reply(conn, MHD_HTTP_OK, METRICS_CONTENT_TYPE, out.p + 3, out.len - 3,
			   false);
	strbuf_free(&out);
	return ok;
}

static enum MHD_Result metrics_text(struct MHD_Connection *conn, unsigned int status,
				    const char *text, bool allow)
{
	return metrics_reply(conn, status, "text/plain; charset=utf-8", text,
			     strlen(text), allow);
}

static enum MHD_Result metrics_reply(struct MHD_Connection *conn, unsigned int status,
				     const char *type, const char *body, size_t len,
				     bool allow)
{
	struct MHD_Response *r;
	enum MHD_Result ok;

	r = mhd_api->MHD_create_response_from_buffer(len, (void *)body,
						     MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;           /* MHD closes the connection */
	if (mhd_api->MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type) != MHD_YES ||
	    (allow && mhd_api->MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW,
							"GET, HEAD") != MHD_YES)) {
		mhd_api->MHD_destroy_response(r);
		return MHD_NO;
	}
	ok = mhd_api->MHD_queue_response(conn, status, r);
	/* the queued answer holds its own reference */
	mhd_api->MHD_destroy_response(r);
	return ok;
}
