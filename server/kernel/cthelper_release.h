/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_RELEASE_H
#define CTH_CTHELPER_RELEASE_H

#include "nlreq.h"
#include "record.h"
#include "runtime/runtime.h"

/*
 * --release: disable, then delete every configured kernel helper, whoever
 * registered it, and every one rec (a crashed daemon's record; NULL: none)
 * names that the configuration does not, if the kernel still sends it to
 * the recorded queue (else someone registered it since); each unless a
 * running cthelperd holds its share lock.  0 when all are gone; else a
 * negative errno (-EBUSY: one is still referenced by a rule and was left
 * disabled).
 */
int cthelper_release_all(struct nlreq *r, const struct runtime *rt,
			 const struct record *rec);

#endif
