/* SPDX-License-Identifier: MIT */
/* record.c: what --release reads after a crash is input: every copy is
 * bounded, and anything but the format is refused whole. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/record.h"
#include "check.h"

static char dir[] = "/tmp/cth-record-XXXXXX";
static char path[4096];

static struct record *rec_new(void)
{
	struct record *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	return r;
}

static void write_raw(const char *p, const char *buf, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void test_round_trip(void)
{
	struct record *w = rec_new(), *r = rec_new();
	struct stat st;
	int rc;

	record_add(w, "ftp", AF_INET, IPPROTO_TCP, 3);
	record_add(w, "ftp", AF_INET6, IPPROTO_TCP, 3);
	record_add(w, "sip-0", AF_INET, IPPROTO_UDP, 65535);
	/* the unit's UMask=0077: the record is still 0644, for root's
	 * --release without CAP_DAC_OVERRIDE when `user` wrote it */
	mode_t old = umask(077);
	rc = record_write(path, w);
	umask(old);
	CHECK("record write", rc == 0, "rc %d", rc);
	CHECK("record mode 0644 under umask 077", stat(path, &st) == 0 &&
	      (st.st_mode & 0777) == 0644, "mode %o", st.st_mode & 0777);
	rc = record_read(path, r);
	CHECK("record read back", rc == 0 && r->n == 3, "rc %d n %zu", rc, r->n);
	CHECK("record entries", r->n == 3 &&
	      record_find(r, "ftp", AF_INET6, IPPROTO_TCP) == 1 &&
	      r->e[2].queue == 65535 && r->e[2].proto == IPPROTO_UDP &&
	      strcmp(r->e[2].name, "sip-0") == 0, "got %s/%u", r->e[2].name, r->e[2].queue);
	CHECK("record missing is -ENOENT", record_remove(path) == 0 &&
	      record_read(path, r) == -ENOENT && r->n == 0, "n %zu", r->n);
	free(w);
	free(r);
}

/* A replacement leaves no tmp behind and the old content is replaced
 * whole (rename), also over a tmp a crash left. */
static void test_atomic_replace(void)
{
	struct record *w = rec_new(), *r = rec_new();
	char tmp[4200];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	record_add(w, "old", AF_INET, IPPROTO_TCP, 1);
	record_write(path, w);
	write_raw(tmp, "junk", 4);
	w->n = 0;
	record_add(w, "new", AF_INET, IPPROTO_UDP, 2);
	CHECK("record replace", record_write(path, w) == 0, "write failed");
	CHECK("record replaced whole", record_read(path, r) == 0 && r->n == 1 &&
	      strcmp(r->e[0].name, "new") == 0, "n %zu", r->n);
	CHECK("record no tmp left", access(tmp, F_OK) < 0 && errno == ENOENT, "tmp exists");
	record_remove(path);
	free(w);
	free(r);
}

/* Reload: old set and new set, each name and tuple once, the queue the
 * newer one. */
static void test_union(void)
{
	struct record *a = rec_new(), *b = rec_new();

	record_add(a, "ftp", AF_INET, IPPROTO_TCP, 1);
	record_add(a, "tftp", AF_INET, IPPROTO_UDP, 1);
	record_add(b, "ftp", AF_INET, IPPROTO_TCP, 7);
	record_add(b, "sip", AF_INET, IPPROTO_UDP, 2);
	CHECK("record union", record_merge(a, b) == 0 && a->n == 3 &&
	      a->e[0].queue == 7 && record_find(a, "tftp", AF_INET, IPPROTO_UDP) == 1 &&
	      record_find(a, "sip", AF_INET, IPPROTO_UDP) == 2, "n %zu", a->n);
	CHECK("record refuses bad names",
	      record_add(a, "", AF_INET, IPPROTO_TCP, 1) == -EINVAL &&
	      record_add(a, "a b", AF_INET, IPPROTO_TCP, 1) == -EINVAL &&
	      record_add(a, "0123456789abcdef", AF_INET, IPPROTO_TCP, 1) == -EINVAL &&
	      record_add(a, "x", AF_UNIX, IPPROTO_TCP, 1) == -EINVAL &&
	      record_add(a, "x", AF_INET, IPPROTO_SCTP, 1) == -EINVAL, "accepted");
	a->n = 0;
	for (unsigned i = 0; i < RECORD_MAX; i++) {
		char n[16];

		snprintf(n, sizeof(n), "h%u", i);
		record_add(a, n, AF_INET, IPPROTO_TCP, 1);
	}
	CHECK("record full", a->n == RECORD_MAX &&
	      record_add(a, "more", AF_INET, IPPROTO_TCP, 1) == -ENOSPC, "n %zu", a->n);
	CHECK("record full fits the file", record_write(path, a) == 0 &&
	      record_read(path, b) == 0 && b->n == RECORD_MAX, "n %zu", b->n);
	record_remove(path);
	free(a);
	free(b);
}

static void expect_refused_n(const char *name, const char *text, size_t len,
			     int want)
{
	struct record *r = rec_new();
	int rc;

	write_raw(path, text, len);
	r->n = 5;
	rc = record_read(path, r);
	CHECK(name, rc == want && r->n == 0, "rc %d n %zu", rc, r->n);
	free(r);
}

static void expect_refused(const char *name, const char *text, int want)
{
	expect_refused_n(name, text, strlen(text), want);
}

