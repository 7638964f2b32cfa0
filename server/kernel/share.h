/* SPDX-License-Identifier: MIT */
#ifndef CTH_SHARE_H
#define CTH_SHARE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Kernel helpers are global, queues belong to a network namespace: two
 * cthelperd in two namespaces (an HA pair on one host, containers) serve
 * one registration.  Each holds a shared flock(2) on one file per kernel
 * helper in share_dir while it serves it; the one that gets the lock
 * exclusively on the way out is the last and may disable and delete the
 * helper.  A crash drops the locks with the process.  share.c says why
 * flock and what the limits are.
 */

/*
 * Hold the shared lock of kernel helper (name, family, proto): an open
 * descriptor (>= 0), or a negative errno when it cannot be held (the
 * helper is then served unshared: a clean stop deletes it).  Waits up to
 * SHARE_WAIT_MS while another daemon, the last one out, deletes it.
 */
#define SHARE_WAIT_MS 5000
int share_hold(const char *dir, const char *name, int family, int proto);

/*
 * On the way out, with the descriptor share_hold() gave: true when no
 * other daemon holds the helper (fd now holds the lock exclusively until
 * it is closed: disable and delete, then close); false when another
 * still serves it (fd's lock is gone: leave the helper alone, close fd).
 */
bool share_last(int fd);

/*
 * --release: may the helper be taken out?  1 with *fd holding the lock
 * exclusively (close it when done), 0 when another daemon serves it, or
 * a negative errno when sharing cannot be checked (release as before).
 */
int share_probe(const char *dir, const char *name, int family, int proto,
		int *fd);

/* The lock file's path, for messages; 0 or -ENAMETOOLONG / -EINVAL. */
int share_path(char *buf, size_t len, const char *dir, const char *name,
	       int family, int proto);

#endif
