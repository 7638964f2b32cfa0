/* SPDX-License-Identifier: MIT */
#ifndef CTH_RECORD_H
#define CTH_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include <cthelperd/plugin.h>

/*
 * What this daemon registered with the kernel, kept in a file so that
 * `cthelperd --release` undoes it after a crash even when the
 * configuration no longer names it (an edit, a kill during a reload).
 * One file per daemon instance, named after its configuration file (two
 * daemons with two configurations on one host do not collide); written
 * before each registration and replaced atomically (tmp, fsync, rename).
 *
 * The file is text, "cthelperd-registered 1" then one line per kernel
 * helper: "NAME ipv4|ipv6 tcp|udp QUEUE".  It is input to --release
 * (root): record_read() bounds every copy and refuses anything else.
 */

/* records live in runtime_dir/RECORD_SUBDIR, writable by `user` */
#define RECORD_SUBDIR "helpers"
/* CTHELPER_OWNED_MAX entries of at most ~40 bytes fit well below this */
#define RECORD_MAX_BYTES (256u * 1024u)
#define RECORD_MAX (4u * 64u * 4u)

struct record_entry {
	char name[CTH_NAME_LEN];
	int family, proto;      /* AF_INET/AF_INET6, IPPROTO_TCP/UDP */
	uint16_t queue;
};

struct record {
	size_t n;
	struct record_entry e[RECORD_MAX];
};

/* Add (or update the queue of) one entry: 0, -EINVAL (not a helper the
 * kernel could hold) or -ENOSPC. */
int record_add(struct record *r, const char *name, int family, int proto,
	       uint16_t queue);
/* Index of (name, family, proto) in r, or -1. */
int record_find(const struct record *r, const char *name, int family, int proto);
/* Union: every entry of src into dst; 0 or the first error. */
int record_merge(struct record *dst, const struct record *src);

/* The record's path for configuration file conf under dir: 0,
 * -EINVAL or -ENAMETOOLONG. */
int record_path(char *buf, size_t len, const char *dir, const char *conf);
/* Make dir/RECORD_SUBDIR: 0700, or with gid >= 0 (the `user` the daemon
 * drops to) this process's, of group gid, 0770. */
int record_dir_make(const char *dir, long gid);

/* Text form (record_format: bytes written, or -ENOSPC; record_parse:
 * 0 or -EINVAL for anything but the format above). */
int record_format(const struct record *r, char *buf, size_t len);
int record_parse(const char *buf, size_t len, struct record *r);

/* Replace path atomically with r: 0 or a negative errno. */
int record_write(const char *path, const struct record *r);
/* 0, -ENOENT (no record), -EFBIG (over RECORD_MAX_BYTES), -EINVAL
 * (corrupt; r is then empty) or another negative errno. */
int record_read(const char *path, struct record *r);
/* 0 when gone (or never there). */
int record_remove(const char *path);

#endif
