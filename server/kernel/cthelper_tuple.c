/* SPDX-License-Identifier: MIT */
/*
 * The (family, protocol) tuples a kernel helper of ours can have, shared
 * by registration, reload, release and readiness (cthelper_*.c).
 */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "cthelper_tuple.h"

const struct cthelper_tuple cthelper_tuples[CTHELPER_N_TUPLES] = {
	{ AF_INET, IPPROTO_TCP, CTH_FAMILY_IPV4, CTH_PROTO_TCP },
	{ AF_INET, IPPROTO_UDP, CTH_FAMILY_IPV4, CTH_PROTO_UDP },
	{ AF_INET6, IPPROTO_TCP, CTH_FAMILY_IPV6, CTH_PROTO_TCP },
	{ AF_INET6, IPPROTO_UDP, CTH_FAMILY_IPV6, CTH_PROTO_UDP },
};

size_t cthelper_tuple_index(const struct cthelper_tuple *t)
{
	return (size_t)(t - cthelper_tuples);
}

bool cthelper_tuple_in_runtime(const struct runtime *rt, const char *name,
			       int family, int proto)
{
	for (size_t i = 0; i < rt->n_inst; i++) {
		if (strcmp(rt->inst[i].name, name) != 0)
			continue;
		cthelper_tuple_for_each(&rt->inst[i], t)
			if (t->family == family && t->proto == proto)
				return true;
	}
	return false;
}

const char *cthelper_tuple_fam(int family)
{
	return family == AF_INET6 ? "ipv6" : "ipv4";
}

const char *cthelper_tuple_proto(int proto)
{
	return proto == IPPROTO_UDP ? "udp" : "tcp";
}

const char *cthelper_tuple_nfct_fam(int family)
{
	return family == AF_INET6 ? "inet6" : "inet";
}
