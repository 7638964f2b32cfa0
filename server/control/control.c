/* SPDX-License-Identifier: MIT */
/*
 * Control socket.  Everything runs in the main loop and must never block
 * it: sockets are non-blocking, a request is one bounded line, and a
 * client that is slow to send or to read is dropped after
 * CONTROL_TIMEOUT.  Counters are read with relaxed loads from the
 * workers' blocks while they run (stats.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "base/log.h"

#ifndef CTH_VERSION
#define CTH_VERSION "0.0.0"
#endif

#define CONTROL_PROC_QUEUES "/proc/net/netfilter/nfnetlink_queue"

static int control_listen(struct control *c, const struct cfg *cfg);
static int control_path_free(const char *path);
static int control_bind_private(int fd, const struct cfg *cfg);
static void control_unlink(const char *path);
static void control_accept_cb(struct ev_loop *loop, ev_io *io, int revents);
static void control_conn_add(struct control *c, struct ev_loop *loop, int fd);
static void control_conn_read_cb(struct ev_loop *loop, ev_io *io, int revents);
static void control_conn_timeout_cb(struct ev_loop *loop, ev_timer *t, int revents);
static void control_conn_reply(struct control_conn *k);
static void control_conn_write_cb(struct ev_loop *loop, ev_io *io, int revents);
static void control_conn_close(struct control_conn *k);
static int control_words(char *line, char **verb, char **arg);
static void control_status_text(struct control *c, const struct runtime *rt,
				struct strbuf *b, unsigned long long up);
static void control_status_json(struct control *c, const struct runtime *rt,
				struct strbuf *b, unsigned long long up);
static void control_sandbox_text(struct strbuf *b, const struct instance *in);
static void control_sandbox_json(struct strbuf *b, const struct instance *in);
static void control_bits(struct strbuf *b, const struct cfg_bits *bits,
			 unsigned int set, bool json);
static void control_time(char *buf, size_t len, time_t t);
static void control_snap(struct control *c, const struct runtime *rt,
			 struct stats_snap *s);
static int control_reload(struct control *c, struct strbuf *out);
static double control_mono(void);

int control_open(struct control *c, struct ev_loop *loop)
{
	const struct cfg *cfg = atomic_load(c->rtp)->cfg;
	int rc;

	c->fd = -1;
	for (size_t i = 0; i < CONTROL_CONNS_MAX; i++)
		c->conn[i].fd = -1;
	if (!cfg->control_socket)
		return 0;
	rc = control_path_free(cfg->control_socket);
	if (rc < 0) {
		log_err("control socket %s: %s", cfg->control_socket,
			rc == -EADDRINUSE ? "another daemon answers on it" :
			rc == -EEXIST ? "exists and is not a socket" : strerror(-rc));
		return rc;
	}
	c->path = strdup(cfg->control_socket);
	if (!c->path)
		return -ENOMEM;
	if ((rc = control_listen(c, cfg)) < 0) {
		log_err("control socket %s: %s", cfg->control_socket, strerror(-rc));
		control_close(c);
		return rc;
	}
	c->loop = loop;
	c->started = control_mono();
	ev_io_init(&c->io, control_accept_cb, c->fd, EV_READ);
	c->io.data = c;
	ev_io_start(loop, &c->io);
	log_info("control socket %s", c->path);
	return 0;
}

void control_close(struct control *c)
{
	if (!c->path)
		return;
	if (c->loop) {
		ev_io_stop(c->loop, &c->io);
		for (size_t i = 0; i < CONTROL_CONNS_MAX; i++)
			if (c->conn[i].fd >= 0)
				control_conn_close(&c->conn[i]);
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	control_unlink(c->path);
	free(c->path);
	c->path = NULL;
}

int control_answer(struct control *c, const char *req, struct strbuf *out)
{
	const struct runtime *rt = atomic_load(c->rtp);
	char line[CONTROL_LINE_MAX + 1], *verb, *arg;
	bool json;

	snprintf(line, sizeof(line), "%s", req);
	if (control_words(line, &verb, &arg) < 0) {
		strbuf_printf(out, "ERROR expected: status [json] | stats [json|prometheus] | reload\n");
		return -EINVAL;
	}
	json = arg && strcmp(arg, "json") == 0;
	if (strcmp(verb, "status") == 0 && (!arg || json)) {
		unsigned long long up = (unsigned long long)(control_mono() - c->started);

		strbuf_printf(out, "OK\n");
		(json ? control_status_json : control_status_text)(c, rt, out, up);
		return 0;
	}
	if (strcmp(verb, "stats") == 0 &&
	    (!arg || json || strcmp(arg, "prometheus") == 0)) {
		struct stats_snap *s = malloc(sizeof(*s));

		if (!s) {
			strbuf_printf(out, "ERROR out of memory\n");
			return -ENOMEM;
		}
		control_snap(c, rt, s);
		strbuf_printf(out, "OK\n");
		stats_report_render(out, s, !arg ? STATS_TEXT : json ? STATS_JSON : STATS_PROMETHEUS);
		free(s);
		return 0;
	}
	if (strcmp(verb, "reload") == 0 && !arg)
		return control_reload(c, out);
	strbuf_printf(out, "ERROR unknown request '%s%s%s': expected status [json] | "
		      "stats [json|prometheus] | reload\n", verb, arg ? " " : "", arg ? arg : "");
	return -EINVAL;
}

/* ---- the listening socket ---- */

