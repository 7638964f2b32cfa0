/* SPDX-License-Identifier: MIT */
/*
 * The link view (host/link.c): the destination's kind, and the network
 * the answers come from by plugin.h's rules in their order (a primary
 * address's broadcast, the address holding the source, IPv6 link-local,
 * the interface's first address), on a table of two interfaces; then the
 * daemon's side on this machine's own addresses (kernel/addrtab.c,
 * worker/worker_link.c): loopback is there, with no broadcast address
 * given.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "base/log.h"
#include "worker/worker_link.h"

/* eth 2: 10.0.1.1/24 (brd given), 10.0.9.1/24 secondary, 10.0.5.1/30 (no
 * brd); fe80::1/64 link, fd00:1::1/64 global.  eth 3: 10.0.2.1/24 (a
 * second primary follows), fd00:2::1/64. */
static struct link_addr tab[16];
static size_t n_tab;

static void add(uint32_t ifindex, const char *addr, unsigned int prefix, const char *brd,
		bool secondary, uint8_t scope)
{
	struct link_addr *a = &tab[n_tab++];

	memset(a, 0, sizeof(*a));
	a->ifindex = ifindex;
	a->family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	a->prefix = (uint8_t)prefix;
	a->secondary = secondary;
	a->scope = scope;
	inet_pton(a->family, addr, a->addr.raw);
	if (brd) {
		a->has_brd = true;
		inet_pton(AF_INET, brd, a->brd.raw);
	}
}

static void table(void)
{
	n_tab = 0;
	add(2, "10.0.1.1", 24, "10.0.1.255", false, 0);
	add(2, "10.0.9.1", 24, "10.0.9.255", true, 0);
	add(2, "10.0.5.1", 30, NULL, false, 0);
	add(2, "fe80::1", 64, NULL, false, 253);
	add(2, "fd00:1::1", 64, NULL, false, 0);
	add(3, "10.0.2.1", 24, "10.0.2.255", false, 0);
	add(3, "10.0.3.1", 24, "10.0.3.255", false, 0);
	add(3, "fd00:2::1", 64, NULL, false, 0);
}

struct row {
	const char *name;
	uint32_t in, out;
	const char *src, *dst;
	uint8_t kind;
	const char *net;        /* NULL: none */
	unsigned int prefix;
};

static const struct row rows[] = {
	/* this host's own queries, leaving by eth 2 */
	{ "link/local-subnet-broadcast", 0, 2, "10.0.1.1", "10.0.1.255", CTH_DST_BROADCAST,
	  "10.0.1.0", 24 },
	{ "link/local-broadcast-computed (no IFA_BROADCAST)", 0, 2, "10.0.5.1", "10.0.5.3",
	  CTH_DST_BROADCAST, "10.0.5.0", 30 },
	/* a secondary network's broadcast is one, but only the kernel's
	 * primary rule names a network: then the source's */
	{ "link/secondary-broadcast", 0, 2, "10.0.1.1", "10.0.9.255", CTH_DST_BROADCAST,
	  "10.0.1.0", 24 },
	{ "link/local-all-ones", 0, 2, "10.0.1.1", "255.255.255.255", CTH_DST_BROADCAST_ALL,
	  "10.0.1.0", 24 },
	{ "link/local-multicast-from-secondary", 0, 2, "10.0.9.1", "239.255.255.250",
	  CTH_DST_MULTICAST, "10.0.9.0", 24 },
	{ "link/local-v6-multicast", 0, 2, "fd00:1::1", "ff02::c", CTH_DST_MULTICAST,
	  "fd00:1::", 64 },
	{ "link/v6-link-local-source", 0, 2, "fe80::1", "ff02::1:2", CTH_DST_MULTICAST,
	  "fe80::", 64 },
	/* forwarded from eth 3 out of eth 2: the out side's network */
	{ "link/forwarded-other-network-first-primary", 3, 2, "10.0.2.7", "239.255.255.250",
	  CTH_DST_MULTICAST, "10.0.1.0", 24 },
	{ "link/forwarded-v6-first-global", 3, 2, "fd00:2::7", "ff05::c", CTH_DST_MULTICAST,
	  "fd00:1::", 64 },
	/* delivered to this host from eth 3: the in side, the sender's net */
	{ "link/delivered-source-network", 3, 0, "10.0.3.9", "10.0.3.1", CTH_DST_UNICAST,
	  "10.0.3.0", 24 },
	{ "link/delivered-broadcast", 3, 0, "10.0.2.9", "10.0.2.255", CTH_DST_BROADCAST,
	  "10.0.2.0", 24 },
	/* an interface the table does not hold: no network */
	{ "link/unknown-interface", 0, 7, "10.0.1.1", "10.0.1.255", CTH_DST_UNICAST, NULL, 0 },
	{ "link/no-interface", 0, 0, "10.0.1.1", "10.0.1.255", CTH_DST_UNICAST, NULL, 0 },
};

