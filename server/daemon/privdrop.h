/* SPDX-License-Identifier: MIT */
/*
 * Least privilege: [server] user.  The daemon starts as root (binding
 * queues, registering helpers, the control socket), then becomes that user
 * with CAP_NET_ADMIN alone, which every later netlink message needs.
 *
 * Capabilities belong to a thread, and nfnetlink checks the one of the
 * thread that sends each message (verdicts included): privdrop_apply()
 * must run in the main thread before any worker thread exists, so that
 * every thread created later inherits the dropped set.
 */
#ifndef CTH_PRIVDROP_H
#define CTH_PRIVDROP_H

#include "runtime/config.h"

/*
 * Become cfg->user: its uid and gid, its own supplementary groups
 * (initgroups), CAP_NET_ADMIN only in the effective and permitted sets,
 * nothing inheritable or ambient, an empty bounding set.  Without a user,
 * or with root, nothing changes.  A daemon that is not root keeps running
 * only if it already is that user.  Returns 0 or a negative errno, logged.
 */
int privdrop_apply(const struct cfg *cfg);

#endif