static int control_listen(struct control *c, const struct cfg *cfg)
{
	int rc;

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	if ((rc = control_bind_private(c->fd, cfg)) < 0)
		return rc;
	return listen(c->fd, CONTROL_CONNS_MAX) < 0 ? -errno : 0;
}

/* A socket file left by a daemon that died is replaced; one that a live
 * daemon answers on, or any other kind of file, is not. */
static int control_path_free(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	if (rc == 0)
		return -EADDRINUSE;
	return unlink(path) < 0 ? -errno : 0;
}

/*
 * Bound in a private directory made next to the socket's path, given its
 * group and mode there, then renamed into place: chown(2) and chmod(2)
 * follow a path, and in a directory others can write a path swapped
 * between bind and chmod would hand the group and mode to another file
 * (issue 27).  Nobody else can reach inside a fresh 0700 directory, and
 * rename(2) replaces the name atomically.  (fchmod() on the socket's
 * descriptor does not change the bound file's mode on Linux.)
 */
static int control_bind_private(int fd, const struct cfg *cfg)
{
	const char *path = cfg->control_socket, *slash = strrchr(path, '/');
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmpdir[sizeof(sa.sun_path) - 2];
	size_t dlen = slash ? (size_t)(slash - path) + 1 : 0;
	mode_t old;
	int rc = 0;

	if (dlen + sizeof(".cthctl-XXXXXX/s") > sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(tmpdir, sizeof(tmpdir), "%.*s.cthctl-XXXXXX", (int)dlen, path);
	if (!mkdtemp(tmpdir))
		return -errno;
	memcpy(sa.sun_path, tmpdir, strlen(tmpdir));
	memcpy(sa.sun_path + strlen(tmpdir), "/s", 3);
	/* and nobody may connect before mode and group are what was asked */
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rc = -errno;
	umask(old);
	if (!rc && cfg->control_gid >= 0 &&
	    chown(sa.sun_path, (uid_t)-1, (gid_t)cfg->control_gid) < 0)
		rc = -errno;
	if (!rc && chmod(sa.sun_path, (mode_t)cfg->control_mode) < 0)
		rc = -errno;
	if (!rc && rename(sa.sun_path, path) < 0)
		rc = -errno;
	if (rc)
		unlink(sa.sun_path);
	rmdir(tmpdir);
	return rc;
}

/*
 * The socket is created as root, before the privilege drop
 * (server/daemon/privdrop.c); a daemon that has become its `user` may not remove
 * it from a directory only root may write (/run/cthelperd).  Left there it
 * is harmless: nobody answers on it, the next start replaces it
 * (control_path_free()), and systemd removes the RuntimeDirectory.
 */
static void control_unlink(const char *path)
{
	if (unlink(path) == 0 || errno == ENOENT)
		return;
	if (errno == EACCES || errno == EPERM)
		log_info("control socket %s left in place: this user may not remove it; "
			 "the next start replaces it", path);
	else
		log_warn("control socket %s: cannot remove it: %s", path, strerror(errno));
}

/* ---- connections ---- */

static void control_accept_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct control *c = io->data;
	int fd;

	(void)revents;
	/* all that wait: a client beyond the limit is closed, not left in
	 * the backlog to time out */
	while ((fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		control_conn_add(c, loop, fd);
}

static void control_conn_add(struct control *c, struct ev_loop *loop, int fd)
{
	struct control_conn *k = NULL;

	for (size_t i = 0; i < CONTROL_CONNS_MAX && !k; i++)
		if (c->conn[i].fd < 0)
			k = &c->conn[i];
	if (!k) {
		log_warn("control: %d clients already: one more refused", CONTROL_CONNS_MAX);
		close(fd);
		return;
	}
	memset(k, 0, sizeof(*k));
	k->ctl = c;
	k->fd = fd;
	ev_io_init(&k->io, control_conn_read_cb, fd, EV_READ);
	k->io.data = k;
	ev_timer_init(&k->timer, control_conn_timeout_cb, CONTROL_TIMEOUT, 0.);
	k->timer.data = k;
	ev_io_start(loop, &k->io);
	ev_timer_start(loop, &k->timer);
}

static void control_conn_read_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct control_conn *k = io->data;
	ssize_t n;

	(void)loop;
	(void)revents;
	/* one byte beyond the limit tells a long line from a full one */
	n = recv(k->fd, k->req + k->len, sizeof(k->req) - 1 - k->len, MSG_DONTWAIT);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			control_conn_close(k);
		return;
	}
	k->len += (size_t)n;
	if (n == 0 && k->len == 0) {
		control_conn_close(k);
		return;
	}
	if (n == 0 || memchr(k->req, '\n', k->len)) {
		char *nl = memchr(k->req, '\n', k->len);

		if (nl)
			k->len = (size_t)(nl - k->req);
		control_conn_reply(k);
		return;
	}
	if (k->len == sizeof(k->req) - 1) {
		k->len = CONTROL_LINE_MAX + 1;
		control_conn_reply(k);
	}
}

