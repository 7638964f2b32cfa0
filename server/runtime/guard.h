/* SPDX-License-Identifier: MIT */
#ifndef CTH_GUARD_H
#define CTH_GUARD_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/*
 * What a helper's plugin may ask of the kernel, whatever its code says
 * (issue 27): a plugin is as hostile as the bytes it parses, and the
 * kernel does what it is told.  An expectation must touch its master (one
 * end is an endpoint of the master connection) and, where an operator
 * names networks, may reach beyond the master only into them; a mark may
 * change only the bits the helper's configuration allows, because
 * rulesets trust marks.  Protocol-free: the rule is about tuples.
 */

/* Most networks one helper's expect_networks may list. */
#define GUARD_MAX_NETS 16

struct guard_net {
	uint8_t family;         /* AF_INET or AF_INET6 */
	uint8_t prefix;         /* bits */
	union cth_addr addr;    /* host bits cleared */
};

struct guard {
	uint32_t mark_mask;     /* the bits cth_set_mark() may change */
	unsigned int n_nets;    /* 0: no expect_networks, the master rule only */
	struct guard_net nets[GUARD_MAX_NETS];
};

/* The default: no mark bits, no networks. */
#define GUARD_DEFAULT ((struct guard){ .mark_mask = 0 })

/* "10.1.0.0/16, 2001:db8::/32 192.0.2.7": 0, or -EINVAL (bad address,
 * prefix, or more than GUARD_MAX_NETS).  g is left alone on error. */
int guard_networks_parse(struct guard *g, const char *v);
/* A 32-bit number (0x..., decimal): 0 or -EINVAL. */
int guard_mark_mask_parse(struct guard *g, const char *v);

/*
 * May the plugin of a helper with guard g ask for e on the connection
 * whose tuples are orig and reply?  0, or -EPERM when:
 *  - neither the expected connection's source (unless any) nor its
 *    destination is an address of the master (either tuple's source or
 *    destination): a pinhole between two third parties;
 *  - an address of the expectation that is not the master's (its other
 *    end, or a NAT target the kernel would use) lies outside the
 *    helper's expect_networks, when it has some; a source network
 *    (CTH_EXPECT_SRC_PREFIX, shorter than an address) is never the
 *    master's and must lie wholly inside one of them;
 *  - under NAT, the kernel would map it to an address the master does
 *    not have: only nat-follow-master ignores nat_addr (it maps to the
 *    master's own addresses); any other function uses it.
 */
int guard_expect_check(const struct guard *g, const struct cth_tuple *orig,
		       const struct cth_tuple *reply, const struct cth_expect *e);

/* The mark the kernel is to write for a plugin's cth_set_mark(mark), and
 * whether bits outside the mask were asked for (*masked). */
uint32_t guard_mark(const struct guard *g, uint32_t mark, bool *masked);

#endif
