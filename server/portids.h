/* SPDX-License-Identifier: MIT */
#ifndef CTH_PORTIDS_H
#define CTH_PORTIDS_H

#include <stdint.h>

/*
 * The netlink port ids of this process's own sockets, so that a kernel
 * event can be told from one another program caused.  Linux puts the
 * requester's port id in a conntrack expectation event
 * (nf_ct_expect_related_report() -> nf_ct_expect_event_report() ->
 * ctnetlink_expect_event(): nlmsg_pid = item->portid): the ctnetlink
 * request's socket for IPCTNL_MSG_EXP_NEW, the queue socket for an
 * NFQA_EXP on a verdict (nfqnl_recv_verdict() passes NETLINK_CB(skb).portid
 * to ctnetlink_glue_attach_expect()), 0 for the kernel's own helpers.
 * Measured in the VM (docs/architecture.md, tests/host portid-*).
 *
 * A fixed table of atomics: workers' sockets come and go with reloads in
 * the main thread, events are read there too, but nothing here assumes it.
 */
enum portid_kind {
	PORTID_NONE = 0,
	PORTID_REQUEST,      /* a ctnetlink/nfnetlink request socket (acked) */
	PORTID_QUEUE,        /* a queue socket: expectations ride its verdicts */
};

/* Room for every worker's two sockets and the main thread's, twice (a
 * reload opens the new queues' before it closes the old ones'). */
#define PORTIDS_MAX 320

/* 0, or -ENOSPC (the table is full: events from it look foreign). */
int portids_add(uint32_t portid, enum portid_kind kind);
void portids_del(uint32_t portid);
/* PORTID_NONE for a port id not ours (and for 0, the kernel's). */
enum portid_kind portids_kind(uint32_t portid);

#endif
