/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for nlreq.c that emulates the kernel's expectation table
 * for the worker's ctnetlink requests (worker_expect.c, worker_detach.c): requests
 * are parsed with libnetfilter_conntrack, answers built with
 * nfexp_nlmsg_build(), errors given as the ack's errno.  Rules as Linux
 * 6.1 ctnetlink: EXP_NEW needs a known master (ENOENT) and a free tuple
 * (EEXIST with NLM_F_EXCL, else the existing one is updated); a master
 * dump of an unknown master is ENOENT; EXP_DELETE matches tuple and id;
 * CT_NEW with an empty helper name detaches (its expectations go); CT_GET
 * answers a known master with both its tuples.
 */
#ifndef CTH_TEST_NLFAKE_H
#define CTH_TEST_NLFAKE_H

#include <stdbool.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

#define NLFAKE_EXP_MAX 256u
#define NLFAKE_MASTER_MAX 8u

struct nlfake_exp {
	struct cth_tuple t, master;
	uint32_t class, id;
	uint16_t zone;
};

struct nlfake {
	struct nlfake_exp e[NLFAKE_EXP_MAX];
	unsigned int n;
	uint32_t next_id;
	struct cth_tuple master[NLFAKE_MASTER_MAX];
	struct cth_tuple master_reply[NLFAKE_MASTER_MAX];  /* for CT_GET */
	unsigned int n_master;
	/* requests seen, by kind */
	unsigned int requests, dumps, gets, news, dels, ct_updates, detaches;
	int fail_errno;             /* answer every request with it (0: none) */
};

extern struct nlfake nlfake;

void nlfake_reset(void);
void nlfake_master_add(const struct cth_tuple *orig);
/* A master with its reply tuple (NAT shows there), for IPCTNL_MSG_CT_GET. */
void nlfake_master_add_nat(const struct cth_tuple *orig, const struct cth_tuple *reply);
/* Expectations of this master in the table. */
unsigned int nlfake_count(const struct cth_tuple *master);

#endif
