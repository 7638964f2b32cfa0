/* SPDX-License-Identifier: MIT */
/*
 * Kept bytes (cth_keep): a per-worker table keyed by conntrack id, zone,
 * original tuple and direction, each entry the bytes one segment kept and
 * the sequence number of the segment that may use them.  See keep.h for
 * the bounds and docs/architecture.md ("Messages split across segments")
 * for why no verdict is held back.
 *
 * Buffers are allocated for exactly what they hold (the copy when the
 * plugin asks, the joined payload when a segment uses it), so a keep that
 * never happens costs nothing and an overrun is an overrun of its own
 * block (AddressSanitizer sees it).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "keep.h"
#include "base/log.h"
#include "packet.h"
#include "runtime/stats.h"

static struct keep_entry *keep_find(struct keep *k, const struct cth_packet *p,
				    uint64_t now_ms);
static bool keep_same_conn(const struct keep_entry *e, const struct cth_packet *p);
static void keep_drop(struct keep *k, struct keep_entry *e);
static void keep_store(struct keep *k, struct pkt_call *c, uint64_t now_ms);
static struct keep_entry *keep_slot(struct keep *k);
static void keep_evicted(struct keep *k);
static uint32_t keep_seq_next(const struct cth_packet *p);

void keep_join(struct keep *k, struct pkt_call *c, uint64_t now_ms)
{
	struct cth_packet *p = &c->pkt;
	struct keep_entry *e;
	uint8_t *buf;

	k->joined = NULL;
	if (!k->used)
		return;
	e = keep_find(k, p, now_ms);
	if (!e)
		return;
	/* Only the very next segment: a retransmission, a loss or a
	 * reordering shows this segment alone (no reassembly). */
	if (p->seq != e->next_seq) {
		log_debug("%s: %zu kept bytes dropped: segment %u, want %u",
			  c->inst->name, e->len, p->seq, e->next_seq);
		k->misses++;
		keep_drop(k, e);
		return;
	}
	buf = malloc(e->len + p->payload_len);
	if (!buf) {
		keep_drop(k, e);
		return;
	}
	memcpy(buf, e->bytes, e->len);
	memcpy(buf + e->len, p->payload, p->payload_len);
	c->join = buf;
	p->payload = buf;
	p->payload_len += e->len;
	p->kept = e->len;
	k->joined = e;
	k->joins++;
}

int keep_ask(struct pkt_call *c, size_t off)
{
	size_t n = c->pkt.payload_len - off;
	uint8_t *copy = NULL;

	if (n > KEEP_BYTES_MAX)
		return -ENOSPC;
	if (n) {
		copy = malloc(n);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, c->pkt.payload + off, n);
	}
	free(c->keep_copy);
	c->keep_copy = copy;
	c->keep_len = n;
	return 0;
}

void keep_done(struct keep *k, struct pkt_call *c, int verdict, uint64_t now_ms)
{
	struct keep_entry *e = k->joined;

	k->joined = NULL;
	if (c->detach) {
		/* the kernel stops queueing the connection: nothing would
		 * use them */
		for (unsigned int i = 0; i < KEEP_ENTRIES && k->used; i++)
			if (k->e[i].used && keep_same_conn(&k->e[i], &c->pkt))
				keep_drop(k, &k->e[i]);
		return;
	}
	/* a dropped packet was not forwarded: the sender retransmits it,
	 * with the same sequence number, and that one may use the entry */
	if (verdict == CTH_VERDICT_DROP)
		return;
	if (e)
		keep_drop(k, e);
	if (c->keep_copy) {
		keep_store(k, c, now_ms);
		c->kept_next = true;
	}
}

void keep_release(struct pkt_call *c)
{
	free(c->keep_copy);
	c->keep_copy = NULL;
	free(c->join);
	c->join = NULL;
}

void keep_free(struct keep *k)
{
	for (unsigned int i = 0; i < KEEP_ENTRIES; i++)
		if (k->e[i].used)
			keep_drop(k, &k->e[i]);
	k->joined = NULL;
}

/* This connection direction's entry; expired entries met on the way go. */
static struct keep_entry *keep_find(struct keep *k, const struct cth_packet *p,
				    uint64_t now_ms)
{
	struct keep_entry *found = NULL;

	for (unsigned int i = 0; i < KEEP_ENTRIES && k->used; i++) {
		struct keep_entry *e = &k->e[i];

		if (!e->used)
			continue;
		if (now_ms - e->stored_ms > KEEP_TTL_MS) {
			k->expired++;
			keep_drop(k, e);
		} else if (e->dir == p->dir && keep_same_conn(e, p)) {
			found = e;
		}
	}
	return found;
}

static bool keep_same_conn(const struct keep_entry *e, const struct cth_packet *p)
{
	return pkt_conn_is(p, e->id, e->zone, &e->orig);
}

static void keep_drop(struct keep *k, struct keep_entry *e)
{
	free(e->bytes);
	e->bytes = NULL;
	e->len = 0;
	e->used = false;
	k->used--;
}

static void keep_store(struct keep *k, struct pkt_call *c, uint64_t now_ms)
{
	const struct cth_packet *p = &c->pkt;
	struct keep_entry *e = keep_find(k, p, now_ms);

	if (e)
		keep_drop(k, e);
	e = keep_slot(k);
	e->used = true;
	k->used++;
	e->dir = (uint8_t)p->dir;
	e->zone = p->zone;
	e->id = p->ct_id;
	e->orig = p->tuple[CTH_DIR_ORIGINAL];
	e->next_seq = keep_seq_next(p);
	e->stored_ms = now_ms;
	e->bytes = c->keep_copy;
	e->len = c->keep_len;
	c->keep_copy = NULL;
}

/* A free entry, else the oldest one (its connection has most likely
 * moved on: a live one sends its next segment within an RTT). */
static struct keep_entry *keep_slot(struct keep *k)
{
	struct keep_entry *old = &k->e[0];

	for (unsigned int i = 0; i < KEEP_ENTRIES; i++) {
		if (!k->e[i].used)
			return &k->e[i];
		if (k->e[i].stored_ms < old->stored_ms)
			old = &k->e[i];
	}
	keep_evicted(k);
	keep_drop(k, old);
	return old;
}

/* Evicting kept bytes may cost a helper the start of a message: an
 * operator must see it (counted, logged at a bounded rate). */
static void keep_evicted(struct keep *k)
{
	int quiet;

	k->evictions++;
	quiet = log_rl_warn("kept bytes: all %u entries in use, the oldest evicted",
			    KEEP_ENTRIES);
	if (!k->stats)
		return;
	stats_add(&k->stats->q[STATS_Q_KEEP_EVICTED], 1);
	stats_add(&k->stats->q[STATS_Q_LOG_SUPPRESSED], (uint64_t)quiet);
}

/*
 * The sequence number of the segment that follows this one.  A SYN
 * occupies one sequence number before the data (RFC 9293, 3.4), and a
 * TCP Fast Open SYN carries data.
 */
static uint32_t keep_seq_next(const struct cth_packet *p)
{
	size_t own = p->payload_len - p->kept;
	uint32_t next = p->seq + (uint32_t)own;

	if (p->payload_offset - p->l4_offset >= 20 &&
	    (p->data[p->l4_offset + 13] & 0x02))
		next++;
	return next;
}
