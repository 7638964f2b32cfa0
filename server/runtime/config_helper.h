/* SPDX-License-Identifier: MIT */
#ifndef CTH_CONFIG_HELPER_H
#define CTH_CONFIG_HELPER_H

#include "config.h"

/* The daemon keys [helper NAME] accepts: the parser looks them up here,
 * and tests/unit/test_docs.c checks that cthelperd.conf(5) documents
 * each.  policy.CLASS.* and plugin keys are patterns, not names. */
extern const struct cfg_key cfg_helper_keys[];

/* Set key k of the current [helper NAME] (p->cur) to v: a daemon key,
 * policy.CLASS.max / policy.CLASS.timeout, or else a plugin option kept
 * for the plugin's configure().  0 (a bad value is reported and
 * counted) or a negative errno that stops the parse. */
int cfg_helper_key(struct cfg_parse *p, const char *k, const char *v);

#endif
