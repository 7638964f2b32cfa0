/* SPDX-License-Identifier: MIT */
#ifndef CTH_PORTIDS_H
#define CTH_PORTIDS_H

#include <stdint.h>

/*
 * The netlink port ids of this process's own sockets, so that a kernel
 * event can be told from one another program caused.  A conntrack
 * expectation event carries the port id of the ctnetlink socket that
 * asked for it (IPCTNL_MSG_EXP_NEW); for an NFQA_EXP on a verdict, 6.1
 * reports 0, as for the kernel's own helpers, although the source reads
 * as if the queue socket's were passed (nfqnl_recv_verdict() ->
 * ctnetlink_glue_attach_expect()).  Measured in the VM
 * (docs/architecture.md, tests/host verdict-expectations-counted); a
 * queue socket's port id is registered anyway, for a kernel that does.
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
