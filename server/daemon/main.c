/* SPDX-License-Identifier: MIT */
/*
 * cthelperd: start-up order matters.  Queues are bound before the kernel
 * helpers are enabled (a packet queued to nobody would bypass conntrack
 * confirmation), and on the way out helpers are disabled before the queues
 * are drained and closed.
 */
#include <errno.h>
#include <netinet/in.h>
#include <ev.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "runtime/config_load.h"
#include "kernel/cthelper_release.h"
#include "kernel/kcheck.h"
#include "base/log.h"
#include "control/metrics.h"
#include "kernel/portids.h"
#include "notify.h"
#include "privdrop.h"
#include "kernel/record.h"
#include "rules.h"
#include "worker/watchdog.h"

#ifndef CTH_VERSION
#define CTH_VERSION "0.0.0"
#endif

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: cthelperd [-c FILE] [-n] [-d] [-h] [-V] [--check-kernel] [--release]\n"
		"                 [--print-rules nft|iptables]\n"
		"User-space connection tracking helper server for Linux netfilter.\n"
		"\n"
		"  -c, --config FILE  configuration file (default %s)\n"
		"  -n, --check        check the configuration and plugins, then exit\n"
		"                     (0 if good; else print FILE:LINE: message, exit 1)\n"
		"  -d, --daemon       detach and log to syslog (default: foreground, stderr)\n"
		"      --check-kernel report what the running kernel offers and\n"
		"                     what to do about anything missing, and the\n"
		"                     in-kernel helpers loaded (their names are\n"
		"                     taken: EBUSY), then exit\n"
		"      --release      disable, then delete every kernel helper FILE\n"
		"                     configures, whoever registered it, and every\n"
		"                     one a daemon run with FILE recorded (runtime_dir),\n"
		"                     then exit\n"
		"                     (0 when all are gone, or left disabled where a\n"
		"                     rule still names them): after a crash or kill -9\n"
		"                     helpers stay ENABLED and new connections on their\n"
		"                     ports break until this runs or cthelperd restarts\n"
		"      --print-rules KIND\n"
		"                     print the nft or iptables rules (KIND) that\n"
		"                     attach FILE's helpers, then exit; load them\n"
		"                     only while cthelperd runs\n"
		"  -h, --help         this text\n"
		"  -V, --version      print the version\n"
		"\n"
		"Signals: SIGTERM/SIGINT stop cleanly (helpers disabled, then deleted);\n"
		"SIGHUP reloads FILE (and plugins); on any error the running\n"
		"configuration stays.\n"
		"See cthelperd(8) and cthelperd.conf(5).\n",
		CTH_DEFAULT_CONFIG);
}

static void on_stop(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)revents;
	log_notice("signal %d: stopping", w->signum);
	notify_stopping();
	ev_break(loop, EVBREAK_ALL);
}

static void on_hup(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)loop;
	(void)revents;
	log_notice("signal %d: reloading", w->signum);
	daemon_reload(w->data, NULL);
}

/* cthelperctl reload: the same, answered when it is done. */
static int daemon_reload_ctl(void *arg, struct strbuf *out)
{
	return daemon_reload(arg, out);
}

/* The queues are bound and their workers run whenever the control
 * socket answers (daemon_control_open()); what can change under us is
 * the kernel's side: another daemon, an operator or a --release. */
static bool daemon_ready_ctl(void *arg, char *why, size_t len)
{
	struct daemon *d = arg;
	uint64_t now = watchdog_now_ms(), ms;

	/* a worker stuck in a plugin serves nobody on its queue */
	for (size_t i = 0; i < d->n_workers; i++) {
		if (!watchdog_stuck(&d->workers[i]->wd, now, WATCHDOG_STUCK_MS, &ms))
			continue;
		snprintf(why, len, "queue %u: worker stuck for %llu ms in one receive's "
			 "packets (a plugin that does not return?)", d->workers[i]->queue,
			 (unsigned long long)ms);
		return false;
	}
	return cthelper_ready(&d->ctl, atomic_load(&d->rt), why, len);
}

