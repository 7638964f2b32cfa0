/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real mdns plugin (plugins/mdns/, linked in)
 * through the plugin kit's harness with the link view: queries to the
 * group from this host or arriving, IPv4 and IPv6, from port 5353 or
 * another, unicast, answers (expected flows); answers = link and any,
 * outgoing or incoming off.  Input layout and invariants: fuzz_lanq.h.
 */
#include <cthelperd/plugin.h>

static const char *const lanq_conns[] = {
	"udp 10.0.1.1:40000 > 224.0.0.251:5353",
	"udp [fe80::1]:40000 > [ff02::fb]:5353",
	"udp 10.0.1.1:5353 > 224.0.0.251:5353",
	"udp 10.0.1.1:40000 > 10.0.1.2:5353",
	"udp 10.0.1.2:5353 > 10.0.1.1:40000 expected",
};
static const char *const lanq_links[] = {
	"in 0 out 2 net 10.0.1.0/24 dst multicast",
	"in 0 out 2 net fe80::/64 dst multicast",
	"in 2 out 0 net 10.0.1.0/24 dst multicast",
	"in 0 out 2",
	"in 1 out 2",
};
static const char *const s_default[] = { NULL };
static const char *const s_any[] = { "answers=any", NULL };
static const char *const s_out[] = { "outgoing=no", NULL };
static const char *const s_in[] = { "incoming=no", "answers=any", NULL };
static const char *const *const lanq_settings[] = { s_default, s_any, s_out, s_in };
static const bool lanq_any[] = { false, true, false, true };
#define LANQ_FUZZ_NAME "fuzz_mdns"

#include "fuzz_lanq.h"
