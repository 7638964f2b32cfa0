/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_OWNED_H
#define CTH_CTHELPER_OWNED_H

#include <stdbool.h>
#include <stdint.h>

#include "cthelper_tuple.h"
#include "runtime/config.h"
#include "runtime/runtime.h"

/* The kernel helpers this process registered, by name and tuple (a
 * reload changes the runtime): only these are disabled and deleted. */
#define CTHELPER_OWNED_MAX (4 * CFG_MAX_HELPERS * CTHELPER_N_TUPLES)
struct cthelper_owned_entry {
	char name[CTH_NAME_LEN];
	int family, proto;
	uint16_t queue;   /* as registered, for the record (record.h) */
	bool enabled;     /* false: removed by a reload, deleted at stop */
	bool left;        /* another cthelperd serves it: not ours to undo */
	int lock;         /* share.h descriptor, -1: none held */
};
struct cthelper_owned {
	size_t n;
	/* share.h: where daemons that serve one helper meet ("": nowhere),
	 * the first registration's (a reload does not move it) */
	char share_dir[CFG_SHARE_DIR_MAX];
	struct cthelper_owned_entry h[CTHELPER_OWNED_MAX];
};

/* The entry of (name, family, proto), or NULL. */
struct cthelper_owned_entry *cthelper_owned_find(const struct cthelper_owned *owned,
						 const char *name, int family,
						 int proto);
/*
 * Remember tuple t of in as registered (enabled), with the share lock
 * cthelper_owned_share_hold() gave (kept, or closed on failure): 0, or
 * -ENOSPC (logged) after CTHELPER_OWNED_MAX distinct ones (each name
 * and tuple is remembered once).
 */
int cthelper_owned_record(struct cthelper_owned *owned, const struct instance *in,
			  const struct cthelper_tuple *t, int lock);

/*
 * The share lock (share.h) for a helper about to be registered: held
 * before the NEW, so that a daemon deleting it as the last one out
 * (under the exclusive lock) is done first.  -1 when not shared or
 * already held.
 */
int cthelper_owned_share_hold(const struct cthelper_owned *owned,
			      const char *name, int family, int proto);
/*
 * On the way out of a helper (stop, or a reload that drops it): may this
 * daemon disable and delete it?  Not while another cthelperd holds its
 * share lock: disabling is global, and that daemon's namespace still
 * needs it.  When true, e->lock holds the lock exclusively (or sharing
 * is off); when false, e is marked left and its lock closed.
 */
bool cthelper_owned_share_last(const struct cthelper_owned *owned,
			       struct cthelper_owned_entry *e);
/* Let e's share lock go (other daemons may hold the helper again). */
void cthelper_owned_share_drop(struct cthelper_owned_entry *e);

#endif
