/* SPDX-License-Identifier: MIT */
/*
 * server/exprepair.c's mapping for an expectation a failover peer's
 * conntrackd committed without its NAT: derived from the master's own
 * NAT, only for the address that NAT made or hid.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "check.h"
#include "exprepair.h"

static struct cth_tuple tup(const char *s, uint16_t sp, const char *d, uint16_t dp)
{
	struct cth_tuple t = { .family = AF_INET, .proto = IPPROTO_UDP,
			       .sport = sp, .dport = dp };

	inet_pton(AF_INET, s, &t.src.ip);
	inet_pton(AF_INET, d, &t.dst.ip);
	return t;
}

static bool addr_is(const union cth_addr *a, const char *s)
{
	uint32_t ip;

	inet_pton(AF_INET, s, &ip);
	return a->ip == ip;
}

int main(void)
{
	struct exprepair_nat nat;
	/* phone 10.0.1.2 SNATed to 10.0.2.100, registrar 10.0.2.2 */
	struct cth_tuple o = tup("10.0.1.2", 5060, "10.0.2.2", 5060);
	struct cth_tuple r = tup("10.0.2.2", 5060, "10.0.2.100", 5060);
	struct cth_tuple e = tup("10.0.2.2", 0, "10.0.2.100", 5060);
	struct cth_tuple routed = tup("10.0.2.2", 5060, "10.0.1.2", 5060);
	/* client 10.0.1.2 dials 10.0.1.1, DNATed to the server 10.0.2.2 */
	struct cth_tuple dno = tup("10.0.1.2", 40000, "10.0.1.1", 21);
	struct cth_tuple dnr = tup("10.0.2.2", 21, "10.0.1.2", 40000);
	struct cth_tuple dne = tup("10.0.1.2", 0, "10.0.1.1", 50000);

	CHECK("exprepair/snat", exprepair_derive(&o, &r, &e, &nat) &&
	      nat.dir == CTH_DIR_REPLY && addr_is(&nat.addr, "10.0.1.2") && nat.port == 5060,
	      "no or a wrong mapping");
	e.dport = 40002;
	CHECK("exprepair/snat-port-kept", exprepair_derive(&o, &r, &e, &nat) &&
	      nat.port == 40002, "port %u", nat.port);
	e = tup("10.0.2.2", 0, "10.0.2.7", 5060);
	CHECK("exprepair/snat-other-address", !exprepair_derive(&o, &r, &e, &nat),
	      "an address the master's NAT did not make was mapped");
	e = tup("10.0.2.2", 0, "10.0.1.2", 5060);
	CHECK("exprepair/routed", !exprepair_derive(&o, &routed, &e, &nat),
	      "a master without NAT gave a mapping");
	CHECK("exprepair/dnat", exprepair_derive(&dno, &dnr, &dne, &nat) &&
	      nat.dir == CTH_DIR_ORIGINAL && addr_is(&nat.addr, "10.0.2.2") &&
	      nat.port == 50000, "no or a wrong mapping");
	dne.family = AF_INET6;
	CHECK("exprepair/family", !exprepair_derive(&dno, &dnr, &dne, &nat),
	      "an IPv6 expectation of an IPv4 master was mapped");
	return check_exit();
}
