// SPDX-License-Identifier: MIT
/* The host-side rules for what a plugin may ask of the kernel (guard.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "guard.h"

static int guard_net_parse(const char *s, size_t len, struct guard_net *n);
static bool guard_of_master(int family, const struct cth_tuple *orig,
			    const struct cth_tuple *reply, const union cth_addr *a);
static bool guard_addr_ok(const struct guard *g, int family, const struct cth_tuple *orig,
			  const struct cth_tuple *reply, const union cth_addr *a);
static bool guard_in_nets(const struct guard *g, int family, const union cth_addr *a);
static bool guard_net_in_nets(const struct guard *g, int family, const union cth_addr *a,
			      unsigned int prefix);
static void guard_addr_mask(int family, union cth_addr *a, unsigned int prefix);
static bool guard_addr_eq(int family, const union cth_addr *a, const union cth_addr *b);
static size_t guard_addr_len(int family);

int guard_networks_parse(struct guard *g, const char *v)
{
	struct guard_net nets[GUARD_MAX_NETS];
	unsigned int n = 0;

	for (;;) {
		size_t len;

		v += strspn(v, " \t,");
		if (!*v)
			break;
		len = strcspn(v, " \t,");
		if (n == GUARD_MAX_NETS || guard_net_parse(v, len, &nets[n]) < 0)
			return -EINVAL;
		n++;
		v += len;
	}
	if (n == 0)
		return -EINVAL;
	memcpy(g->nets, nets, n * sizeof(nets[0]));
	g->n_nets = n;
	return 0;
}

int guard_mark_mask_parse(struct guard *g, const char *v)
{
	unsigned long long m;
	char *end;

	if (!(*v >= '0' && *v <= '9'))
		return -EINVAL;
	errno = 0;
	m = strtoull(v, &end, 0);
	if (errno || *end || m > UINT32_MAX)
		return -EINVAL;
	g->mark_mask = (uint32_t)m;
	return 0;
}

int guard_expect_check(const struct guard *g, const struct cth_tuple *orig,
		       const struct cth_tuple *reply, const struct cth_expect *e)
{
	int f = e->family;
	bool any_src = e->flags & CTH_EXPECT_ANY_SRC;
	/* a source network (CTH_EXPECT_SRC_PREFIX) shorter than an address
	 * is not the master's: it must lie wholly inside expect_networks */
	bool src_net = (e->flags & CTH_EXPECT_SRC_PREFIX) &&
		       e->src_prefix < 8 * guard_addr_len(f);
	bool src_master = !any_src && !src_net && guard_of_master(f, orig, reply, &e->src);
	bool dst_master = guard_of_master(f, orig, reply, &e->dst);

	if (f != orig->family || (!src_master && !dst_master))
		return -EPERM;
	if (src_net && g->n_nets && !guard_net_in_nets(g, f, &e->src, e->src_prefix))
		return -EPERM;
	if ((!any_src && !src_net && !guard_addr_ok(g, f, orig, reply, &e->src)) ||
	    !guard_addr_ok(g, f, orig, reply, &e->dst))
		return -EPERM;
	/* nf_nat_follow_master() (Linux 6.1 nf_nat_core.c) maps to the
	 * master's tuple addresses and ignores the saved address; every
	 * other expectation function (nf_nat_sip_expected, ...) uses it */
	if ((e->flags & CTH_EXPECT_NAT) &&
	    !(e->fn && strcmp(e->fn, CTH_EXPECT_FN_NAT_FOLLOW_MASTER) == 0) &&
	    !guard_of_master(f, orig, reply, &e->nat_addr) &&
	    !(g->n_nets && guard_in_nets(g, f, &e->nat_addr)))
		return -EPERM;
	return 0;
}

uint32_t guard_mark(const struct guard *g, uint32_t mark, bool *masked)
{
	*masked = (mark & ~g->mark_mask) != 0;
	return mark & g->mark_mask;
}

/* One "ADDR[/PREFIX]" of len bytes. */
static int guard_net_parse(const char *s, size_t len, struct guard_net *n)
{
	char text[INET6_ADDRSTRLEN + 5];
	char *slash, *end;
	unsigned long prefix;
	int family;

	if (len == 0 || len >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, len);
	text[len] = '\0';
	slash = strchr(text, '/');
	if (slash)
		*slash = '\0';
	memset(n, 0, sizeof(*n));
	if (inet_pton(AF_INET, text, n->addr.raw) == 1)
		family = AF_INET;
	else if (inet_pton(AF_INET6, text, n->addr.raw) == 1)
		family = AF_INET6;
	else
		return -EINVAL;
	prefix = 8 * guard_addr_len(family);
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		prefix = strtoul(slash + 1, &end, 10);
		if (errno || *end || prefix > 8 * guard_addr_len(family))
			return -EINVAL;
	}
	n->family = (uint8_t)family;
	n->prefix = (uint8_t)prefix;
	guard_addr_mask(family, &n->addr, n->prefix);
	return 0;
}

/* Is a one of the master's addresses (either tuple, either end)? */
static bool guard_of_master(int family, const struct cth_tuple *orig,
			    const struct cth_tuple *reply, const union cth_addr *a)
{
	return guard_addr_eq(family, a, &orig->src) || guard_addr_eq(family, a, &orig->dst) ||
	       guard_addr_eq(family, a, &reply->src) || guard_addr_eq(family, a, &reply->dst);
}

/* An address the expectation names: the master's, or allowed beyond it. */
static bool guard_addr_ok(const struct guard *g, int family, const struct cth_tuple *orig,
			  const struct cth_tuple *reply, const union cth_addr *a)
{
	return guard_of_master(family, orig, reply, a) || g->n_nets == 0 ||
	       guard_in_nets(g, family, a);
}

static bool guard_in_nets(const struct guard *g, int family, const union cth_addr *a)
{
	return guard_net_in_nets(g, family, a, 8 * (unsigned int)guard_addr_len(family));
}

/* Is all of a/prefix inside one of the networks (one as long or longer
 * holds only part of it)? */
static bool guard_net_in_nets(const struct guard *g, int family, const union cth_addr *a,
			      unsigned int prefix)
{
	for (unsigned int i = 0; i < g->n_nets; i++) {
		union cth_addr m = *a;

		if (g->nets[i].family != family || g->nets[i].prefix > prefix)
			continue;
		guard_addr_mask(family, &m, g->nets[i].prefix);
		if (guard_addr_eq(family, &m, &g->nets[i].addr))
			return true;
	}
	return false;
}

static void guard_addr_mask(int family, union cth_addr *a, unsigned int prefix)
{
	size_t len = guard_addr_len(family);

	for (size_t i = 0; i < len; i++) {
		unsigned int bits = prefix > 8 * i ? prefix - 8 * (unsigned int)i : 0;

		if (bits < 8)
			a->raw[i] &= (uint8_t)(0xffu << (8 - bits));
	}
}

static bool guard_addr_eq(int family, const union cth_addr *a, const union cth_addr *b)
{
	return memcmp(a->raw, b->raw, guard_addr_len(family)) == 0;
}

static size_t guard_addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}
