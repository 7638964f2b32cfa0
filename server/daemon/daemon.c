/* SPDX-License-Identifier: MIT */
/*
 * What the daemon's start/stop (serve.c) and its reload (reload.c) both
 * do: bind and free queue workers, show them to the control socket, and
 * keep the record of the kernel helpers registered (kernel/record.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "daemon.h"
#include "kernel/cthelper.h"

static void daemon_record_adopt(struct daemon *d, const struct runtime *rt);

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
	/* the table's size is the worker's for its life: a reload that
	 * changes inflight_entries sizes the queues it starts */
	if (worker_init(w, q, qlen, fail_open, rt->cfg->inflight_entries, &d->rt) < 0) {
		daemon_worker_destroy(d, w);
		return NULL;
	}
	return w;
}

void daemon_worker_destroy(struct daemon *d, struct worker *w)
{
	worker_stop(w);
	/* an abandoned worker's thread may still run: its struct is leaked
	 * with everything in it (worker_stop()) */
	if (w->abandoned) {
		d->n_abandoned++;
		return;
	}
	worker_free(w);
	free(w);
}

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

void daemon_record_open(struct daemon *d, const struct runtime *rt)
{
	const struct cfg *cfg = rt->cfg;
	int rc;

	d->record[0] = '\0';
	if (!cfg->runtime_dir)
		return;
	rc = record_dir_make(cfg->runtime_dir, cfg->user ? cfg->gid : -1);
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

void daemon_record_close(struct daemon *d)
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

/* An earlier run's record (it crashed and nobody ran --release): what it
 * names beyond our configuration stays in ours, and the operator hears
 * of it. */
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