/*
 * Every WATCHDOG_PERIOD_MS: a worker busy for WATCHDOG_STUCK_MS is stuck
 * (watchdog.h).  Counted once per episode into STATS_Q_STALLS, which only
 * this thread writes (the worker's other counters are the worker's: one
 * writer per counter, as stats_add() needs).
 */
static void daemon_watch_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct daemon *d = t->data;
	uint64_t now = watchdog_now_ms(), ms;

	(void)loop;
	(void)revents;
	for (size_t i = 0; i < d->n_workers; i++) {
		struct worker *w = d->workers[i];

		switch (watchdog_check(&w->wd, now, WATCHDOG_STUCK_MS, &ms)) {
		case WATCHDOG_STUCK_NEW:
			stats_add(&w->stats.q[STATS_Q_STALLS], 1);
			log_err("queue %u: worker stuck: busy with one receive's packets for "
				"%llu ms (a plugin that does not return?): the queue's packets "
				"wait, and status says not ready", w->queue,
				(unsigned long long)ms);
			break;
		case WATCHDOG_OK:
			if (w->wd.reported) {
				log_notice("queue %u: worker serving again", w->queue);
				w->wd.reported = 0;
			}
			break;
		default:
			break;
		}
	}
}

/* Workers left running by a stop that timed out (watchdog.h): while
 * there are any, no runtime is freed, as their plugin may still run. */
static size_t d_abandoned;

void daemon_queue_params(const struct runtime *rt, uint16_t q, uint32_t *qlen,
			 bool *fail_open)
{
	*qlen = 0;
	*fail_open = false;
	for (size_t i = 0; i < rt->n_inst; i++) {
		if (rt->inst[i].queue != q)
			continue;
		if (rt->inst[i].queue_len > *qlen)
			*qlen = rt->inst[i].queue_len;
		*fail_open |= rt->inst[i].fail_open;
	}
}

struct worker *daemon_worker_new(struct daemon *d, const struct runtime *rt,
				 uint16_t q)
{
	struct worker *w = calloc(1, sizeof(*w));
	uint32_t qlen;
	bool fail_open;

	if (!w) {
		log_err("queue %u: out of memory", q);
		return NULL;
	}
	daemon_queue_params(rt, q, &qlen, &fail_open);
	if (worker_init(w, q, qlen, fail_open, &d->rt) < 0) {
		daemon_worker_destroy(w);
		return NULL;
	}
	return w;
}

void daemon_worker_destroy(struct worker *w)
{
	worker_stop(w);
	/* an abandoned worker's thread may still run: its struct is leaked
	 * with everything in it (worker_stop()) */
	if (w->abandoned) {
		d_abandoned++;
		return;
	}
	worker_free(w);
	free(w);
}

/* One worker per distinct queue, bound before any helper names it. */
static int daemon_workers_init(struct daemon *d)
{
	const struct runtime *rt = d->rt;

	for (size_t q = 0; q < rt->n_queues; q++) {
		struct worker *w = daemon_worker_new(d, rt, rt->queues[q]);

		if (!w)
			return -1;
		d->workers[d->n_workers++] = w;
	}
	return 0;
}

void daemon_control_sync(struct daemon *d)
{
	struct control *c = &d->control;

	c->n_queues = d->n_workers;
	for (size_t i = 0; i < d->n_workers; i++) {
		c->queue[i] = d->workers[i]->queue;
		c->stats[i] = &d->workers[i]->stats;
	}
	c->host_stats = &d->host_stats;
}

/* The control socket answers from the workers' counters.  It is bound
 * before they start (as root, before the privilege drop), but answers
 * only from the main loop, which runs once they do: a client that
 * connects earlier waits, it never sees a daemon that is not serving. */
static int daemon_control_open(struct daemon *d, struct ev_loop *loop)
{
	struct control *c = &d->control;

	c->rtp = &d->rt;
	c->reload = daemon_reload_ctl;
	c->ready = daemon_ready_ctl;
	c->reload_arg = d;
	daemon_control_sync(d);
	return control_open(c, loop);
}