static void control_conn_timeout_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct control_conn *k = t->data;

	(void)loop;
	(void)revents;
	log_info("control: a client took longer than %.0f s: dropped", CONTROL_TIMEOUT);
	control_conn_close(k);
}

static void control_conn_reply(struct control_conn *k)
{
	if (k->len > CONTROL_LINE_MAX) {
		strbuf_printf(&k->out, "ERROR request longer than %d bytes\n", CONTROL_LINE_MAX);
	} else {
		k->req[k->len] = '\0';   /* len <= CONTROL_LINE_MAX: in bounds */
		control_answer(k->ctl, k->req, &k->out);
	}
	if (k->out.err) {
		control_conn_close(k);
		return;
	}
	ev_io_stop(k->ctl->loop, &k->io);
	ev_io_init(&k->io, control_conn_write_cb, k->fd, EV_WRITE);
	k->io.data = k;
	ev_io_start(k->ctl->loop, &k->io);
	control_conn_write_cb(k->ctl->loop, &k->io, EV_WRITE);
}

static void control_conn_write_cb(struct ev_loop *loop, ev_io *io, int revents)
{
	struct control_conn *k = io->data;

	(void)loop;
	(void)revents;
	while (k->sent < k->out.len) {
		ssize_t n = send(k->fd, k->out.p + k->sent, k->out.len - k->sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;       /* the timer ends a client that never reads */
		if (n < 0)
			break;
		k->sent += (size_t)n;
	}
	control_conn_close(k);
}

static void control_conn_close(struct control_conn *k)
{
	ev_io_stop(k->ctl->loop, &k->io);
	ev_timer_stop(k->ctl->loop, &k->timer);
	close(k->fd);
	k->fd = -1;
	strbuf_free(&k->out);
}

/* ---- answers ---- */

/* Split "VERB [ARG]": at most one argument today. */
static int control_words(char *line, char **verb, char **arg)
{
	char *extra;

	*verb = strtok_r(line, " \t\r\n", &extra);
	*arg = *verb ? strtok_r(NULL, " \t\r\n", &extra) : NULL;
	if (!*verb)
		return -EINVAL;
	return strtok_r(NULL, " \t\r\n", &extra) ? -E2BIG : 0;
}

static void control_status_text(struct control *c, const struct runtime *rt,
				struct strbuf *b, unsigned long long up)
{
	char when[32];

	strbuf_printf(b, "version      %s\nconfig       %s\npid          %ld\n"
		      "uptime       %llu s\n",
		      CTH_VERSION, rt->cfg->file, (long)getpid(), up);
	if (!c->last.count) {
		strbuf_printf(b, "last reload  none\n");
	} else {
		control_time(when, sizeof(when), c->last.at);
		strbuf_printf(b, "last reload  %s %s: %s (reloads: %lu)\n", when,
			      c->last.ok ? "ok" : "failed", c->last.result, c->last.count);
	}
	if (c->ready) {
		char why[512];
		bool ok = c->ready(c->reload_arg, why, sizeof(why));

		strbuf_printf(b, "ready        %s: %s\n", ok ? "yes" : "no", why);
	}
	strbuf_printf(b, "helpers      %zu\n", rt->n_inst);
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		strbuf_printf(b, "  %-15s plugin %s %s, families ", in->name,
			      in->pl->name, in->pl->version);
		control_bits(b, &cfg_families, in->families, false);
		strbuf_printf(b, ", protocols ");
		control_bits(b, &cfg_protocols, in->protocols, false);
		strbuf_printf(b, ", queue %u\n", in->queue);
		control_sandbox_text(b, in);
	}
	strbuf_printf(b, "queues      ");
	for (size_t i = 0; i < c->n_queues; i++)
		strbuf_printf(b, " %u", c->queue[i]);
	strbuf_printf(b, "\n");
}

