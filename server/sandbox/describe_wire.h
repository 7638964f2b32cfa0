/* SPDX-License-Identifier: MIT */
/*
 * A described plugin's wire form (chan.h struct chan_describe), both
 * ways: the sandbox puts the struct plugin its loader made, pointers
 * zeroed; the daemon takes its own copy of that as hostile and makes a
 * struct plugin of it that no code backs (loader.h: described).
 */
#ifndef CTH_DESCRIBE_WIRE_H
#define CTH_DESCRIBE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "chan.h"
#include "runtime/loader.h"

/* The sandbox's side: pl (loaded) into w, no pointer of it along. */
void describe_wire_put(struct chan_describe *w, const struct plugin *pl);
/*
 * The daemon's side: w, a copy only this thread can see, into a new
 * struct plugin for the file at path, which the daemon checked (dev,
 * ino), loaded as name: every string terminated, every pointer bound to
 * the plugin's own arrays, every function pointer NULL, and the loader's
 * checks made.  0 and *out, or a negative errno with err saying why, as
 * the loader says it.
 */
int describe_wire_take(const struct chan_describe *w, const char *path, const char *name,
		       uint64_t dev, uint64_t ino, struct plugin **out, char *err,
		       size_t errlen);

#endif
