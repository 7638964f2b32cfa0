/* SPDX-License-Identifier: MIT */
/*
 * Live reload: load → validate → swap → free.
 *
 * Everything that can fail is done before the swap and touches nothing
 * the workers use: the file is parsed and its plugins loaded into a new
 * runtime, the kernel is asked whether every helper can be registered,
 * and new queues are bound (their workers start on the old runtime and
 * see nothing until a helper names their queue).  Then one atomic store
 * makes every worker use the new runtime from its next packet on, the
 * kernel helpers are updated, added and disabled, and queues nobody
 * names any more are drained and closed.  The old runtime (and the old
 * plugin code) is freed only after every worker has passed a quiescent
 * state since the store (worker_quiescent()).
 *
 * All of it runs in the main loop, so a reload asked for during another
 * one (SIGHUP, cthelperctl) waits for it: never interleaved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "kernel/cthelper_reload.h"
#include "notify.h"
#include "reload.h"
#include "sandbox/describe.h"
#include "sandbox/sandbox.h"
#include "sandbox/spawn.h"
#include "reload_plan.h"
#include "runtime/config_load.h"

/* How long the old runtime may stay in use after the swap. */
#define RELOAD_GRACE_MS 2000

static void reload_capture(void *arg, int level, const char *line);
static int reload_prepare(struct daemon *d, const struct runtime *old,
			  struct runtime **out, const char **why);
static int reload_queues_open(struct daemon *d, const struct runtime *nrt);
static struct worker *reload_worker_of(struct daemon *d, uint16_t q);
static void reload_fail(struct daemon *d, const struct strbuf *errs, const char *why);
static void reload_last(struct daemon *d, bool ok, const char *result);
static void reload_slots_clear(struct daemon *d, const unsigned int *fresh, size_t n,
			       const uint32_t *reset);
static void reload_queues_tune(struct daemon *d, const struct runtime *nrt);
static void reload_queues_close(struct daemon *d, const struct runtime *nrt);
static bool reload_has_queue(const struct runtime *rt, uint16_t q);
static void reload_retire(struct daemon *d, struct runtime *old);
static int reload_sandboxes_start(struct runtime *nrt);
static bool reload_any_sandboxed(const struct cfg *cfg);
static bool reload_grace(struct daemon *d);
static uint64_t reload_ms(void);

int reload_run(struct daemon *d, struct strbuf *errs)
{
	struct runtime *old = atomic_load(&d->rt), *nrt;
	unsigned int fresh[CFG_MAX_HELPERS];
	uint32_t reset[STATS_SLOTS];
	struct strbuf sum = { 0 }, mine = { 0 };
	const char *why;
	size_t n_fresh;
	int rc;

	if (!errs)
		errs = &mine;
	log_capture_set(reload_capture, errs);
	notify_reloading();
	log_notice("reload: reading %s", d->file);
	rc = reload_prepare(d, old, &nrt, &why);
	if (rc < 0) {
		reload_fail(d, errs, why);
		log_capture_set(NULL, NULL);
		notify_ready("reload failed: the previous configuration keeps serving");
		strbuf_free(&mine);
		return rc;
	}
	n_fresh = reload_plan_slots_assign(old, nrt, fresh);
	reload_plan_counters_reset(old, nrt, reset);
	reload_slots_clear(d, fresh, n_fresh, reset);
	reload_queues_tune(d, nrt);
	atomic_store(&d->rt, nrt);
	log_level_set(nrt->cfg->log_level);
	/* the union before registering (a crash mid-apply is covered), what
	 * is left registered after (removed helpers stay, disabled, until
	 * the stop deletes them) */
	daemon_record_save(d, nrt);
	rc = cthelper_reload_apply(&d->ctl, nrt, &d->owned);
	daemon_record_save(d, nrt);
	reload_queues_close(d, nrt);
	daemon_control_sync(d);
	reload_plan_summary(old, nrt, &sum);
	reload_retire(d, old);
	log_capture_set(NULL, NULL);
	if (rc < 0) {
		char res[512];

		snprintf(res, sizeof(res), "applied, but a kernel helper was not updated "
			 "(see the log): %s", sum.p ? sum.p : "");
		log_err("reload: %s", res);
		reload_last(d, false, res);
	} else {
		log_notice("reload done: %s", sum.p ? sum.p : "");
		reload_last(d, true, sum.p ? sum.p : "");
	}
	notify_ready(d->control.last.result);
	strbuf_free(&sum);
	strbuf_free(&mine);
	return rc;
}