static void control_status_json(struct control *c, const struct runtime *rt,
				struct strbuf *b, unsigned long long up)
{
	strbuf_printf(b, "{\"version\":");
	strbuf_json_str(b, CTH_VERSION);
	strbuf_printf(b, ",\"config\":");
	strbuf_json_str(b, rt->cfg->file);
	strbuf_printf(b, ",\"pid\":%ld,\"uptime_seconds\":%llu,\"last_reload\":",
		      (long)getpid(), up);
	if (!c->last.count) {
		strbuf_printf(b, "\"none\"");
	} else {
		char when[32];

		control_time(when, sizeof(when), c->last.at);
		strbuf_printf(b, "{\"time\":");
		strbuf_json_str(b, when);
		strbuf_printf(b, ",\"ok\":%s,\"result\":", c->last.ok ? "true" : "false");
		strbuf_json_str(b, c->last.result);
		strbuf_printf(b, ",\"count\":%lu}", c->last.count);
	}
	if (c->ready) {
		char why[512];
		bool ok = c->ready(c->reload_arg, why, sizeof(why));

		strbuf_printf(b, ",\"ready\":%s,\"ready_detail\":", ok ? "true" : "false");
		strbuf_json_str(b, why);
	}
	strbuf_printf(b, ",\"helpers\":[");
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct instance *in = &rt->inst[i];

		strbuf_printf(b, "%s{\"name\":", i ? "," : "");
		strbuf_json_str(b, in->name);
		strbuf_printf(b, ",\"plugin\":");
		strbuf_json_str(b, in->pl->name);
		strbuf_printf(b, ",\"plugin_version\":");
		strbuf_json_str(b, in->pl->version);
		strbuf_printf(b, ",\"families\":");
		control_bits(b, &cfg_families, in->families, true);
		strbuf_printf(b, ",\"protocols\":");
		control_bits(b, &cfg_protocols, in->protocols, true);
		strbuf_printf(b, ",\"queue\":%u,\"sandbox\":", in->queue);
		control_sandbox_json(b, in);
		strbuf_printf(b, "}");
	}
	strbuf_printf(b, "],\"queues\":[");
	for (size_t i = 0; i < c->n_queues; i++)
		strbuf_printf(b, "%s%u", i ? "," : "", c->queue[i]);
	strbuf_printf(b, "]}\n");
}

/* A snapshot of what server/sandbox/ says of the helper's sandbox. */
static void control_sandbox_get(const struct instance *in, struct instance_sandbox *out,
				uint64_t *now_ms)
{
	struct instance_sandbox *s = (struct instance_sandbox *)&in->sb_status;

	*now_ms = (uint64_t)(control_mono() * 1000.0);
	pthread_mutex_lock(&s->lock);
	memcpy(out->reason, s->reason, sizeof(out->reason));
	out->up = s->up;
	out->pid = s->pid;
	out->since_ms = s->since_ms;
	out->retry_ms = s->retry_ms;
	out->reason_ms = s->reason_ms;
	pthread_mutex_unlock(&s->lock);
}

