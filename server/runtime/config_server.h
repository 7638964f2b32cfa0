/* SPDX-License-Identifier: MIT */
#ifndef CTH_CONFIG_SERVER_H
#define CTH_CONFIG_SERVER_H

#include "config.h"

/* The keys [server] accepts: the parser looks them up here, and
 * tests/unit/test_docs.c checks that cthelperd.conf(5) documents each. */
extern const struct cfg_key cfg_server_keys[];

/* Set key k of [server] to v: 0 (an unknown key or a bad value is
 * reported and counted) or a negative errno that stops the parse. */
int cfg_server_key(struct cfg_parse *p, const char *k, const char *v);

#endif