void daemon_record_save(struct daemon *d, const struct runtime *rt)
{
	struct record *rec;
	int rc;

	if (!d->record[0])
		return;
	rec = calloc(1, sizeof(*rec));
	rc = rec ? cthelper_record_fill(&d->owned, rt, rec) : -ENOMEM;
	if (!rc && d->stale)
		rc = record_merge(rec, d->stale);
	if (!rc)
		rc = record_write(d->record, rec);
	if (rc)
		log_warn("%s: cannot record the kernel helpers registered: %s (after a "
			 "crash, --release finds only the ones the configuration names)",
			 d->record, strerror(-rc));
	free(rec);
}

/* An earlier run's record (it crashed and nobody ran --release): what it
 * names beyond our configuration stays in ours, and the operator hears
 * of it.  The record path itself was made before (daemon_record_open). */
static void daemon_record_adopt(struct daemon *d, const struct runtime *rt)
{
	struct record *old = calloc(1, sizeof(*old)), *mine = calloc(1, sizeof(*mine));
	int rc = old && mine ? record_read(d->record, old) : -ENOMEM;

	if (rc == -ENOENT)
		goto out;
	if (rc) {
		log_warn("%s: earlier record unreadable (%s): replaced", d->record,
			 strerror(-rc));
		goto out;
	}
	cthelper_record_fill(&d->owned, rt, mine);
	for (size_t i = 0; i < old->n; i++) {
		const struct record_entry *e = &old->e[i];

		if (record_find(mine, e->name, e->family, e->proto) >= 0)
			continue;
		log_warn("helper '%s' (%s %s, queue %u): an earlier run registered it and "
			 "the configuration no longer names it: it may still be enabled; "
			 "'cthelperd --release -c %s' after this run takes it out",
			 e->name, e->family == AF_INET6 ? "ipv6" : "ipv4",
			 e->proto == IPPROTO_UDP ? "udp" : "tcp", e->queue, rt->cfg->file);
		if (!d->stale)
			d->stale = calloc(1, sizeof(*d->stale));
		if (d->stale)
			record_add(d->stale, e->name, e->family, e->proto, e->queue);
	}
out:
	free(old);
	free(mine);
}

/* As root, before anything is registered: the directory (owned by the
 * user the daemon becomes, so a reload can replace the file). */
static void daemon_record_open(struct daemon *d, const struct runtime *rt)
{
	const struct cfg *cfg = rt->cfg;
	int rc;

	d->record[0] = '\0';
	if (!cfg->runtime_dir)
		return;
	rc = record_dir_make(cfg->runtime_dir, cfg->user ? cfg->uid : -1,
			     cfg->user ? cfg->gid : -1);
	if (!rc)
		rc = record_path(d->record, sizeof(d->record), cfg->runtime_dir, d->file);
	if (rc) {
		log_warn("%s: no record of the registered kernel helpers: %s (after a "
			 "crash, --release finds only the ones the configuration names)",
			 cfg->runtime_dir, strerror(-rc));
		d->record[0] = '\0';
		return;
	}
	daemon_record_adopt(d, rt);
}

/* A clean stop deleted what it could: the record goes, unless an earlier
 * run's leftovers are still to be released. */
static void daemon_record_close(struct daemon *d)
{
	int rc;

	if (!d->record[0])
		return;
	if (d->stale && d->stale->n)
		rc = record_write(d->record, d->stale);
	else
		rc = record_remove(d->record);
	if (rc)
		log_warn("%s: cannot update the record: %s", d->record, strerror(-rc));
	free(d->stale);
	d->stale = NULL;
}

/* Only the helpers this run registered are undone: one that belongs to
 * another program and made registration stop is left alone.  Deleting
 * comes after every queue is drained: it drops whatever is queued. */
