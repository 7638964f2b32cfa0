/* SPDX-License-Identifier: MIT */
/*
 * A sandboxed helper's plugin, read without running any of its code in
 * the daemon (docs/security.md): a sandbox started in describe mode
 * (chan.h CHAN_MODE_DESCRIBE) loads it confined as a serving one does
 * and answers its descriptor, which the daemon checks as the loader
 * checks a loaded one (describe_wire.h).  The spawner must be open.
 */
#ifndef CTH_DESCRIBE_H
#define CTH_DESCRIBE_H

#include <stddef.h>

#include "runtime/loader.h"

/* DIR/NAME.so described: as loader_load() (struct cfg::describe), but
 * the plugin it makes is described (no code, its functions NULL). */
int sandbox_describe(const char *dir, const char *name, struct plugin **out, char *err,
		     size_t errlen);

#endif
