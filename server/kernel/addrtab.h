/* SPDX-License-Identifier: MIT */
/*
 * This host's interface addresses as rtnetlink lists them (RTM_GETADDR
 * dump, IPv4 and IPv6): what the link view (cth_link(), host/link.h)
 * picks a packet's network from.  One table per worker, read on its own
 * NETLINK_ROUTE socket (no capability needed: it works after the
 * privilege drop), so nothing is shared or locked on the packet path.
 */
#ifndef CTH_ADDRTAB_H
#define CTH_ADDRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/* Most addresses one table holds; a host with more is read up to it (the
 * rest are left out, counted in addrtab::left_out, the order the kernel
 * dumps them: interface by interface, IPv4 first). */
#define ADDRTAB_MAX 256u

struct addrtab_addr {
	uint32_t ifindex;
	uint8_t family;         /* AF_INET or AF_INET6 */
	uint8_t prefix;
	uint8_t scope;          /* RT_SCOPE_*: 0 universe */
	bool secondary;         /* IFA_F_SECONDARY (IPv4) */
	bool has_brd;           /* IFA_BROADCAST given */
	union cth_addr addr;    /* IFA_LOCAL, else IFA_ADDRESS */
	union cth_addr brd;
};

struct addrtab {
	struct mnl_socket *nl;  /* opened on the first read */
	uint32_t portid, seq;
	size_t n;
	unsigned int left_out;  /* addresses past ADDRTAB_MAX at the last read */
	struct addrtab_addr a[ADDRTAB_MAX];
};

/* Read the table afresh: 0, or a negative errno (then t->n is 0). */
int addrtab_read(struct addrtab *t);
/* Close the socket (the table stays as read). */
void addrtab_close(struct addrtab *t);

#endif
