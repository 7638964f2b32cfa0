/* SPDX-License-Identifier: MIT */
#ifndef CTH_RULES_H
#define CTH_RULES_H

#include <stdio.h>

#include "runtime/runtime.h"

enum rules_kind {
	RULES_NFT,
	RULES_IPTABLES,
};

/* "nft" or "iptables" to its kind; -EINVAL for anything else. */
int rules_kind_parse(const char *s);

/*
 * Print the firewall rules that attach rt's helpers (cthelperd
 * --print-rules).  Ports come from each helper's rule_ports key, else the
 * key its plugin declares CTH_KEY_RULE_PORTS; a helper with neither gets
 * its rule commented out with a note to set rule_ports.  Returns 0 or a
 * negative errno (-EIO when out could not be written).
 */
int rules_print(FILE *out, const struct runtime *rt, enum rules_kind kind);

#endif