static void daemon_shutdown(struct daemon *d)
{
	exprepair_close(&d->repair, EV_DEFAULT);
	metrics_close(&d->metrics);
	control_close(&d->control);
	cthelper_disable_all(&d->ctl, &d->owned);
	for (size_t i = 0; i < d->n_workers; i++)
		worker_stop(d->workers[i]);
	cthelper_delete_all(&d->ctl, &d->owned);
	daemon_record_close(d);
	for (size_t i = 0; i < d->n_workers; i++)
		daemon_worker_destroy(d->workers[i]);
	d->n_workers = 0;
	nlreq_close(&d->ctl);
	/* a worker stuck in a plugin runs that plugin's code: unloading it
	 * would turn a hang into a crash; the process exits next anyway */
	if (d_abandoned) {
		log_err("%zu worker(s) left running in a plugin: exiting without "
			"unloading the plugins", d_abandoned);
		return;
	}
	runtime_free(d->rt);
	for (size_t i = 0; i < d->n_retired; i++)
		runtime_free(d->retired[i]);
}

static int daemon_run(struct daemon *d, bool detach)
{
	struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
	ev_signal sig_int, sig_term, sig_hup;
	ev_timer watch;
	int rc;

	if (!loop) {
		log_err("cannot create the event loop");
		return 1;
	}
	if ((rc = nlreq_open(&d->ctl)) < 0) {
		log_err("cannot open a netfilter netlink socket: %s", strerror(-rc));
		return 1;
	}
	portids_add(d->ctl.portid, PORTID_REQUEST);
	if (daemon_workers_init(d) < 0) {
		daemon_shutdown(d);
		return 1;
	}
	daemon_record_open(d, d->rt);
	daemon_record_save(d, d->rt);
	if (cthelper_register_all(&d->ctl, d->rt, &d->owned) < 0) {
		daemon_shutdown(d);
		return 1;
	}
	if (detach && daemon(0, 0) < 0) {
		log_err("cannot detach: %s", strerror(errno));
		daemon_shutdown(d);
		return 1;
	}
	/* sockets first, as root (a reserved metrics port, /run) */
	if (daemon_control_open(d, loop) < 0 ||
	    metrics_open(&d->metrics, loop, &d->control, d->rt->cfg->metrics) < 0 ||
	    privdrop_apply(d->rt->cfg) < 0) {
		daemon_shutdown(d);
		return 1;
	}
	for (size_t i = 0; i < d->n_workers; i++) {
		if ((rc = worker_start(d->workers[i])) < 0) {
			log_err("cannot start worker: %s", strerror(-rc));
			daemon_shutdown(d);
			return 1;
		}
	}
	/* not fatal: only failover peers need it (exprepair.c) */
	exprepair_open(&d->repair, loop, &d->ctl, &d->rt, &d->host_stats);
	signal(SIGPIPE, SIG_IGN);
	ev_signal_init(&sig_int, on_stop, SIGINT);
	ev_signal_init(&sig_term, on_stop, SIGTERM);
	ev_signal_init(&sig_hup, on_hup, SIGHUP);
	sig_hup.data = d;
	ev_signal_start(loop, &sig_int);
	ev_signal_start(loop, &sig_term);
	ev_signal_start(loop, &sig_hup);
	ev_timer_init(&watch, daemon_watch_cb, WATCHDOG_PERIOD_MS / 1000.,
		      WATCHDOG_PERIOD_MS / 1000.);
	watch.data = d;
	ev_timer_start(loop, &watch);
	log_notice("ready: %zu helper(s) on %zu queue(s)", d->rt->n_inst, d->n_workers);
	notify_ready("serving the configured helpers");
	ev_run(loop, 0);
	ev_timer_stop(loop, &watch);
	daemon_shutdown(d);
	log_notice("stopped");
	return 0;
}

/* libmicrohttpd is loaded only for a configured endpoint (metrics.c), so
 * its absence is a configuration error like a bad metrics value: found
 * by -n, and at start before anything touches the kernel. */
static int daemon_metrics_check(const struct cfg *cfg)
{
	char why[512];

	if (!cfg->metrics || metrics_lib_load(why, sizeof(why)) == 0)
		return 0;
	cfg_error(cfg, cfg->metrics_line, "metrics: %s", why);
	return -1;
}

/* --release: the configured helpers out of the kernel, for after a crash
 * (plugins are loaded as for a start: they decide the default families
 * and protocols, hence which kernel helpers the config stands for). */
/* The record a daemon run with file keeps (record.h), if any: into rec
 * (empty when none), its path into path ("" when none). */
