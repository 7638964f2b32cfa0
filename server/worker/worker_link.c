/* SPDX-License-Identifier: MIT */
/*
 * cth_link() in the daemon (worker_link.h): the queue message's
 * interfaces, the worker's copy of the host's addresses, host/link.c.
 */
#include <string.h>

#include "worker_link.h"
#include "base/log.h"

static int worker_link_fresh(struct worker_link *l);
static void worker_link_copy(struct worker_link *l);

void worker_link_init(struct worker_link *l, uint16_t queue)
{
	memset(l, 0, sizeof(*l));
	l->queue = queue;
}

void worker_link_free(struct worker_link *l)
{
	addrtab_close(&l->tab);
}

void worker_link_now(struct worker_link *l, uint64_t now_ms)
{
	l->now_ms = now_ms;
}

int worker_link_fn(struct pkt_call *c, struct cth_link *link)
{
	struct worker_link *l = c->link_backend;
	const struct cth_tuple *t = &c->pkt.tuple[c->pkt.dir];
	struct link_pkt p = {
		.in_ifindex = c->in_ifindex, .out_ifindex = c->out_ifindex,
		.family = t->family, .src = t->src, .dst = t->dst,
	};
	int rc = worker_link_fresh(l);

	/* a failed read still gives the interfaces, no network */
	link_fill(link, &p, l->addr, rc < 0 ? 0 : l->n);
	return rc < 0 ? rc : 0;
}

/* The addresses, read again when the copy is too old; a failed read is
 * kept as long as a good one, so a broken socket is not retried per
 * packet. */
static int worker_link_fresh(struct worker_link *l)
{
	if (l->read && l->now_ms - l->read_ms < WORKER_LINK_TTL_MS)
		return l->rc;
	l->read = true;
	l->read_ms = l->now_ms;
	l->rc = addrtab_read(&l->tab);
	if (l->rc < 0) {
		l->n = 0;
		log_rl_warn("queue %u: the link view could not read the interface addresses: %s",
			    l->queue, strerror(-l->rc));
		return l->rc;
	}
	worker_link_copy(l);
	if (l->tab.left_out && !l->warned) {
		l->warned = true;
		log_warn("queue %u: the link view holds %u interface addresses; %u more are "
			 "left out", l->queue, ADDRTAB_MAX, l->tab.left_out);
	}
	return 0;
}

static void worker_link_copy(struct worker_link *l)
{
	for (size_t i = 0; i < l->tab.n; i++) {
		const struct addrtab_addr *a = &l->tab.a[i];

		l->addr[i] = (struct link_addr){
			.ifindex = a->ifindex, .family = a->family, .prefix = a->prefix,
			.scope = a->scope, .secondary = a->secondary, .has_brd = a->has_brd,
			.addr = a->addr, .brd = a->brd,
		};
	}
	l->n = l->tab.n;
}
