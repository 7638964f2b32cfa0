/* SPDX-License-Identifier: MIT */
#ifndef CTH_CTHELPER_TUPLE_H
#define CTH_CTHELPER_TUPLE_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/runtime.h"

/*
 * One instance stands for up to one kernel helper per (family,
 * protocol): the kernel keys a user-space helper by name and tuple
 * (nfnl_cthelper_new()), and an instance's families and protocols say
 * which tuples it registers.
 */
#define CTHELPER_N_TUPLES 4

struct cthelper_tuple {
	int family, proto;                 /* AF_INET/AF_INET6, IPPROTO_TCP/UDP */
	unsigned int fam_bit, proto_bit;   /* CTH_FAMILY_*, CTH_PROTO_* */
};
extern const struct cthelper_tuple cthelper_tuples[CTHELPER_N_TUPLES];

/* for each tuple t (const struct cthelper_tuple *) instance in stands for */
#define cthelper_tuple_for_each(in, t)                                        \
	for (const struct cthelper_tuple *t = cthelper_tuples;                \
	     t < cthelper_tuples + CTHELPER_N_TUPLES; t++)                    \
		if (((in)->families & t->fam_bit) && ((in)->protocols & t->proto_bit))

/* t's place in cthelper_tuples (0..CTHELPER_N_TUPLES-1), for tables. */
size_t cthelper_tuple_index(const struct cthelper_tuple *t);
/* Does a helper of rt stand for kernel helper (name, family, proto)? */
bool cthelper_tuple_in_runtime(const struct runtime *rt, const char *name,
			       int family, int proto);

/* How log lines spell a family and a protocol: "ipv4"/"ipv6", "tcp"/"udp". */
const char *cthelper_tuple_fam(int family);
const char *cthelper_tuple_proto(int proto);
/* How nfct(8) spells a family, for the commands we suggest: "inet"/"inet6". */
const char *cthelper_tuple_nfct_fam(int family);

#endif