static void daemon_release_record(const struct runtime *rt, const char *file,
				  char *path, size_t len, struct record *rec)
{
	int rc;

	path[0] = '\0';
	if (!rt->cfg->runtime_dir ||
	    record_path(path, len, rt->cfg->runtime_dir, file) < 0) {
		path[0] = '\0';
		return;
	}
	rc = record_read(path, rec);
	if (rc == -ENOENT)
		return;
	if (rc)
		log_warn("%s: record refused (%s): releasing what the configuration "
			 "names only", path, strerror(-rc));
	else
		log_notice("%s: %zu kernel helper(s) recorded as registered", path, rec->n);
}

static int daemon_release(struct runtime *rt, const char *file)
{
	struct record *rec = calloc(1, sizeof(*rec));
	char path[4096];
	struct nlreq ctl;
	int rc;

	if (!rec || (rc = nlreq_open(&ctl)) < 0) {
		log_err("cannot open a netfilter netlink socket: %s",
			strerror(rec ? -rc : ENOMEM));
		free(rec);
		runtime_free(rt);
		return 1;
	}
	daemon_release_record(rt, file, path, sizeof(path), rec);
	rc = cthelper_release_all(&ctl, rt, rec);
	nlreq_close(&ctl);
	/* kept when something is left: a second --release tries again */
	if (!rc && path[0] && (rc = record_remove(path)) < 0)
		log_err("%s: cannot remove the record: %s", path, strerror(-rc));
	free(rec);
	runtime_free(rt);
	if (rc)
		log_err("release incomplete: see above");
	else
		log_notice("release done: no configured helper is enabled (each is deleted, or disabled where a rule still names it)");
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'n' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "check-kernel", no_argument, NULL, 'K' },
		{ "release", no_argument, NULL, 'R' },
		{ "print-rules", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	static struct daemon d;
	const char *file = CTH_DEFAULT_CONFIG;
	bool check = false, detach = false, release = false;
	struct cfg *cfg;
	struct runtime *rt;
	int c, rules = -1;

	while ((c = getopt_long(argc, argv, "c:ndhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c': file = optarg; break;
		case 'n': check = true; break;
		case 'd': detach = true; break;
		case 'h': usage(stdout); return 0;
		case 'K': return kcheck_run();
		case 'R': release = true; break;
		case 'P':
			if ((rules = rules_kind_parse(optarg)) < 0) {
				fprintf(stderr, "cthelperd: --print-rules: '%s' is not nft or iptables\n", optarg);
				usage(stderr);
				return 2;
			}
			break;
		case 'V': printf("cthelperd %s (plugin ABI %u)\n", CTH_VERSION, CTH_ABI_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "cthelperd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (release && (check || detach)) {
		fprintf(stderr, "cthelperd: --release goes without -n and -d\n");
		usage(stderr);
		return 2;
	}
	if (rules >= 0 && (check || detach || release)) {
		fprintf(stderr, "cthelperd: --print-rules goes without -n, -d and --release\n");
		usage(stderr);
		return 2;
	}
	if (cfg_load(file, &cfg) < 0)
		return 1;
	/* --release reports every helper at notice: never hide that */
	log_init(release && cfg->log_level < LOG_L_NOTICE ? LOG_L_NOTICE : cfg->log_level,
		 false);
	if (runtime_build(cfg, &rt) < 0)
		return 1;
	if (!release && rules < 0 && daemon_metrics_check(rt->cfg) < 0) {
		runtime_free(rt);
		return 1;
	}
	if (release)
		return daemon_release(rt, file);
	if (rules >= 0) {
		int rc = rules_print(stdout, rt, (enum rules_kind)rules);

		runtime_free(rt);
		return rc < 0 ? 1 : 0;
	}
	if (check) {
		printf("%s: configuration OK: %zu helper(s), %zu plugin(s)\n",
		       file, rt->n_inst, rt->n_plugins);
		runtime_free(rt);
		return 0;
	}
	if (detach)
		log_init(rt->cfg->log_level, true);
	atomic_store(&d.rt, rt);
	d.file = file;
	return daemon_run(&d, detach);
}
