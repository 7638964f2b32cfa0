/* SPDX-License-Identifier: MIT */
/* The per-worker table of detaching connections (detach.h has the why). */
#include <errno.h>
#include <string.h>

#include "detach.h"
#include "base/log.h"
#include "host/packet.h"
#include "runtime/stats.h"

static bool detach_entry_is(const struct detach_entry *e, const struct cth_packet *p);
static void detach_entry_free(struct detach *d, struct detach_entry *e);
static bool detach_done_expired(const struct detach_entry *e, uint64_t now_ms);
static struct detach_entry *detach_slot(struct detach *d, enum detach_state state,
					uint64_t now_ms);
static void detach_full(struct detach *d, const char *helper);

enum detach_state detach_lookup(struct detach *d, const struct cth_packet *p,
				uint64_t now_ms)
{
	for (unsigned int i = 0, seen = 0; seen < d->used && i < DETACH_ENTRIES; i++) {
		struct detach_entry *e = &d->e[i];

		if (e->state == DETACH_NONE)
			continue;
		seen++;
		if (!detach_entry_is(e, p))
			continue;
		if (detach_done_expired(e, now_ms)) {
			detach_entry_free(d, e);
			return DETACH_NONE;
		}
		return e->state;
	}
	return DETACH_NONE;
}

int detach_add(struct detach *d, const struct cth_packet *p, const char *helper,
	       enum detach_state state, uint64_t now_ms)
{
	struct detach_entry *e = NULL;

	for (unsigned int i = 0; i < DETACH_ENTRIES; i++)
		if (detach_entry_is(&d->e[i], p)) {
			e = &d->e[i];
			detach_entry_free(d, e);
			break;
		}
	if (!e && !(e = detach_slot(d, state, now_ms))) {
		detach_full(d, helper);
		return -ENOSPC;
	}
	e->state = (uint8_t)state;
	e->id = p->ct_id;
	e->zone = p->zone;
	e->orig = p->tuple[CTH_DIR_ORIGINAL];
	e->since_ms = now_ms;
	strncpy(e->helper, helper, sizeof(e->helper) - 1);
	e->helper[sizeof(e->helper) - 1] = '\0';
	d->used++;
	if (state == DETACH_WAIT) {
		d->waiting++;
		d->deferred++;
	} else {
		d->detached++;
	}
	return 0;
}

void detach_settle(struct detach *d, struct detach_entry *e, bool detached,
		   uint64_t now_ms)
{
	if (e->state != DETACH_WAIT)
		return;
	d->waiting--;
	if (detached) {
		e->state = DETACH_DONE;
		e->since_ms = now_ms;
		d->detached++;
	} else {
		e->state = DETACH_NONE;
		d->used--;
	}
}

struct detach_entry *detach_next_waiting(struct detach *d)
{
	if (!d->waiting)
		return NULL;
	for (unsigned int i = 0; i < DETACH_ENTRIES; i++) {
		struct detach_entry *e = &d->e[(d->next + i) % DETACH_ENTRIES];

		if (e->state == DETACH_WAIT) {
			d->next = (unsigned int)(e - d->e + 1) % DETACH_ENTRIES;
			return e;
		}
	}
	return NULL;
}

static bool detach_entry_is(const struct detach_entry *e, const struct cth_packet *p)
{
	return e->state != DETACH_NONE && pkt_conn_is(p, e->id, e->zone, &e->orig);
}

static void detach_entry_free(struct detach *d, struct detach_entry *e)
{
	if (e->state == DETACH_WAIT)
		d->waiting--;
	e->state = DETACH_NONE;
	d->used--;
}

static bool detach_done_expired(const struct detach_entry *e, uint64_t now_ms)
{
	return e->state == DETACH_DONE && now_ms - e->since_ms >= DETACH_DONE_MS;
}

/* A free slot: a free one, else an expired DONE one, else (for a DONE
 * entry only) the oldest DONE one; a waiting entry is never evicted. */
static struct detach_entry *detach_slot(struct detach *d, enum detach_state state,
					uint64_t now_ms)
{
	struct detach_entry *oldest = NULL;

	for (unsigned int i = 0; i < DETACH_ENTRIES; i++) {
		struct detach_entry *e = &d->e[i];

		if (e->state == DETACH_NONE)
			return e;
		if (detach_done_expired(e, now_ms)) {
			detach_entry_free(d, e);
			return e;
		}
		if (e->state == DETACH_DONE && (!oldest || e->since_ms < oldest->since_ms))
			oldest = e;
	}
	if (oldest && state == DETACH_DONE) {
		detach_entry_free(d, oldest);
		return oldest;
	}
	return NULL;
}

/* A full table keeps a connection helped that asked to detach: counted,
 * and logged at a bounded rate (a flood of such connections is input). */
static void detach_full(struct detach *d, const char *helper)
{
	int quiet;

	d->refused++;
	quiet = log_rl_warn("%s: %u connections already wait to detach: this one stays helped",
			    helper, DETACH_ENTRIES);
	if (!d->stats)
		return;
	stats_add(&d->stats->q[STATS_Q_DETACH_FULL], 1);
	stats_add(&d->stats->q[STATS_Q_LOG_SUPPRESSED], (uint64_t)quiet);
}
