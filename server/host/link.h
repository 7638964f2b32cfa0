/* SPDX-License-Identifier: MIT */
/*
 * The link view of a packet (cth_link(), plugin.h): from the interfaces
 * it came in and leaves by, its addresses and a list of this host's
 * interface addresses, what its destination is and which network the
 * answers to it come from.  Pure: the daemon's address table
 * (kernel/addrtab.c), the replay tool's emulated link and plugtest hand
 * in their own lists.
 */
#ifndef CTH_LINK_H
#define CTH_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/* One address of one of this host's interfaces, as rtnetlink lists it. */
struct link_addr {
	uint32_t ifindex;
	uint8_t family;         /* AF_INET or AF_INET6 */
	uint8_t prefix;         /* IFA prefix length */
	uint8_t scope;          /* RT_SCOPE_*: 0 universe (global) */
	bool secondary;         /* IFA_F_SECONDARY */
	bool has_brd;           /* IPv4: IFA_BROADCAST was given */
	union cth_addr addr;
	union cth_addr brd;     /* IPv4: IFA_BROADCAST */
};

/* The packet as the link view needs it. */
struct link_pkt {
	uint32_t in_ifindex;    /* 0: this host sent it */
	uint32_t out_ifindex;   /* 0: delivered to this host */
	int family;
	union cth_addr src, dst;
};

/* Fill l (zeroed first) for p with the host's addresses tab[0..n): the
 * rules are plugin.h's, at struct cth_link. */
void link_fill(struct cth_link *l, const struct link_pkt *p, const struct link_addr *tab,
	       size_t n);

/* The kind of a destination no table is needed for: multicast,
 * 255.255.255.255, else unicast. */
uint8_t link_dst_kind(int family, const union cth_addr *dst);

/* The directed broadcast address of an IPv4 address's network: its own
 * IFA_BROADCAST, else the address with the host bits set (prefixes up to
 * /30; /31 and /32 have none: false). */
bool link_brd(const struct link_addr *a, union cth_addr *brd);

/* Clear the bits of a past prefix (family's address length). */
void link_addr_mask(int family, union cth_addr *a, unsigned int prefix);
/* The bits of an address of family: 32 (AF_INET), else 128. */
unsigned int link_addr_bits(int family);

/* Do a and b agree in their first prefix bits? */
bool link_addr_in(int family, const union cth_addr *a, const union cth_addr *b,
		  unsigned int prefix);

#endif
