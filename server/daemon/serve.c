/* SPDX-License-Identifier: MIT */
/*
 * The daemon's start, main loop and stop.  Start-up order matters: queues
 * are bound before the kernel helpers are enabled (a packet queued to
 * nobody would bypass conntrack confirmation), and on the way out
 * helpers are disabled before the queues are drained and closed.
 */
#include <errno.h>
#include <ev.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "kernel/cthelper.h"
#include "kernel/portids.h"
#include "notify.h"
#include "privdrop.h"
#include "reload.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "serve.h"
#include "worker/watchdog.h"

static int serve_sandboxes_start(struct daemon *d);
static int serve_workers_open(struct daemon *d);
static int serve_control_open(struct daemon *d, struct ev_loop *loop);
static void serve_on_stop(struct ev_loop *loop, ev_signal *w, int revents);
static void serve_on_hup(struct ev_loop *loop, ev_signal *w, int revents);
static void serve_watch_cb(struct ev_loop *loop, ev_timer *t, int revents);
static void serve_shutdown(struct daemon *d);
static int serve_reload_ctl(void *arg, struct strbuf *out);
static bool serve_ready_ctl(void *arg, char *why, size_t len);

int serve_run(struct daemon *d, bool detach)
{
	struct ev_loop *loop = ev_default_loop(EVFLAG_AUTO);
	ev_signal sig_int, sig_term, sig_hup;
	ev_timer watch;
	int rc;

	if (!loop) {
		log_err("cannot create the event loop");
		return 1;
	}
	/* first: the spawner is forked while this is one thread, and the
	 * sandboxes are set up before any helper can queue to them */
	if (serve_sandboxes_start(d) < 0)
		return 1;
	if ((rc = nlreq_open(&d->ctl)) < 0) {
		log_err("cannot open a netfilter netlink socket: %s", strerror(-rc));
		return 1;
	}
	portids_add(d->ctl.portid, PORTID_REQUEST);
	if (serve_workers_open(d) < 0) {
		serve_shutdown(d);
		return 1;
	}
	daemon_record_open(d, d->rt);
	daemon_record_save(d, d->rt);
	if (cthelper_register_all(&d->ctl, d->rt, &d->owned) < 0) {
		serve_shutdown(d);
		return 1;
	}
	if (detach && daemon(0, 0) < 0) {
		log_err("cannot detach: %s", strerror(errno));
		serve_shutdown(d);
		return 1;
	}
	/* sockets first, as root (a reserved metrics port, /run) */
	if (serve_control_open(d, loop) < 0 ||
	    metrics_open(&d->metrics, loop, &d->control, d->rt->cfg->metrics) < 0 ||
	    privdrop_apply(d->rt->cfg) < 0) {
		serve_shutdown(d);
		return 1;
	}
	for (size_t i = 0; i < d->n_workers; i++) {
		if ((rc = worker_start(d->workers[i])) < 0) {
			log_err("cannot start worker: %s", strerror(-rc));
			serve_shutdown(d);
			return 1;
		}
	}
	/* not fatal: only failover peers need it (exprepair.c) */
	exprepair_open(&d->repair, loop, &d->ctl, &d->rt, &d->host_stats);
	signal(SIGPIPE, SIG_IGN);
	ev_signal_init(&sig_int, serve_on_stop, SIGINT);
	ev_signal_init(&sig_term, serve_on_stop, SIGTERM);
	ev_signal_init(&sig_hup, serve_on_hup, SIGHUP);
	sig_hup.data = d;
	ev_signal_start(loop, &sig_int);
	ev_signal_start(loop, &sig_term);
	ev_signal_start(loop, &sig_hup);
	ev_timer_init(&watch, serve_watch_cb, WATCHDOG_PERIOD_MS / 1000.,
		      WATCHDOG_PERIOD_MS / 1000.);
	watch.data = d;
	ev_timer_start(loop, &watch);
	log_notice("ready: %zu helper(s) on %zu queue(s)", d->rt->n_inst, d->n_workers);
	notify_ready("serving the configured helpers");
	ev_run(loop, 0);
	ev_timer_stop(loop, &watch);
	serve_shutdown(d);
	log_notice("stopped");
	return 0;
}