static void reload_capture(void *arg, int level, const char *line)
{
	(void)level;
	strbuf_printf(arg, "%s\n", line);
}

/* Everything that may fail, before anything changes: 0 and *out, or an
 * errno with why set. */
static int reload_prepare(struct daemon *d, const struct runtime *old,
			  struct runtime **out, const char **why)
{
	struct cfg *cfg;
	struct runtime *nrt;
	char msg[1024];
	int rc;

	*why = "the configuration file has errors";
	if ((rc = cfg_load(d->file, &cfg)) < 0)
		return rc;
	/* a sandboxed helper's plugin is described by a sandbox: the daemon
	 * never loads it, so without the spawner there is no way to read it */
	*why = "a sandbox cannot be started";
	if (!spawn_is_open() && reload_any_sandboxed(cfg)) {
		log_err("reload: sandboxed helpers need the spawner, which did not start "
			"with the daemon (see the start's log): restart the daemon");
		cfg_free(cfg);
		return -ENOENT;
	}
	if (spawn_is_open())
		cfg->describe = sandbox_describe;
	*why = "a helper or its plugin has errors";
	if ((rc = runtime_build(cfg, &nrt)) < 0)
		return rc;
	*why = "a setting needs a restart";
	if ((rc = reload_plan_server_check(old->cfg, nrt->cfg, msg, sizeof(msg))) < 0) {
		log_err("%s", msg);
		runtime_free(nrt);
		return rc;
	}
	*why = "a kernel helper cannot take the new configuration";
	if ((rc = cthelper_reload_check(&d->ctl, nrt, &d->owned)) < 0) {
		runtime_free(nrt);
		return rc;
	}
	/* before the queues: a helper is never enabled without its sandbox;
	 * a replaced .so is loaded by the new sandboxes, the old ones end
	 * with the old configuration */
	*why = "a sandbox cannot be started";
	if ((rc = reload_sandboxes_start(nrt)) < 0) {
		runtime_free(nrt);
		return rc;
	}
	*why = "a new queue cannot be bound";
	if ((rc = reload_queues_open(d, nrt)) < 0) {
		sandbox_stop_all(nrt);
		runtime_free(nrt);
		return rc;
	}
	*out = nrt;
	return 0;
}

/* The new configuration's sandboxes, set up before anything changes
 * (their configure(), check() and init() refusals are printed at their
 * lines, as the other configuration errors). */
static int reload_sandboxes_start(struct runtime *nrt)
{
	if (!reload_any_sandboxed(nrt->cfg))
		return 0;
	return sandbox_start_all(nrt, NULL);
}

static bool reload_any_sandboxed(const struct cfg *cfg)
{
	for (size_t i = 0; i < cfg->n_helpers; i++)
		if (cfg->helpers[i].sandbox.on)
			return true;
	return false;
}

/* Bind and start a worker for every queue nrt adds (before the swap, so
 * that no helper ever names a queue nobody reads).  On failure the ones
 * started here are undone. */
static int reload_queues_open(struct daemon *d, const struct runtime *nrt)
{
	size_t before = d->n_workers;
	int rc = 0;

	for (size_t q = 0; q < nrt->n_queues && !rc; q++) {
		struct worker *w;

		if (reload_worker_of(d, nrt->queues[q]))
			continue;
		w = daemon_worker_new(d, nrt, nrt->queues[q]);
		if (!w) {
			rc = -EBUSY;
			break;
		}
		d->workers[d->n_workers++] = w;
		if ((rc = worker_start(w)) < 0)
			log_err("queue %u: cannot start its worker: %s", w->queue, strerror(-rc));
		else
			log_info("queue %u: bound", w->queue);
	}
	if (!rc)
		return 0;
	while (d->n_workers > before)
		daemon_worker_destroy(d, d->workers[--d->n_workers]);
	return rc;
}

static struct worker *reload_worker_of(struct daemon *d, uint16_t q)
{
	for (size_t i = 0; i < d->n_workers; i++)
		if (d->workers[i]->queue == q)
			return d->workers[i];
	return NULL;
}

/* Status gets why, and the first captured error line. */
static void reload_fail(struct daemon *d, const struct strbuf *errs, const char *why)
{
	size_t n = errs->p ? strcspn(errs->p, "\n") : 0;
	char res[512];

	log_err("reload failed (%s): the previous configuration keeps serving", why);
	snprintf(res, sizeof(res), "%s%s%.*s", why, n ? ": " : "",
		 (int)(n < 380 ? n : 380), errs->p ? errs->p : "");
	reload_last(d, false, res);
}

