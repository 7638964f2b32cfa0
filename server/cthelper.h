/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_H
#define CTH_CTHELPER_H

#include <libmnl/libmnl.h>
#include <stdint.h>

#include "nlreq.h"
#include "runtime.h"

/* Create or update (a NEW for an existing name is an update) the kernel
 * helper for one (family, protocol) of an instance. */
int cthelper_register(struct nlreq *r, const struct instance *in, int family,
		      int proto, uint32_t status);
int cthelper_delete(struct nlreq *r, const char *name, int family, int proto);
/* Why a registration failed, in operator terms. */
const char *cthelper_explain(int err);

/* Register/disable/delete every kernel helper of a runtime. */
int cthelper_register_all(struct nlreq *r, const struct runtime *rt);
void cthelper_disable_all(struct nlreq *r, const struct runtime *rt);
void cthelper_delete_all(struct nlreq *r, const struct runtime *rt);

#endif
