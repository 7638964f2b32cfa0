/* SPDX-License-Identifier: MIT */
/* The daemon's side of the plugins' match rules: see prefilter.h. */
#include <netinet/in.h>
#include <string.h>

#include "prefilter.h"
#include "host/packet.h"

static bool prefilter_open_take(struct prefilter *f, const struct cth_packet *p,
				uint64_t now_ms);
static bool prefilter_open_put(struct prefilter *f, const struct cth_packet *p,
			       uint64_t now_ms);
static void prefilter_drop(struct prefilter *f, struct prefilter_entry *e);

bool prefilter_wanted(struct prefilter *f, const struct cthd_rules *rs,
		      const struct cth_packet *p, uint64_t now_ms, bool *evicted)
{
	bool tcp = p->tuple[CTH_DIR_ORIGINAL].proto == IPPROTO_TCP;
	bool open, cont;

	*evicted = false;
	if (!rs || !rs->n || !p->payload_len)
		return true;
	if ((rs->flags & CTHD_MATCH_F_NAT_ALL) && (p->nat & (CTH_NAT_SRC | CTH_NAT_DST)))
		return true;
	if (!tcp)
		return cthd_match_flat(rs, p->dir, true, p->payload, p->payload_len);
	open = p->payload[p->payload_len - 1] != '\n';
	cont = f->used && prefilter_open_take(f, p, now_ms);
	if (open)
		*evicted = prefilter_open_put(f, p, now_ms);
	return open || cont || cthd_match_flat(rs, p->dir, true, p->payload, p->payload_len);
}

bool prefilter_kept(struct prefilter *f, const struct cth_packet *p, uint64_t now_ms)
{
	if (p->tuple[CTH_DIR_ORIGINAL].proto != IPPROTO_TCP)
		return false;
	/* an open line already left its entry (prefilter_wanted()) */
	if (f->used)
		prefilter_open_take(f, p, now_ms);
	return prefilter_open_put(f, p, now_ms);
}

/* The entry this segment continues, if any: used up.  Expired entries
 * met on the way go. */
static bool prefilter_open_take(struct prefilter *f, const struct cth_packet *p,
				uint64_t now_ms)
{
	bool found = false;

	for (unsigned int i = 0; i < PREFILTER_ENTRIES && f->used; i++) {
		struct prefilter_entry *e = &f->e[i];

		if (!e->used)
			continue;
		if (now_ms - e->stored_ms > PREFILTER_TTL_MS) {
			prefilter_drop(f, e);
		} else if (e->dir == p->dir && pkt_conn_is(p, e->id, e->zone, &e->orig)) {
			/* a retransmission of the open segment or a later one:
			 * passed all the same (cheaper than a wrong skip) */
			found = (int32_t)(p->seq - e->next_seq) >= 0 ||
				(int32_t)(p->seq + (uint32_t)p->payload_len - e->next_seq) > 0;
			prefilter_drop(f, e);
		}
	}
	return found;
}

/* Remember that p's direction has a line open; true when the oldest
 * entry had to go for it. */
static bool prefilter_open_put(struct prefilter *f, const struct cth_packet *p,
			       uint64_t now_ms)
{
	struct prefilter_entry *e = NULL, *old = &f->e[0];
	bool evicted = false;

	for (unsigned int i = 0; i < PREFILTER_ENTRIES; i++) {
		if (!f->e[i].used) {
			e = &f->e[i];
			break;
		}
		if (f->e[i].stored_ms < old->stored_ms)
			old = &f->e[i];
	}
	if (!e) {
		prefilter_drop(f, old);
		f->evictions++;
		evicted = true;
		e = old;
	}
	*e = (struct prefilter_entry){
		.used = true,
		.dir = (uint8_t)p->dir,
		.zone = p->zone,
		.id = p->ct_id,
		.orig = p->tuple[CTH_DIR_ORIGINAL],
		.next_seq = p->seq + (uint32_t)p->payload_len,
		.stored_ms = now_ms,
	};
	f->used++;
	return evicted;
}

static void prefilter_drop(struct prefilter *f, struct prefilter_entry *e)
{
	e->used = false;
	f->used--;
}