/*
 * The spawner (sandbox/spawn.h) and every sandboxed helper's sandbox.
 * With a sandboxed helper main() opened the spawner already, before
 * runtime_build() described its plugin (spawn_open() is then a no-op);
 * without one it starts here all the same, so that a reload may add one,
 * and its failure is only worth a warning (such a reload then fails).
 */
static int serve_sandboxes_start(struct daemon *d)
{
	struct runtime *rt = d->rt;
	bool any = false;

	for (size_t i = 0; i < rt->n_inst; i++)
		any |= rt->inst[i].sandbox.on;
	if (spawn_open(rt->cfg) < 0) {
		if (!any) {
			log_warn("sandbox: no spawner: a reload cannot add a sandboxed helper");
			return 0;
		}
		return -1;
	}
	if (any && sandbox_start_all(rt, &d->host_stats) < 0) {
		spawn_close();
		return -1;
	}
	return 0;
}

/* One worker per distinct queue, bound before any helper names it. */
static int serve_workers_open(struct daemon *d)
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

/* The control socket answers from the workers' counters.  It is bound
 * before they start (as root, before the privilege drop), but answers
 * only from the main loop, which runs once they do: a client that
 * connects earlier waits, it never sees a daemon that is not serving. */
static int serve_control_open(struct daemon *d, struct ev_loop *loop)
{
	struct control *c = &d->control;

	c->rtp = &d->rt;
	c->reload = serve_reload_ctl;
	c->ready = serve_ready_ctl;
	c->reload_arg = d;
	daemon_control_sync(d);
	return control_open(c, loop);
}

static void serve_on_stop(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)revents;
	log_notice("signal %d: stopping", w->signum);
	notify_stopping();
	ev_break(loop, EVBREAK_ALL);
}

static void serve_on_hup(struct ev_loop *loop, ev_signal *w, int revents)
{
	(void)loop;
	(void)revents;
	log_notice("signal %d: reloading", w->signum);
	reload_run(w->data, NULL);
}

/*
 * Every WATCHDOG_PERIOD_MS: a worker busy for WATCHDOG_STUCK_MS is stuck
 * (watchdog.h).  Counted once per episode into STATS_Q_STALLS, which only
 * this thread writes (the worker's other counters are the worker's: one
 * writer per counter, as stats_add() needs).
 */
static void serve_watch_cb(struct ev_loop *loop, ev_timer *t, int revents)
{
	struct daemon *d = t->data;
	uint64_t now = watchdog_now_ms(), ms;

	(void)loop;
	(void)revents;
	sandbox_tick_all(atomic_load(&d->rt), now, &d->host_stats);
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

/* Only the helpers this run registered are undone: one that belongs to
 * another program and made registration stop is left alone.  Deleting
 * comes after every queue is drained: it drops whatever is queued. */
static void serve_shutdown(struct daemon *d)
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
		daemon_worker_destroy(d, d->workers[i]);
	d->n_workers = 0;
	nlreq_close(&d->ctl);
	/* a worker stuck in a plugin runs that plugin's code: unloading it
	 * would turn a hang into a crash; the process exits next anyway */
	if (d->n_abandoned) {
		log_err("%zu worker(s) left running in a plugin: exiting without "
			"unloading the plugins", d->n_abandoned);
		return;
	}
	sandbox_stop_all(d->rt);
	runtime_free(d->rt);
	for (size_t i = 0; i < d->n_retired; i++) {
		sandbox_stop_all(d->retired[i]);
		runtime_free(d->retired[i]);
	}
	spawn_close();
}

/* cthelperctl reload: as SIGHUP, answered when it is done. */
static int serve_reload_ctl(void *arg, struct strbuf *out)
{
	return reload_run(arg, out);
}

/* The queues are bound and their workers run whenever the control
 * socket answers (serve_control_open()); what can change under us is
 * the kernel's side: another daemon, an operator or a --release. */
static bool serve_ready_ctl(void *arg, char *why, size_t len)
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
