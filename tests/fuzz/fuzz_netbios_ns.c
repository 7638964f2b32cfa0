/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the real netbios-ns plugin (plugins/netbios-ns/,
 * linked in) through the plugin kit's harness with the link view: name
 * queries this host broadcasts (a subnet, 255.255.255.255) or that
 * arrive, unicast, answers; answers = link and any, incoming on,
 * broadcast_all off, another timeout.  Input layout and invariants:
 * fuzz_lanq.h.
 */
#include <cthelperd/plugin.h>

static const char *const lanq_conns[] = {
	"udp 10.0.1.1:40000 > 10.0.1.255:137",
	"udp 10.0.1.1:137 > 10.0.1.255:137",
	"udp 10.0.1.1:40000 > 255.255.255.255:137",
	"udp 10.0.1.1:40000 > 10.0.1.2:137",
	"udp 10.0.1.2:137 > 10.0.1.1:40000 expected",
};
static const char *const lanq_links[] = {
	"in 0 out 2 net 10.0.1.0/24 dst broadcast",
	"in 0 out 2 net 10.0.1.0/24 dst broadcast-all",
	"in 2 out 0 net 10.0.1.0/24 dst broadcast",
	"in 0 out 2 dst broadcast",
	"in 0 out 2",
	"in 1 out 2",
};
static const char *const s_default[] = { NULL };
static const char *const s_any[] = { "answers=any", "incoming=yes", NULL };
static const char *const s_no_all[] = { "broadcast_all=no", "timeout=60", NULL };
static const char *const s_in[] = { "incoming=yes", "outgoing=no", NULL };
static const char *const *const lanq_settings[] = { s_default, s_any, s_no_all, s_in };
static const bool lanq_any[] = { false, true, false, false };
#define LANQ_FUZZ_NAME "fuzz_netbios_ns"

#include "fuzz_lanq.h"
