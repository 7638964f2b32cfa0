/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real dhcpv6 plugin (plugins/dhcpv6/, linked in)
 * through the plugin kit's harness with the link view: client messages
 * to ff02::1:2 from port 546 or another, unicast to a server, answers;
 * answers = link (fe80::/10) and any, outgoing or incoming off.  Input
 * layout and invariants: fuzz_lanq.h.
 */
#include <cthelperd/plugin.h>

static const char *const lanq_conns[] = {
	"udp [fe80::2]:546 > [ff02::1:2]:547",
	"udp [fd00:1::2]:40000 > [ff02::1:2]:547",
	"udp [fe80::2]:546 > [fe80::1]:547",
	"udp [fd00:1::2]:546 > [ff05::1:3]:547",
	"udp [fe80::1]:547 > [fe80::2]:546 expected",
};
static const char *const lanq_links[] = {
	"in 0 out 2 net fe80::/64 dst multicast",
	"in 2 out 0 net fe80::/64 dst multicast",
	"in 0 out 2",
	"in 1 out 2",
};
static const char *const s_default[] = { NULL };
static const char *const s_any[] = { "answers=any", NULL };
static const char *const s_out[] = { "outgoing=no", NULL };
static const char *const s_in[] = { "incoming=no", "answers=any", NULL };
static const char *const *const lanq_settings[] = { s_default, s_any, s_out, s_in };
static const bool lanq_any[] = { false, true, false, true };
#define LANQ_FUZZ_NAME "fuzz_dhcpv6"

#include "fuzz_lanq.h"
