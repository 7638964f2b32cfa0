/* SPDX-License-Identifier: MIT */
#ifndef CTH_SHOW_H
#define CTH_SHOW_H

#include <stdio.h>

#include "runtime/runtime.h"

/*
 * What cthelperd -n prints after its "configuration OK" line: per
 * [helper] section, its plugin (name, version, ABI), protocols, families,
 * queue(s) and shards, expectation classes with their policy, and each
 * key the plugin declares with its effective value, type, default and
 * doc (a plugin that declares none: the section's keys as handed to it).
 */
void show_print(FILE *out, const struct runtime *rt);

#endif
