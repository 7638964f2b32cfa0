/* SPDX-License-Identifier: MIT */
/*
 * The kernel helpers this process registered, and the share lock it
 * holds on each (share.h): what a stop or a reload may undo, and whether
 * another cthelperd still serves it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "cthelper_owned.h"
#include "share.h"

static int cthelper_owned_add(struct cthelper_owned *owned, const char *name,
			      int family, int proto, uint16_t queue, int lock);

struct cthelper_owned_entry *cthelper_owned_find(const struct cthelper_owned *owned,
						 const char *name, int family,
						 int proto)
{
	for (size_t i = 0; i < owned->n; i++) {
		const struct cthelper_owned_entry *e = &owned->h[i];

		if (e->family == family && e->proto == proto && strcmp(e->name, name) == 0)
			return (struct cthelper_owned_entry *)e;
	}
	return NULL;
}

int cthelper_owned_record(struct cthelper_owned *owned, const struct instance *in,
			  const struct cthelper_tuple *t, int lock)
{
	if (cthelper_owned_add(owned, in->name, t->family, t->proto, in->queue, lock) == 0)
		return 0;
	if (lock >= 0)
		close(lock);
	/* unreachable with sane configs; a stop would leave it enabled */
	log_err("helper '%s' (%s/%s): too many helpers registered in one run to "
		"remember: it stays registered at stop ('cthelperd --release')",
		in->name, cthelper_tuple_fam(t->family), cthelper_tuple_proto(t->proto));
	return -ENOSPC;
}

int cthelper_owned_share_hold(const struct cthelper_owned *owned,
			      const char *name, int family, int proto)
{
	const struct cthelper_owned_entry *e = cthelper_owned_find(owned, name, family, proto);
	int fd;

	if (!owned->share_dir[0] || (e && e->lock >= 0))
		return -1;
	fd = share_hold(owned->share_dir, name, family, proto);
	if (fd < 0)
		log_warn("helper '%s' (%s/%s): not shared with other cthelperd (%s/: %s): "
			 "a clean stop deletes it even if another namespace's daemon serves it",
			 name, cthelper_tuple_fam(family), cthelper_tuple_proto(proto),
			 owned->share_dir, strerror(-fd));
	return fd;
}

bool cthelper_owned_share_last(const struct cthelper_owned *owned,
			       struct cthelper_owned_entry *e)
{
	bool last = true;
	int fd;

	if (e->lock >= 0) {
		last = share_last(e->lock);
	} else if (owned->share_dir[0]) {
		int rc = share_probe(owned->share_dir, e->name, e->family, e->proto, &fd);

		if (rc == 1)
			e->lock = fd;
		last = rc != 0;
	}
	if (last)
		return true;
	cthelper_owned_share_drop(e);
	e->left = true;
	log_notice("helper '%s' (%s/%s) left registered and enabled: another cthelperd "
		   "still serves it (from another network namespace; it holds its lock "
		   "in %s/)", e->name, cthelper_tuple_fam(e->family),
		   cthelper_tuple_proto(e->proto), owned->share_dir);
	return false;
}

void cthelper_owned_share_drop(struct cthelper_owned_entry *e)
{
	if (e->lock >= 0)
		close(e->lock);
	e->lock = -1;
}

static int cthelper_owned_add(struct cthelper_owned *owned, const char *name,
			      int family, int proto, uint16_t queue, int lock)
{
	struct cthelper_owned_entry *e = cthelper_owned_find(owned, name, family, proto);

	if (!e) {
		if (owned->n == CTHELPER_OWNED_MAX)
			return -ENOSPC;
		e = &owned->h[owned->n++];
		snprintf(e->name, sizeof(e->name), "%s", name);
		e->family = family;
		e->proto = proto;
		e->lock = -1;
	}
	e->queue = queue;
	if (lock >= 0) {
		if (e->lock >= 0)
			close(e->lock);
		e->lock = lock;
	}
	e->enabled = true;
	e->left = false;
	return 0;
}
