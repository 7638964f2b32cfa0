// SPDX-License-Identifier: MIT
/*
 * Shared kernel helpers between daemons in different network namespaces
 * (issue 18; share.h has the protocol).
 *
 * Why a file lock: the kernel keeps nothing per user of a user-space
 * helper that another namespace could see (6.1 nfnetlink_cthelper stores
 * name, tuple, queue number, status, private length and policies; a NEW
 * for an existing name is an update, and DISABLE is global), so "is
 * anyone else still serving it?" needs a meeting point outside netfilter.
 * flock(2) locks are per open file description, are dropped by the
 * kernel when the holder dies (kill -9 included), and need no daemon of
 * their own.  Daemons meet when they see the same share_dir: namespaces
 * made by ip-netns(8) or systemd's NetworkNamespacePath= share /run;
 * containers need the directory bind-mounted (docs/ha.md).  Daemons that
 * do not meet behave as before: each stop deletes what it registered.
 *
 * Converting a shared lock to an exclusive one is not atomic (flock(2):
 * the old lock is dropped first); that is what makes two daemons that
 * stop at once safe: the one whose attempt comes second finds nothing
 * held and is the last, the other leaves the helper to it.  Files are
 * never unlinked: a daemon could be holding the old inode while a new one
 * locks a new file of the same name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "share.h"

static int share_open(const char *dir, const char *name, int family, int proto);
static int share_dir_check(const char *dir);
static int share_file_check(int fd);
static bool share_owner_ok(uid_t uid);
static void share_nap(void);

int share_hold(const char *dir, const char *name, int family, int proto)
{
	int fd = share_open(dir, name, family, proto), err;

	if (fd < 0)
		return fd;
	for (int waited = 0; waited <= SHARE_WAIT_MS; waited += 50) {
		if (flock(fd, LOCK_SH | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		share_nap();
	}
	err = errno == EWOULDBLOCK ? ETIMEDOUT : errno;
	close(fd);
	return -err;
}

bool share_last(int fd)
{
	int rc;

	while ((rc = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
		;
	/* an error other than "held" cannot tell: behave as unshared */
	return rc == 0 || errno != EWOULDBLOCK;
}

int share_probe(const char *dir, const char *name, int family, int proto,
		int *fd)
{
	int f = share_open(dir, name, family, proto);

	*fd = -1;
	if (f < 0)
		return f;
	if (flock(f, LOCK_EX | LOCK_NB) == 0) {
		*fd = f;
		return 1;
	}
	close(f);
	return errno == EWOULDBLOCK ? 0 : -errno;
}

int share_path(char *buf, size_t len, const char *dir, const char *name,
	       int family, int proto)
{
	int n;

	/* the name is a kernel helper name from the config: keep it a
	 * single path component */
	if (!dir || !name[0] || strchr(name, '/') || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return -EINVAL;
	n = snprintf(buf, len, "%s/%s.%s.%s", dir, name,
		     family == AF_INET6 ? "ipv6" : "ipv4",
		     proto == IPPROTO_UDP ? "udp" : "tcp");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int share_open(const char *dir, const char *name, int family, int proto)
{
	char path[4096];
	int fd, rc;

	if ((rc = share_path(path, sizeof(path), dir, name, family, proto)) < 0)
		return rc;
	/* 0755: a daemon that dropped privileges (user =) still stops right,
	 * since it locks the descriptor it opened as root */
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if ((rc = share_dir_check(dir)) < 0)
		return rc;
	/* read-only is enough for flock(2), and works where the directory is
	 * mounted read-only once its files exist (a hardened unit) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == ENOENT)
		fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if ((rc = share_file_check(fd)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

/*
 * The directory: a directory (not a link to one) of root or ours that
 * nobody else may write to, or anybody could replace a lock file with
 * one they hold (-EPERM).
 */
static int share_dir_check(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || !share_owner_ok(st.st_uid) || (st.st_mode & 022))
		return -EPERM;
	return 0;
}

/*
 * A lock file only its owner can open: flock(2) needs nothing but read
 * access, so a 0644 file let any local user hold a shared lock and make
 * every stop and --release leave the helper registered (issue 27).  One
 * of another owner is refused; our own is made 0600 whatever the umask
 * it was created under.
 */
static int share_file_check(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !share_owner_ok(st.st_uid))
		return -EPERM;
	if ((st.st_mode & 07777) != 0600 && fchmod(fd, 0600) < 0)
		return -errno;
	return 0;
}

/* Whose files may we trust?  root's, or our own user's. */
static bool share_owner_ok(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

static void share_nap(void)
{
	const struct timespec ts = { .tv_nsec = 50 * 1000000L };

	nanosleep(&ts, NULL);
}
