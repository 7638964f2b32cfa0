/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_RELOAD_H
#define CTH_CTHELPER_RELOAD_H

#include "cthelper_owned.h"
#include "nlreq.h"
#include "runtime/runtime.h"

/*
 * Reload, before anything changes: can nrt's helpers be registered next
 * to what this process owns?  An owned helper may change its queue and
 * class limits (an update), not its private-state size or classes (the
 * kernel refuses: re-creating it would unhelp its connections); another
 * program's helper is refused as at start.  Logs each refusal; 0 or
 * -EEXIST.
 */
int cthelper_reload_check(struct nlreq *r, const struct runtime *nrt,
			  const struct cthelper_owned *owned);
/*
 * Reload, after the swap: register or update nrt's helpers ENABLED, then
 * disable the owned ones nrt no longer names.  They are deleted only at
 * stop, because deleting a kernel helper drops the packets queued on
 * every queue (docs/architecture.md, "Start and stop").  0 or the first
 * error (the others are still tried).
 */
int cthelper_reload_apply(struct nlreq *r, const struct runtime *nrt,
			  struct cthelper_owned *owned);

#endif
