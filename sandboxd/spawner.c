/* SPDX-License-Identifier: MIT */
/*
 * The spawner (server/sandbox/spawn.h): started by the daemon as root,
 * it keeps CAP_SETUID, CAP_SETGID and CAP_KILL only, reads requests on
 * fd 3 and starts each sandbox as this very program under the sandbox
 * user.  It holds no netlink socket, reads no packet and loads no plugin.
 * When the daemon goes (its socket closes), it kills what it started and
 * exits.
 */
#include <cap-ng.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/spawn.h"
#include "sbx.h"

#define SPAWNER_FD 3
/* sandboxes alive at once: helpers (CFG_MAX_HELPERS) of two runtimes
 * during a reload, plus the ones being replaced */
#define SPAWNER_MAX 1024

struct spawner {
	long uid, gid;          /* -1: do not change user */
	pid_t kids[SPAWNER_MAX];
	size_t n_kids;
};

static int spawner_caps_keep(void);
static void spawner_serve(struct spawner *s);
static void spawner_answer(struct spawner *s, struct spawn_msg *m, int *fds, size_t n_fds);
static pid_t spawner_start(struct spawner *s, int sock, int memfd);
static void spawner_child(const struct spawner *s, int sock, int memfd) __attribute__((noreturn));
static bool spawner_kid_has(const struct spawner *s, pid_t pid);
static void spawner_kid_drop(struct spawner *s, pid_t pid);
static void spawner_kill_all(struct spawner *s);

int sbx_spawner_main(long uid, long gid)
{
	static struct spawner s;
	static const int quiet[] = { SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE };

	s.uid = uid;
	s.gid = gid;
	prctl(PR_SET_NAME, "cthelperd-spawn");
	/* the daemon's signals are the daemon's: an operator's kill -HUP of
	 * the process group must not end the spawner */
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	if (uid >= 0 && spawner_caps_keep() < 0) {
		fprintf(stderr, "cthelperd-sandbox: spawner: cannot drop capabilities\n");
		return 1;
	}
	spawner_serve(&s);
	spawner_kill_all(&s);
	return 0;
}

/* Only what starting a sandbox under its user and killing it need. */
static int spawner_caps_keep(void)
{
	capng_clear(CAPNG_SELECT_BOTH);
	if (capng_updatev(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED, CAP_SETUID,
			  CAP_SETGID, CAP_KILL, -1) < 0 ||
	    capng_apply(CAPNG_SELECT_BOTH) < 0)
		return -EPERM;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -errno : 0;
}

static void spawner_serve(struct spawner *s)
{
	for (;;) {
		union {
			char buf[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr align;
		} u;
		struct spawn_msg m;
		struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
		int fds[4];
		size_t n_fds = 0;
		ssize_t n = recvmsg(SPAWNER_FD, &mh, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k && n_fds < 4; i++)
				memcpy(&fds[n_fds++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
		}
		if (n != (ssize_t)sizeof(m) || (mh.msg_flags & MSG_CTRUNC)) {
			m.rc = -EPROTO;
			m.op = 0;
		}
		spawner_answer(s, &m, fds, n_fds);
		for (size_t i = 0; i < n_fds; i++)
			close(fds[i]);
		if (send(SPAWNER_FD, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
			return;
	}
}

static void spawner_answer(struct spawner *s, struct spawn_msg *m, int *fds, size_t n_fds)
{
	int st;

	switch (m->op) {
	case SPAWN_OP_START:
		m->pid = n_fds == 2 ? spawner_start(s, fds[0], fds[1]) : -EINVAL;
		m->rc = m->pid < 0 ? m->pid : 0;
		break;
	case SPAWN_OP_KILL:
		/* only its own children: the daemon's word is not enough to
		 * kill anything else */
		m->rc = !spawner_kid_has(s, m->pid) ? -ESRCH :
			kill(m->pid, SIGKILL) < 0 ? -errno : 0;
		break;
	case SPAWN_OP_REAP:
		if (!spawner_kid_has(s, m->pid)) {
			m->rc = -ESRCH;
			break;
		}
		while (waitpid(m->pid, &st, 0) < 0 && errno == EINTR)
			;
		spawner_kid_drop(s, m->pid);
		m->status = st;
		m->rc = 0;
		break;
	default:
		m->rc = -EINVAL;
	}
}

static pid_t spawner_start(struct spawner *s, int sock, int memfd)
{
	pid_t pid;

	if (s->n_kids == SPAWNER_MAX)
		return -EAGAIN;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		spawner_child(s, sock, memfd);
	s->kids[s->n_kids++] = pid;
	return pid;
}

/*
 * The sandbox's start: its two fds as 3 and 4, nothing else open but
 * /dev/null, a session of its own, the sandbox user's ids (all three of
 * each, so none can be regained), no supplementary groups, killed with
 * the spawner, and no way to gain privileges by exec; then a fresh image
 * of this program.  Landlock, seccomp and the limits come in the program
 * (sandboxd/serve.c), before it loads the plugin.
 */
static void spawner_child(const struct spawner *s, int sock, int memfd)
{
	char *argv[] = { SPAWN_PROGRAM_NAME, "--serve", NULL };
	char *envp[] = { NULL };
	int a = fcntl(sock, F_DUPFD, 16), b = fcntl(memfd, F_DUPFD, 16);
	int null = open("/dev/null", O_RDWR);

	if (a < 0 || b < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    dup2(a, 3) < 0 || dup2(b, 4) < 0)
		_exit(126);
	/* stderr stays: what the loader says before the channel is up */
	close_range(5, ~0u, 0);
	if (setsid() < 0)
		_exit(126);
	if (s->uid >= 0 &&
	    (setgroups(0, NULL) < 0 || setresgid((gid_t)s->gid, (gid_t)s->gid, (gid_t)s->gid) < 0 ||
	     setresuid((uid_t)s->uid, (uid_t)s->uid, (uid_t)s->uid) < 0))
		_exit(126);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		_exit(126);
	execve("/proc/self/exe", argv, envp);
	_exit(127);
}

static bool spawner_kid_has(const struct spawner *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_kids; i++)
		if (s->kids[i] == pid && pid > 0)
			return true;
	return false;
}

static void spawner_kid_drop(struct spawner *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_kids; i++) {
		if (s->kids[i] == pid) {
			s->kids[i] = s->kids[--s->n_kids];
			return;
		}
	}
}

static void spawner_kill_all(struct spawner *s)
{
	for (size_t i = 0; i < s->n_kids; i++)
		kill(s->kids[i], SIGKILL);
	for (size_t i = 0; i < s->n_kids; i++)
		waitpid(s->kids[i], NULL, 0);
	s->n_kids = 0;
}