static void row_check(const struct row *r)
{
	int f = strchr(r->src, ':') ? AF_INET6 : AF_INET;
	struct link_pkt p = { .in_ifindex = r->in, .out_ifindex = r->out, .family = f };
	union cth_addr want = { 0 };
	struct cth_link l;
	struct check c;

	inet_pton(f, r->src, p.src.raw);
	inet_pton(f, r->dst, p.dst.raw);
	memset(&l, 0xaa, sizeof(l));
	link_fill(&l, &p, tab, n_tab);
	check_start(&c, "%s", r->name);
	check_that(&c, l.in_ifindex == r->in && l.out_ifindex == r->out, "in %u out %u",
		   l.in_ifindex, l.out_ifindex);
	check_that(&c, l.dst_kind == r->kind, "kind %u, want %u", l.dst_kind, r->kind);
	check_that(&c, l.net_prefix == r->prefix, "prefix %u, want %u", l.net_prefix, r->prefix);
	if (r->net)
		inet_pton(f, r->net, want.raw);
	check_that(&c, memcmp(&l.net, &want, sizeof(want)) == 0, "net");
	check_end(&c);
}

/* The daemon's side on this machine: loopback, 127.0.0.1/8 with no
 * broadcast address given, interface 1; read once a second at most. */
static void test_daemon(void)
{
	struct worker_link wl;
	struct pkt_call call;
	struct cth_link l;
	struct check c;
	int rc;

	worker_link_init(&wl, 1);
	memset(&call, 0, sizeof(call));
	call.link_backend = &wl;
	call.out_ifindex = 1;
	call.pkt.tuple[0].family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", call.pkt.tuple[0].src.raw);
	inet_pton(AF_INET, "127.255.255.255", call.pkt.tuple[0].dst.raw);
	worker_link_now(&wl, 5000);
	check_start(&c, "link/daemon-addresses");
	rc = worker_link_fn(&call, &l);
	check_ret(&c, rc, 0);
	check_that(&c, wl.n > 0 && wl.tab.left_out == 0, "%zu addresses", wl.n);
	check_that(&c, l.out_ifindex == 1 && l.dst_kind == CTH_DST_BROADCAST &&
		   l.net_prefix == 8 && l.net.ip == htonl(0x7f000000),
		   "loopback: kind %u /%u", l.dst_kind, l.net_prefix);
	/* the copy is kept for a second */
	wl.n = 0;
	worker_link_now(&wl, 5999);
	worker_link_fn(&call, &l);
	check_that(&c, wl.n == 0 && l.net_prefix == 0, "read again within the second");
	worker_link_now(&wl, 6000);
	worker_link_fn(&call, &l);
	check_that(&c, wl.n > 0 && l.net_prefix == 8, "not read again after it");
	check_end(&c);
	worker_link_free(&wl);
}

int main(void)
{
	log_init(LOG_L_ERR, 0);
	table();
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		row_check(&rows[i]);
	test_daemon();
	return check_exit();
}
