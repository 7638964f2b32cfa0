/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_H
#define CTH_CTHELPER_H

#include <stdbool.h>
#include <stddef.h>

#include "cthelper_owned.h"
#include "nlreq.h"
#include "record.h"
#include "runtime/runtime.h"

/* Check every helper of a runtime against the kernel first (nothing is
 * changed when one belongs to another program: -EEXIST), then register
 * and enable them.  Registered ones are recorded in owned, each with its
 * share lock held (share.h).  Disable and delete skip a helper another
 * cthelperd still serves (share_last()). */
int cthelper_register_all(struct nlreq *r, const struct runtime *rt,
			  struct cthelper_owned *owned);
void cthelper_disable_all(struct nlreq *r, struct cthelper_owned *owned);
void cthelper_delete_all(struct nlreq *r, struct cthelper_owned *owned);

/*
 * `cthelperctl status`'s "ready": is every kernel helper of rt registered,
 * ENABLED and sending to its instance's queue?  Asks the kernel each time
 * (another daemon or a --release may have changed it).  why gets the
 * reason, or a summary when ready.
 */
bool cthelper_ready(struct nlreq *r, const struct runtime *rt, char *why,
		    size_t len);

/*
 * What the record (record.h) must name: every helper owned that this
 * daemon still has registered (not left to another daemon), and every one
 * rt is about to register: before a start's registration the latter, the
 * union during a reload.  0 or -ENOSPC.
 */
int cthelper_record_fill(const struct cthelper_owned *owned,
			 const struct runtime *rt, struct record *out);

#endif