/* "    sandbox  up, pid 123; last death 12 s ago: signal 11 (...)" */
static void control_sandbox_text(struct strbuf *b, const struct instance *in)
{
	struct instance_sandbox s;
	uint64_t now;

	if (!in->sandbox.on) {
		strbuf_printf(b, "    sandbox  off: the plugin runs in the daemon, trusted "
			      "with the firewall\n");
		return;
	}
	control_sandbox_get(in, &s, &now);
	if (s.up)
		strbuf_printf(b, "    sandbox  up, pid %d, for %llu s", s.pid,
			      (unsigned long long)(now - s.since_ms) / 1000u);
	else
		strbuf_printf(b, "    sandbox  down, restart in %llu ms",
			      (unsigned long long)(s.retry_ms > now ? s.retry_ms - now : 0));
	if (s.reason[0])
		strbuf_printf(b, "; last death %llu s ago: %s",
			      (unsigned long long)(now - s.reason_ms) / 1000u, s.reason);
	strbuf_printf(b, "\n");
}

static void control_sandbox_json(struct strbuf *b, const struct instance *in)
{
	struct instance_sandbox s;
	uint64_t now;

	if (!in->sandbox.on) {
		strbuf_printf(b, "{\"on\":false}");
		return;
	}
	control_sandbox_get(in, &s, &now);
	strbuf_printf(b, "{\"on\":true,\"up\":%s,\"pid\":%d", s.up ? "true" : "false", s.pid);
	if (s.reason[0]) {
		strbuf_printf(b, ",\"last_death\":");
		strbuf_json_str(b, s.reason);
		strbuf_printf(b, ",\"last_death_seconds_ago\":%llu",
			      (unsigned long long)(now - s.reason_ms) / 1000u);
	}
	strbuf_printf(b, "}");
}

/* "ipv4,ipv6" or a JSON list of the set bits' names. */
static void control_bits(struct strbuf *b, const struct cfg_bits *bits,
			 unsigned int set, bool json)
{
	bool first = true;

	if (json)
		strbuf_printf(b, "[");
	for (unsigned int bit = 1; bit <= 2; bit <<= 1) {
		if (!(set & bit))
			continue;
		if (json) {
			strbuf_printf(b, "%s", first ? "" : ",");
			strbuf_json_str(b, bits->names[bit]);
		} else {
			strbuf_printf(b, "%s%s", first ? "" : ",", bits->names[bit]);
		}
		first = false;
	}
	if (json)
		strbuf_printf(b, "]");
}

/* "2026-12-03T20:31:07Z": the reload's wall-clock time, UTC. */
static void control_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%lld", (long long)t);
}

static void control_snap(struct control *c, const struct runtime *rt,
			 struct stats_snap *s)
{
	struct stats_kqueue kq[CFG_MAX_HELPERS * 4];
	size_t nk = 0;
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->n_helpers = rt->n_inst;
	for (size_t i = 0; i < rt->n_inst; i++) {
		const struct cth_plugin_desc *d = rt->inst[i].pl->desc;

		s->helper[i] = rt->inst[i].name;
		s->helper_queue[i] = rt->inst[i].queue;
		s->slot[i] = rt->inst[i].slot;
		/* the runtime's strings: rendered before anything frees it
		 * (a reload runs in this same loop) */
		s->plugin[i] = d->name;
		s->n_pc[i] = d->n_counters;
		s->pc_decl[i] = d->counters;
	}
	s->n_queues = c->n_queues;
	for (size_t i = 0; i < c->n_queues; i++) {
		s->queue[i] = c->queue[i];
		stats_report_snap_add(s, c->stats[i], i);
	}
	if (c->host_stats)
		stats_report_snap_add_helpers(s, c->host_stats);
	/* other programs' queues are listed too: only ours are shown */
	f = fopen(CONTROL_PROC_QUEUES, "re");
	if (f) {
		nk = stats_report_kqueue_read(f, kq, sizeof(kq) / sizeof(kq[0]));
		fclose(f);
	}
	stats_report_snap_kernel(s, kq, nk);
}

/* "OK" and the summary, or "ERROR" and every error line: the reload has
 * ended either way when the answer goes out. */
static int control_reload(struct control *c, struct strbuf *out)
{
	struct strbuf errs = { 0 };
	int rc;

	if (!c->reload) {
		strbuf_printf(out, "ERROR reload is not available\n");
		return -EOPNOTSUPP;
	}
	rc = c->reload(c->reload_arg, &errs);
	if (rc == 0)
		strbuf_printf(out, "OK\nreloaded: %s\n", c->last.result);
	else
		strbuf_printf(out, "ERROR reload failed, the previous configuration "
			      "keeps serving: %s\n%s", c->last.result, errs.p ? errs.p : "");
	strbuf_free(&errs);
	return rc;
}

static double control_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
