/* SPDX-License-Identifier: MIT */
/*
 * server/kernel/share.c: who is the last daemon out of a shared kernel helper.
 * flock(2) locks belong to open file descriptions, so two share_hold()
 * calls in one process stand for two daemons.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "kernel/share.h"

static char dir[64];

static int hold(void)
{
	return share_hold(dir, "ftp", AF_INET, IPPROTO_TCP);
}

static void test_last_of_two(void)
{
	int a = hold(), b = hold();

	CHECK("share/hold", a >= 0 && b >= 0, "%d %d", a, b);
	CHECK("share/other-still-serves", !share_last(a), "a was told it is the last");
	/* a's lock is gone with the failed upgrade: b is alone now */
	CHECK("share/then-last", share_last(b), "b was not told it is the last");
	close(a);
	close(b);
}

static void test_alone(void)
{
	int a = hold();

	CHECK("share/alone-is-last", a >= 0 && share_last(a), "not the last");
	close(a);
}

static void test_other_tuple(void)
{
	int a = hold(), b = share_hold(dir, "ftp", AF_INET6, IPPROTO_TCP);

	CHECK("share/per-tuple", a >= 0 && b >= 0 && share_last(a),
	      "an ipv6 holder kept the ipv4 helper");
	close(a);
	close(b);
}

static void test_probe(void)
{
	int a = hold(), fd = -2;

	CHECK("share/probe-served", share_probe(dir, "ftp", AF_INET, IPPROTO_TCP, &fd) == 0 &&
	      fd == -1, "a served helper was offered to --release");
	close(a);
	CHECK("share/probe-free", share_probe(dir, "ftp", AF_INET, IPPROTO_TCP, &fd) == 1 &&
	      fd >= 0, "a free helper was not offered");
	close(fd);
	a = hold();
	CHECK("share/start-after-release", a >= 0, "%s", strerror(-a));
	close(a);
}

static void *release_later(void *arg)
{
	usleep(300 * 1000);
	close(*(int *)arg);
	return NULL;
}

static void test_wait(void)
{
	int fd, b;
	pthread_t t;

	share_probe(dir, "sip", AF_INET, IPPROTO_UDP, &fd);
	pthread_create(&t, NULL, release_later, &fd);
	b = share_hold(dir, "sip", AF_INET, IPPROTO_UDP);
	pthread_join(t, NULL);
	CHECK("share/waits-for-the-last-one-out", b >= 0, "%s", strerror(-b));
	close(b);
}

static void test_paths(void)
{
	char buf[256];

	CHECK("share/path", share_path(buf, sizeof(buf), "/run/x", "ftp", AF_INET6,
					IPPROTO_UDP) == 0 &&
	      strcmp(buf, "/run/x/ftp.ipv6.udp") == 0, "%s", buf);
	CHECK("share/name-slash", share_hold(dir, "a/b", AF_INET, IPPROTO_TCP) == -EINVAL,
	      "a name with / was used as a path");
	CHECK("share/name-dotdot", share_hold(dir, "..", AF_INET, IPPROTO_TCP) == -EINVAL,
	      "'..' was used as a path");
	CHECK("share/dir-missing-parent",
	      share_hold("/nonexistent/cthelperd/x", "ftp", AF_INET, IPPROTO_TCP) < 0,
	      "no error");
	CHECK("share/too-long", share_path(buf, 8, "/run/x", "ftp", AF_INET,
					   IPPROTO_TCP) == -ENAMETOOLONG, "no error");
}

/* issue 27: lock files only their owner can open, whatever the umask;
 * a directory others may write to, or a file of another user, refused */
static void test_modes(void)
{
	char sub[128], path[192];
	struct stat st;
	mode_t old = umask(022);
	int fd;

	snprintf(sub, sizeof(sub), "%s/modes", dir);
	fd = share_hold(sub, "ftp", AF_INET, IPPROTO_UDP);
	snprintf(path, sizeof(path), "%s/ftp.ipv4.udp", sub);
	CHECK("share/file-0600-umask-022", fd >= 0 && stat(path, &st) == 0 &&
	      (st.st_mode & 07777) == 0600, "fd %d mode %o", fd, (unsigned)(st.st_mode & 07777));
	if (fd >= 0)
		close(fd);
	chmod(path, 0644);
	fd = share_hold(sub, "ftp", AF_INET, IPPROTO_UDP);
	CHECK("share/file-0644-made-0600", fd >= 0 && stat(path, &st) == 0 &&
	      (st.st_mode & 07777) == 0600, "fd %d mode %o", fd, (unsigned)(st.st_mode & 07777));
	if (fd >= 0)
		close(fd);
	if (geteuid() == 0) {
		if (chown(path, 65534, 65534) == 0) {
			fd = share_hold(sub, "ftp", AF_INET, IPPROTO_UDP);
			CHECK("share/file-of-another-user-refused", fd == -EPERM, "got %d", fd);
			if (fd >= 0)
				close(fd);
			if (chown(path, 0, 0) < 0)
				printf("# chown back: %s\n", strerror(errno));
		}
		chmod(sub, 0777);
		fd = share_hold(sub, "ftp", AF_INET, IPPROTO_UDP);
		CHECK("share/dir-world-writable-refused", fd == -EPERM, "got %d", fd);
		if (fd >= 0)
			close(fd);
		chmod(sub, 0755);
		if (chown(sub, 65534, 65534) == 0) {
			fd = share_hold(sub, "ftp", AF_INET, IPPROTO_UDP);
			CHECK("share/dir-of-another-user-refused", fd == -EPERM, "got %d", fd);
			if (fd >= 0)
				close(fd);
			if (chown(sub, 0, 0) < 0)
				printf("# chown back: %s\n", strerror(errno));
		}
	} else {
		printf("# share modes: not root, the other-owner checks need chown\n");
	}
	umask(old);
}

int main(void)
{
	char sub[96];

	snprintf(dir, sizeof(dir), "/tmp/cth-share-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("FAIL share/setup: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_last_of_two();
	test_alone();
	test_other_tuple();
	test_probe();
	test_wait();
	test_paths();
	test_modes();
	/* share_hold() makes a missing share_dir (one level) */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	{
		int a = share_hold(sub, "ftp", AF_INET, IPPROTO_TCP);

		CHECK("share/makes-dir", a >= 0, "%s", strerror(-a));
		close(a);
	}
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return check_exit();
}
