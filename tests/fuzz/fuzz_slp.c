/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real slp plugin (plugins/slp/, linked in) through
 * the plugin kit's harness with the link view: requests to the SLP groups
 * (IPv4, ff02::116, ff05::116), to a subnet broadcast and to
 * 255.255.255.255, unicast, answers; answers = link and any, outgoing or
 * incoming off.  Input layout and invariants: fuzz_lanq.h.
 */
#include <cthelperd/plugin.h>

static const char *const lanq_conns[] = {
	"udp 10.0.1.1:40000 > 239.255.255.253:427",
	"udp [fd00:1::1]:40000 > [ff02::116]:427",
	"udp [fd00:1::1]:40000 > [ff05::116]:427",
	"udp 10.0.1.1:40000 > 10.0.1.255:427",
	"udp 10.0.1.1:40000 > 255.255.255.255:427",
	"udp 10.0.1.1:40000 > 10.0.1.2:427",
	"udp 10.0.1.2:427 > 10.0.1.1:40000 expected",
};
static const char *const lanq_links[] = {
	"in 0 out 2 net 10.0.1.0/24 dst multicast",
	"in 0 out 2 net fd00:1::/64 dst multicast",
	"in 0 out 2 net 10.0.1.0/24 dst broadcast",
	"in 0 out 2 net 10.0.1.0/24 dst broadcast-all",
	"in 2 out 0 net 10.0.1.0/24",
	"in 0 out 2",
	"in 1 out 2",
};
static const char *const s_default[] = { NULL };
static const char *const s_any[] = { "answers=any", NULL };
static const char *const s_out[] = { "outgoing=no", NULL };
static const char *const s_in[] = { "incoming=no", "answers=any", NULL };
static const char *const *const lanq_settings[] = { s_default, s_any, s_out, s_in };
static const bool lanq_any[] = { false, true, false, true };
#define LANQ_FUZZ_NAME "fuzz_slp"

#include "fuzz_lanq.h"
