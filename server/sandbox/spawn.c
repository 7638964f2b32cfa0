/* SPDX-License-Identifier: MIT */
/* The daemon's side of the spawner (spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "spawn.h"

#ifndef CTH_SANDBOX_PROGRAM
#define CTH_SANDBOX_PROGRAM "/usr/local/lib/cthelperd/" SPAWN_PROGRAM_NAME
#endif

static struct {
	pthread_mutex_t lock;
	int fd;                 /* -1: not open */
	pid_t pid;
	char user[64];
	char program[PATH_MAX];  /* spawn_program_set(); "": look for it */
} spawn_g = { .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

static int spawn_user_find(const struct cfg *cfg, long *uid, long *gid);
static void spawn_user_same(const struct cfg *cfg, long uid);
static int spawn_program(char *path, size_t len);
static int spawn_ask(struct spawn_msg *m, const int *fds, size_t n_fds);

int spawn_open(const struct cfg *cfg)
{
	char prog[PATH_MAX], su[24], sg[24];
	long uid, gid;
	int sv[2];
	pid_t pid;

	if (spawn_g.fd >= 0)
		return 0;
	if (spawn_user_find(cfg, &uid, &gid) < 0 || spawn_program(prog, sizeof(prog)) < 0)
		return -ENOENT;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		log_err("sandbox: cannot create the spawner's socket: %s", strerror(errno));
		return -errno;
	}
	snprintf(su, sizeof(su), "%ld", uid);
	snprintf(sg, sizeof(sg), "%ld", gid);
	pid = fork();
	if (pid < 0) {
		int rc = -errno;

		log_err("sandbox: cannot start the spawner: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return rc;
	}
	if (pid == 0) {
		char *argv[] = { SPAWN_PROGRAM_NAME, "--spawner", su, sg, NULL };
		char *envp[] = { NULL };

		/* fd 3 is its socket; nothing else of the daemon's goes along */
		if (dup2(sv[1], 3) < 0)
			_exit(127);
		close_range(4, ~0u, 0);
		execve(prog, argv, envp);
		fprintf(stderr, "cthelperd: cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	spawn_g.fd = sv[0];
	spawn_g.pid = pid;
	log_info("sandbox: spawner %s started (pid %d), sandboxes run as %s",
		 prog, (int)pid, spawn_g.user);
	return 0;
}

bool spawn_is_open(void)
{
	return spawn_g.fd >= 0;
}

void spawn_close(void)
{
	if (spawn_g.fd < 0)
		return;
	close(spawn_g.fd);
	spawn_g.fd = -1;
	/* ours to reap unless daemon() moved us away from it */
	waitpid(spawn_g.pid, NULL, WNOHANG);
}

void spawn_program_set(const char *path)
{
	snprintf(spawn_g.program, sizeof(spawn_g.program), "%s", path);
}

const char *spawn_user(void)
{
	return spawn_g.user;
}

int spawn_start(int sock, int memfd, pid_t *pid)
{
	struct spawn_msg m = { .op = SPAWN_OP_START };
	int fds[2] = { sock, memfd };
	int rc = spawn_ask(&m, fds, 2);

	if (rc == 0)
		*pid = m.pid;
	return rc;
}

int spawn_kill(pid_t pid)
{
	struct spawn_msg m = { .op = SPAWN_OP_KILL, .pid = pid };

	return spawn_ask(&m, NULL, 0);
}

int spawn_reap(pid_t pid, int *status)
{
	struct spawn_msg m = { .op = SPAWN_OP_REAP, .pid = pid };
	int rc = spawn_ask(&m, NULL, 0);

	if (rc == 0)
		*status = m.status;
	return rc;
}

/*
 * sandbox_user, else the default user, else nobody (with a warning: other
 * daemons share it).  A daemon that is not root cannot change user: its
 * sandboxes run as itself, still without capabilities and filtered.
 */
static int spawn_user_find(const struct cfg *cfg, long *uid, long *gid)
{
	const struct passwd *pw;

	if (geteuid() != 0) {
		*uid = *gid = -1;
		snprintf(spawn_g.user, sizeof(spawn_g.user), "uid %ld (the daemon's: not root)",
			 (long)geteuid());
		log_warn("sandbox: not started as root: sandboxes run as the daemon's user");
		return 0;
	}
	if (cfg->sandbox_uid >= 0) {
		*uid = cfg->sandbox_uid;
		*gid = cfg->sandbox_gid;
		snprintf(spawn_g.user, sizeof(spawn_g.user), "%s", cfg->sandbox_user);
		spawn_user_same(cfg, *uid);
		return 0;
	}
	pw = getpwnam(CFG_SANDBOX_USER);
	if (!pw) {
		pw = getpwnam("nobody");
		if (pw)
			log_warn("sandbox: no user '%s': sandboxes run as 'nobody', which other "
				 "programs may share (create '%s', or set [server] sandbox_user)",
				 CFG_SANDBOX_USER, CFG_SANDBOX_USER);
	}
	if (!pw || pw->pw_uid == 0) {
		log_err("sandbox: neither '%s' nor 'nobody' is a user to run sandboxes as "
			"(set [server] sandbox_user)", CFG_SANDBOX_USER);
		return -ENOENT;
	}
	*uid = (long)pw->pw_uid;
	*gid = (long)pw->pw_gid;
	snprintf(spawn_g.user, sizeof(spawn_g.user), "%s", pw->pw_name);
	spawn_user_same(cfg, *uid);
	return 0;
}

/* The sandboxes' user should be nobody else's, the daemon's least: its
 * filter and missing capabilities still keep a sandbox off the daemon
 * (docs/security.md), but a user of their own is the first wall. */
static void spawn_user_same(const struct cfg *cfg, long uid)
{
	if (cfg->uid >= 0 && cfg->uid == uid)
		log_warn("sandbox: sandboxes run as the daemon's own user (uid %ld): give "
			 "them a user of their own ([server] sandbox_user)", uid);
}

/* The program next to the daemon's own file (a build tree), else the
 * installed one. */
static int spawn_program(char *path, size_t len)
{
	ssize_t n;
	char *slash;

	if (spawn_g.program[0]) {
		snprintf(path, len, "%s", spawn_g.program);
		return 0;
	}
	n = readlink("/proc/self/exe", path, len - 1);
	if (n > 0) {
		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash && (size_t)(slash - path) + sizeof(SPAWN_PROGRAM_NAME) + 1 < len) {
			strcpy(slash + 1, SPAWN_PROGRAM_NAME);
			if (access(path, X_OK) == 0)
				return 0;
		}
	}
	snprintf(path, len, "%s", CTH_SANDBOX_PROGRAM);
	if (access(path, X_OK) == 0)
		return 0;
	log_err("sandbox: cannot find %s (next to the daemon, or %s): %s",
		SPAWN_PROGRAM_NAME, CTH_SANDBOX_PROGRAM, strerror(errno));
	return -ENOENT;
}

/* One request and its answer, under the lock. */
static int spawn_ask(struct spawn_msg *m, const int *fds, size_t n_fds)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;
	int rc = 0;

	memset(&u, 0, sizeof(u));
	if (n_fds) {
		struct cmsghdr *cm;

		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, n_fds * sizeof(int));
	}
	pthread_mutex_lock(&spawn_g.lock);
	if (spawn_g.fd < 0)
		rc = -ENOTCONN;
	else if (sendmsg(spawn_g.fd, &mh, MSG_NOSIGNAL) != (ssize_t)sizeof(*m))
		rc = -errno;
	else if ((n = recv(spawn_g.fd, m, sizeof(*m), 0)) != (ssize_t)sizeof(*m))
		rc = n < 0 ? -errno : -EPIPE;
	else
		rc = m->rc;
	pthread_mutex_unlock(&spawn_g.lock);
	return rc;
}