static void reload_last(struct daemon *d, bool ok, const char *result)
{
	struct control_reload *l = &d->control.last;

	l->count++;
	l->at = time(NULL);
	l->ok = ok;
	snprintf(l->result, sizeof(l->result), "%s", result);
}

/*
 * Before the swap.  Nobody counts into a fresh slot; a kept slot's plugin
 * counter whose meaning changes may still get what the old plugin counts
 * until the swap, and in the packet each worker handles then: a plugin
 * counter that changes meaning is exact only from a moment after the
 * reload on.
 */
static void reload_slots_clear(struct daemon *d, const unsigned int *fresh, size_t n,
			       const uint32_t *reset)
{
	for (size_t i = 0; i < d->n_workers; i++) {
		struct stats_block *b = &d->workers[i]->stats;

		for (size_t s = 0; s < n; s++)
			for (size_t k = 0; k < STATS_H_N; k++)
				atomic_store_explicit(&b->h[fresh[s]][k], 0, memory_order_relaxed);
		for (size_t s = 0; s < STATS_SLOTS; s++)
			for (size_t k = 0; k < CTH_COUNTER_MAX; k++)
				if (reset[s] & (1u << k))
					atomic_store_explicit(&b->pc[s][k], 0, memory_order_relaxed);
	}
}

static void reload_queues_tune(struct daemon *d, const struct runtime *nrt)
{
	for (size_t i = 0; i < d->n_workers; i++) {
		uint32_t qlen;
		bool fo;
		int rc;

		daemon_queue_params(nrt, d->workers[i]->queue, &qlen, &fo);
		rc = worker_params_set(d->workers[i], qlen, fo);
		if (rc < 0)
			log_err("queue %u: cannot change its length or fail-open: %s",
				d->workers[i]->queue, strerror(-rc));
	}
}

/* After the kernel helpers left them: drain and close the queues nrt
 * does not name (worker_stop() drains, waits, drains again). */
static void reload_queues_close(struct daemon *d, const struct runtime *nrt)
{
	size_t k = 0;

	for (size_t i = 0; i < d->n_workers; i++) {
		struct worker *w = d->workers[i];

		if (reload_has_queue(nrt, w->queue)) {
			d->workers[k++] = w;
			continue;
		}
		log_info("queue %u: no helper names it any more: drained and closed", w->queue);
		daemon_worker_destroy(d, w);
	}
	d->n_workers = k;
}

static bool reload_has_queue(const struct runtime *rt, uint16_t q)
{
	for (size_t i = 0; i < rt->n_queues; i++)
		if (rt->queues[i] == q)
			return true;
	return false;
}

static void reload_retire(struct daemon *d, struct runtime *old)
{
	if (reload_grace(d)) {
		sandbox_stop_all(old);
		runtime_free(old);
		return;
	}
	log_warn("reload: a worker did not come back within %u ms (a plugin that "
		 "hangs?): the previous configuration's memory is kept until stop",
		 RELOAD_GRACE_MS);
	if (d->n_retired < DAEMON_RETIRED_MAX) {
		d->retired[d->n_retired++] = old;
		return;
	}
	/* leaking is safe, freeing under a running worker is not */
	log_err("reload: too many configurations held back: one is leaked");
}

/*
 * The grace period: every worker passes a quiescent state after the
 * store, poked awake if idle.  Blocks the main loop for about one drain
 * of the busiest queue; bounded, since a plugin may hang.
 */
static bool reload_grace(struct daemon *d)
{
	uint64_t seen[sizeof(d->workers) / sizeof(d->workers[0])];
	uint64_t end = reload_ms() + RELOAD_GRACE_MS;
	const struct timespec nap = { .tv_nsec = 1000000 };
	size_t left;

	for (size_t i = 0; i < d->n_workers; i++) {
		seen[i] = worker_quiescent(d->workers[i]);
		worker_poke(d->workers[i]);
	}
	do {
		left = 0;
		for (size_t i = 0; i < d->n_workers; i++)
			left += worker_quiescent(d->workers[i]) == seen[i];
		if (!left)
			return true;
		nanosleep(&nap, NULL);
	} while (reload_ms() < end);
	return false;
}

static uint64_t reload_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}