static void test_refused(void)
{
	char *big = malloc(RECORD_MAX_BYTES + 64);
	size_t off;

	expect_refused("record refuses no magic", "ftp ipv4 tcp 1\n", -EINVAL);
	expect_refused("record refuses torn line",
		       "cthelperd-registered 1\nftp ipv4 tcp 1\nsip ipv4 u", -EINVAL);
	expect_refused("record refuses long name",
		       "cthelperd-registered 1\n0123456789abcdefXX ipv4 tcp 1\n", -EINVAL);
	expect_refused("record refuses big queue",
		       "cthelperd-registered 1\nftp ipv4 tcp 65536\n", -EINVAL);
	expect_refused("record refuses signed queue",
		       "cthelperd-registered 1\nftp ipv4 tcp -1\n", -EINVAL);
	expect_refused("record refuses extra field",
		       "cthelperd-registered 1\nftp ipv4 tcp 1 x\n", -EINVAL);
	expect_refused("record refuses bad family",
		       "cthelperd-registered 1\nftp ipx tcp 1\n", -EINVAL);
	{
		static const char nul[] = "cthelperd-registered 1\nftp\0 ipv4 tcp 1\n";

		expect_refused_n("record refuses NUL", nul, sizeof(nul) - 1, -EINVAL);
	}
	/* a line longer than any valid one, not NUL-ended in the buffer */
	off = (size_t)snprintf(big, 64, "cthelperd-registered 1\n");
	memset(big + off, 'a', 4000);
	big[off + 4000] = '\n';
	write_raw(path, big, off + 4001);
	{
		struct record *r = rec_new();
		int rc = record_read(path, r);

		CHECK("record refuses long line", rc == -EINVAL && r->n == 0, "rc %d", rc);
		free(r);
	}
	/* more than RECORD_MAX_BYTES: not read at all */
	memset(big + off, '\n', RECORD_MAX_BYTES + 64 - off);
	write_raw(path, big, RECORD_MAX_BYTES + 64);
	{
		struct record *r = rec_new();
		int rc = record_read(path, r);

		CHECK("record refuses oversized", rc == -EFBIG && r->n == 0, "rc %d", rc);
		free(r);
	}
	record_remove(path);
	/* not a regular file, nor a symbolic link to one */
	{
		struct record *r = rec_new();
		char target[4200];

		snprintf(target, sizeof(target), "%s/target", dir);
		write_raw(target, "cthelperd-registered 1\nftp ipv4 tcp 1\n", 38);
		CHECK("record refuses symlink", symlink(target, path) == 0 &&
		      record_read(path, r) < 0 && r->n == 0, "n %zu", r->n);
		unlink(path);
		unlink(target);
		CHECK("record refuses directory", mkdir(path, 0700) == 0 &&
		      record_read(path, r) == -EINVAL, "read a directory");
		rmdir(path);
		free(r);
	}
	free(big);
}

/* Two daemons with two configurations do not share a record; one path
 * given two ways does. */
static void test_path(void)
{
	char a[4096], b[4096], c[4096], conf1[4200], conf2[4200], rel[4300];

	snprintf(conf1, sizeof(conf1), "%s/a.conf", dir);
	snprintf(conf2, sizeof(conf2), "%s/b.conf", dir);
	snprintf(rel, sizeof(rel), "%s/./a.conf", dir);
	write_raw(conf1, "", 0);
	write_raw(conf2, "", 0);
	CHECK("record path per config",
	      record_path(a, sizeof(a), "/run/cthelperd", conf1) == 0 &&
	      record_path(b, sizeof(b), "/run/cthelperd", conf2) == 0 &&
	      record_path(c, sizeof(c), "/run/cthelperd", rel) == 0 &&
	      strcmp(a, b) != 0 && strcmp(a, c) == 0 &&
	      strncmp(a, "/run/cthelperd/" RECORD_SUBDIR "/a.conf.", 29) == 0, "%s %s %s", a, b, c);
	CHECK("record path needs absolute dir",
	      record_path(a, sizeof(a), "run", conf1) == -EINVAL, "accepted");
	CHECK("record path too long",
	      record_path(a, 20, "/run/cthelperd", conf1) == -ENAMETOOLONG, "fit");
	unlink(conf1);
	unlink(conf2);
}

/* With `user` set: the directory stays this process's, of the user's
 * group, 0770 whatever the umask and whatever an older version left
 * (0700); without: 0700. */
static void test_dir_group(void)
{
	char d[] = "/tmp/cth-recdir-XXXXXX", sub[4200];
	struct stat st;
	mode_t old;
	int rc;

	if (!mkdtemp(d))
		return;
	snprintf(sub, sizeof(sub), "%s/" RECORD_SUBDIR, d);
	old = umask(077);
	rc = record_dir_make(d, -1);
	CHECK("record dir without user: 0700", rc == 0 && stat(sub, &st) == 0 &&
	      (st.st_mode & 0777) == 0700, "rc %d mode %o", rc, st.st_mode & 0777);
	rc = record_dir_make(d, (long)getegid());
	umask(old);
	CHECK("record dir with user: 0770, ours, the user's group", rc == 0 &&
	      stat(sub, &st) == 0 && (st.st_mode & 0777) == 0770 &&
	      st.st_uid == geteuid() && st.st_gid == getegid(),
	      "rc %d mode %o uid %u gid %u", rc, st.st_mode & 0777,
	      (unsigned)st.st_uid, (unsigned)st.st_gid);
	rmdir(sub);
	rmdir(d);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	CHECK("record dir", record_dir_make(dir, -1) == 0, "cannot make it");
	snprintf(path, sizeof(path), "%s/" RECORD_SUBDIR "/x", dir);
	test_round_trip();
	test_atomic_replace();
	test_union();
	test_refused();
	test_path();
	test_dir_group();
	{
		char sub[4200];

		snprintf(sub, sizeof(sub), "%s/" RECORD_SUBDIR, dir);
		rmdir(sub);
		rmdir(dir);
	}
	return check_exit();
}
