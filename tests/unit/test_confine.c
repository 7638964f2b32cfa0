/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's confinement (server/sandbox/confine.c), each case in a
 * forked child that confines itself and tries one thing; the parent reads
 * the wait status, the exit code and, through shared memory, the system
 * call the SIGSYS handler reported and what the child saw.
 *
 *   seccomp LOAD:  every built plugin (every .so in $CTH_BUILD/plugins) dlopen()s;
 *                  an open for writing is refused;
 *   seccomp SERVE: what a plugin's packet path uses works (malloc, free,
 *                  snprintf, memcpy, inet_pton/ntop, abort() as SIGABRT,
 *                  the FTP plugin linked in, on plugrun's host code),
 *                  the channel fd's recvfrom/sendto work, and every other
 *                  call ends the child with CONFINE_EXIT_SYSCALL naming it;
 *   rlimits:       a malloc past the limit is NULL, fork fails (NPROC),
 *                  an fd can still be opened after the load's limits and
 *                  none after the serving ones (NOFILE), the others read
 *                  back; a plugin constructor's allocation past the limit
 *                  is refused (the limits come before the load);
 *   landlock:      read beneath the given directories only, then nothing;
 *   the order confine.h documents, end to end, with a real plugin.
 *
 * Needs root for the NPROC case (the child drops to nobody: NPROC does
 * not bind root); prints PASS lines naming why a case is skipped.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/seccomp.h>

#include <cthelperd/plugin.h>

#define PLUGTEST_RNG_SEED 0x32c0f1e5u
#include "plugtest.h"
#include "sandbox/confine.h"


/* what a child tells its parent: shared, anonymous memory */
struct report {
	volatile uint32_t nr;       /* the SIGSYS handler's */
	volatile int step;          /* how far the child got */
	volatile int ret[6];
	volatile int err[6];
	char text[256];
};

static struct report *rep;
static const char *build;
static char plugin_dir[PATH_MAX];

/* ---- running a child ---------------------------------------------------- */

typedef void (*child_fn)(const void *arg);

struct outcome {
	int status;
	uint32_t nr;
};

/* fork, run fn in the child with the SIGSYS report installed, _exit(0)
 * (no atexit handlers: a sanitizer's would call what the filter refuses) */
static struct outcome child_run(child_fn fn, const void *arg)
{
	struct outcome o = { .status = -1, .nr = CONFINE_NR_UNKNOWN };
	pid_t pid;

	memset(rep, 0, sizeof(*rep));
	rep->nr = CONFINE_NR_UNKNOWN;
	fflush(NULL);
	if ((pid = fork()) < 0)
		return o;
	if (pid == 0) {
		confine_sigsys_report(&rep->nr);
		fn(arg);
		_exit(0);
	}
	while (waitpid(pid, &o.status, 0) < 0 && errno == EINTR)
		;
	o.nr = rep->nr;
	return o;
}

static void status_text(int status, uint32_t nr, char *out, size_t len)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == CONFINE_EXIT_SYSCALL) {
		const char *name = confine_syscall_name(nr);

		snprintf(out, len, "refused system call %u (%s)", nr, name ? name : "?");
	} else if (WIFEXITED(status)) {
		snprintf(out, len, "exit %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		snprintf(out, len, "signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		snprintf(out, len, "wait status %#x", status);
	}
}

static void expect_exit0(struct check *c, struct outcome o)
{
	char why[128];

	status_text(o.status, o.nr, why, sizeof(why));
	check_that(c, WIFEXITED(o.status) && WEXITSTATUS(o.status) == 0, "child: %s", why);
}

static void expect_refused(struct check *c, struct outcome o, uint32_t nr)
{
	char why[128];

	status_text(o.status, o.nr, why, sizeof(why));
	check_that(c, WIFEXITED(o.status) && WEXITSTATUS(o.status) == CONFINE_EXIT_SYSCALL,
		   "child: %s, want refused %s", why, confine_syscall_name(nr));
	check_that(c, o.nr == nr, "reported %u (%s), want %u (%s)", o.nr,
		   confine_syscall_name(o.nr) ? confine_syscall_name(o.nr) : "?", nr,
		   confine_syscall_name(nr));
}

static void confine_or_exit(enum confine_phase phase)
{
	int rc = confine_seccomp(phase);

	if (rc < 0) {
		rep->ret[3] = rc;
		_exit(100);
	}
}

/* ---- LOAD --------------------------------------------------------------- */

static void child_load_plugin(const void *arg)
{
	const char *path = arg;
	void *dl;

	confine_or_exit(CONFINE_LOAD);
	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		_exit(2);
	if (!dlsym(dl, CTH_PLUGIN_SYMBOL))
		_exit(3);
}

static void test_load_plugins(void)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d;

	if (!(d = opendir(plugin_dir))) {
		CHECK("confine/load-plugins", false, "%s: %s", plugin_dir, strerror(errno));
		return;
	}
	while ((de = readdir(d))) {
		char path[PATH_MAX + 256];
		struct check c;
		size_t len = strlen(de->d_name);

		if (len < 4 || strcmp(de->d_name + len - 3, ".so") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", plugin_dir, de->d_name);
		check_start(&c, "confine/load-dlopen-%.*s", (int)(len - 3), de->d_name);
		expect_exit0(&c, child_run(child_load_plugin, path));
		check_end(&c);
		n++;
	}
	closedir(d);
	CHECK("confine/load-plugins-found", n >= 5, "%u plugins in %s", n, plugin_dir);
}

static void child_load_open_read(const void *arg)
{
	int fd;

	(void)arg;
	confine_or_exit(CONFINE_LOAD);
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	rep->ret[0] = fd;
	if (fd < 0)
		_exit(2);
	close(fd);
}

static void child_load_open_write(const void *arg)
{
	(void)arg;
	confine_or_exit(CONFINE_LOAD);
	open("/tmp/cth-confine-never", O_WRONLY | O_CREAT, 0600);
	_exit(2);
}

static void child_load_open_flags(const void *arg)
{
	const unsigned long *flags = arg;

	confine_or_exit(CONFINE_LOAD);
	syscall(SYS_openat, AT_FDCWD, "/proc/self/stat", *flags);
	_exit(2);
}

/* the loader's owner check of a plugin that is not root's (a daemon run
 * as its own user over its own plugins) */
static void child_load_geteuid(const void *arg)
{
	(void)arg;
	confine_or_exit(CONFINE_LOAD);
	rep->ret[0] = (int)geteuid();
}

static void test_load_files(void)
{
	static const struct { const char *name; unsigned long flags; } bad[] = {
		{ "rdwr",   O_RDWR },
		{ "trunc",  O_RDONLY | O_TRUNC },
		{ "append", O_WRONLY | O_APPEND },
		/* the low 32 bits say read-only; the filter sees all 64 */
		{ "high-bits", (1UL << 32) | O_RDONLY },
	};
	struct check c;

	check_start(&c, "confine/load-open-read");
	expect_exit0(&c, child_run(child_load_open_read, NULL));
	check_end(&c);

	check_start(&c, "confine/load-geteuid");
	expect_exit0(&c, child_run(child_load_geteuid, NULL));
	check_end(&c);

	check_start(&c, "confine/load-open-write");
	expect_refused(&c, child_run(child_load_open_write, NULL), SYS_openat);
	check_end(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		check_start(&c, "confine/load-open-%s", bad[i].name);
		expect_refused(&c, child_run(child_load_open_flags, &bad[i].flags), SYS_openat);
		check_end(&c);
	}
}

/* ---- SERVE: what a plugin's packet path uses ---------------------------- */

static void child_serve_memory(const void *arg)
{
	size_t size = 1u << 20;
	char *p, *q;

	(void)arg;
	confine_or_exit(CONFINE_SERVE);
	for (int i = 0; i < 4; i++) {
		if (!(p = malloc(size)))
			_exit(2);
		memset(p, 0x5a, size);
		if (!(q = malloc(100)))
			_exit(3);
		memcpy(q, p, 100);
		if (!(p = realloc(p, 2 * size)))
			_exit(4);
		free(q);
		free(p);
	}
	rep->ret[0] = 1;
}

static void child_serve_text(const void *arg)
{
	unsigned char a6[16];
	struct in_addr a4;
	char buf[64];

	(void)arg;
	confine_or_exit(CONFINE_SERVE);
	snprintf(rep->text, sizeof(rep->text), "%s %d %u %x %.3s %5.1f", "port", -42, 7u,
		 0xbeefu, "abcdef", 2.5);
	if (inet_pton(AF_INET, "192.0.2.1", &a4) != 1 || inet_pton(AF_INET6, "2001:db8::1", a6) != 1)
		_exit(2);
	if (!inet_ntop(AF_INET6, a6, buf, sizeof(buf)) || strcmp(buf, "2001:db8::1") != 0)
		_exit(3);
}

static void child_serve_abort(const void *arg)
{
	(void)arg;
	confine_or_exit(CONFINE_SERVE);
	abort();
}

/* the FTP plugin (linked in as cth_plugin) on the host code, every
 * step under the filter: its state set up, a PORT command, the
 * expectation the host records */
static void child_serve_plugin(const void *arg)
{
	struct plugrun *f;
	struct conn c;

	(void)arg;
	confine_or_exit(CONFINE_SERVE);
	if (!(f = plugrun_new()))
		_exit(2);
	conn_init(&c, V4, TCP, "192.168.1.10", 40000, "10.0.0.2", 21);
	run_ctinfo(f, &c, O, established(O), 994, "NOOP\r\n", 6);
	rep->ret[0] = run_ctinfo(f, &c, O, established(O), 1000, "PORT 192,168,1,10,19,137\r\n", 26);
	rep->ret[1] = (int)f->n_exp;
	rep->ret[2] = (int)f->n_bad;
	rep->ret[3] = f->n_exp ? f->exp[0].dport : 0;
	conn_free(&c);
	plugrun_free(f);
}

static void test_serve_allowed(void)
{
	struct outcome o;
	struct check c;

	check_start(&c, "confine/serve-malloc-free-1MiB");
	expect_exit0(&c, child_run(child_serve_memory, NULL));
	check_that(&c, rep->ret[0] == 1, "the child did not finish");
	check_end(&c);

	check_start(&c, "confine/serve-snprintf-inet");
	expect_exit0(&c, child_run(child_serve_text, NULL));
	check_that(&c, strcmp(rep->text, "port -42 7 beef abc   2.5") == 0, "text \"%s\"", rep->text);
	check_end(&c);

	check_start(&c, "confine/serve-ftp-plugin-packet");
	expect_exit0(&c, child_run(child_serve_plugin, NULL));
	check_that(&c, rep->ret[0] == CTH_VERDICT_ACCEPT && rep->ret[1] == 1 && rep->ret[2] == 0 &&
		       rep->ret[3] == 19 * 256 + 137,
		   "verdict %d, %d expectations (port %d), %d refused calls", rep->ret[0],
		   rep->ret[1], rep->ret[3], rep->ret[2]);
	check_end(&c);

	check_start(&c, "confine/serve-abort-is-sigabrt");
	o = child_run(child_serve_abort, NULL);
	{
		char why[128];

		status_text(o.status, o.nr, why, sizeof(why));
		check_that(&c, WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGABRT,
			   "child: %s, want SIGABRT", why);
	}
	check_end(&c);
}

/* ---- SERVE: the channel ------------------------------------------------- */

struct chan_arg {
	int chan, other;            /* the child's ends */
	int misuse;                 /* 1: send on fd 5, 2: recv on fd 5 */
};

/* fd 3 = one end of a socketpair (the channel), fd 5 = another socket */
static void child_serve_chan(const void *arg)
{
	const struct chan_arg *ca = arg;
	char buf[8];

	if (dup2(ca->chan, CONFINE_CHAN_FD) < 0 || dup2(ca->other, 5) < 0)
		_exit(9);
	confine_or_exit(CONFINE_SERVE);
	if (send(CONFINE_CHAN_FD, "ping", 4, 0) != 4)
		_exit(2);
	if (recv(CONFINE_CHAN_FD, buf, sizeof(buf), 0) != 4 || memcmp(buf, "pong", 4) != 0)
		_exit(3);
	if (ca->misuse == 1)
		send(5, "x", 1, 0);
	else if (ca->misuse == 2)
		recv(5, buf, sizeof(buf), MSG_DONTWAIT);
}

static void test_serve_chan(void)
{
	static const struct { const char *name; int misuse; uint32_t nr; } cases[] = {
		{ "confine/serve-chan-fd3",          0, 0 },
		{ "confine/serve-sendto-other-fd",   1, SYS_sendto },
		{ "confine/serve-recvfrom-other-fd", 2, SYS_recvfrom },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int chan[2], other[2];
		struct chan_arg ca;
		struct outcome o;
		struct check c;
		char buf[8];

		check_start(&c, "%s", cases[i].name);
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, chan) < 0 ||
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, other) < 0) {
			check_that(&c, false, "socketpair: %s", strerror(errno));
			check_end(&c);
			continue;
		}
		ca = (struct chan_arg){ .chan = chan[1], .other = other[1], .misuse = cases[i].misuse };
		/* fds 3..6 may be these very sockets: the child moves them
		 * out of the way first */
		ca.chan = fcntl(chan[1], F_DUPFD_CLOEXEC, 20);
		ca.other = fcntl(other[1], F_DUPFD_CLOEXEC, 20);
		check_that(&c, send(chan[0], "pong", 4, 0) == 4, "send: %s", strerror(errno));
		o = child_run(child_serve_chan, &ca);
		check_that(&c, recv(chan[0], buf, sizeof(buf), MSG_DONTWAIT) == 4 &&
			       memcmp(buf, "ping", 4) == 0, "the parent did not get the child's ping");
		if (cases[i].nr)
			expect_refused(&c, o, cases[i].nr);
		else
			expect_exit0(&c, o);
		close(ca.chan);
		close(ca.other);
		close(chan[0]);
		close(chan[1]);
		close(other[0]);
		close(other[1]);
		check_end(&c);
	}
}

/* ---- SERVE: refused calls ----------------------------------------------- */

enum attack {
	A_SOCKET, A_OPENAT, A_EXECVE, A_FORK, A_SYS_FORK, A_VFORK, A_CLONE3, A_KILL,
	A_TGKILL_OTHER, A_WRITE, A_MMAP_EXEC, A_MMAP_HIGH, A_MPROTECT_EXEC, A_PTRACE,
	A_UNSHARE, A_SETUID, A_SETNS, A_MEMFD, A_IOCTL, A_BPF, A_IO_URING, A_PVM_WRITE,
	A_X32, A_SIGACTION, A_PRCTL, A_SECCOMP,
};

struct attack_arg {
	enum attack a;
	pid_t ppid;
};

static void child_serve_attack(const void *arg)
{
	const struct attack_arg *at = arg;
	char *const argv[] = { "/bin/true", NULL };
	static char page[8192] __attribute__((aligned(4096)));
	struct sigaction sa;

	confine_or_exit(CONFINE_SERVE);
	switch (at->a) {
	case A_SOCKET: socket(AF_NETLINK, SOCK_RAW, 12); break;
	case A_OPENAT: open("/etc/passwd", O_RDONLY); break;
	case A_EXECVE: execve(argv[0], argv, NULL); break;
	case A_FORK: fork(); break;
	case A_SYS_FORK: syscall(SYS_fork); break;
	case A_VFORK: syscall(SYS_vfork); break;
	case A_CLONE3: syscall(SYS_clone3, NULL, 0); break;
	case A_KILL: kill(at->ppid, 0); break;
	case A_TGKILL_OTHER: syscall(SYS_tgkill, at->ppid, at->ppid, 0); break;
	case A_WRITE: write(2, "x\n", 2); break;
	case A_MMAP_EXEC:
		mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case A_MMAP_HIGH:
		syscall(SYS_mmap, NULL, 4096, (1UL << 32) | PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case A_MPROTECT_EXEC: mprotect(page, 4096, PROT_READ | PROT_EXEC); break;
	case A_PTRACE: ptrace(PTRACE_TRACEME, 0, NULL, NULL); break;
	case A_UNSHARE: unshare(0x10000000 /* CLONE_NEWUSER */); break;
	case A_SETUID: setuid(0); break;
	case A_SETNS: setns(0, 0); break;
	case A_MEMFD: syscall(SYS_memfd_create, "x", 0); break;
	case A_IOCTL: ioctl(0, 0x5401 /* TCGETS */, page); break;
	case A_BPF: syscall(SYS_bpf, 0, NULL, 0); break;
	case A_IO_URING: syscall(SYS_io_uring_setup, 1, page); break;
	case A_PVM_WRITE: syscall(SYS_process_vm_writev, at->ppid, NULL, 0, NULL, 0, 0); break;
	case A_X32: syscall(__X32_SYSCALL_BIT + SYS_getpid); break;
	case A_SIGACTION:
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		sigaction(SIGSYS, &sa, NULL);
		break;
	case A_PRCTL: prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); break;
	case A_SECCOMP: confine_seccomp(CONFINE_SERVE); break;
	}
	_exit(2);
}

static void test_serve_refused(void)
{
	static const struct { const char *name; enum attack a; uint32_t nr; } cases[] = {
		{ "socket",         A_SOCKET,       SYS_socket },
		{ "openat",         A_OPENAT,       SYS_openat },
		{ "execve",         A_EXECVE,       SYS_execve },
		{ "fork",           A_FORK,         SYS_clone },    /* glibc's fork() */
		{ "sys-fork",       A_SYS_FORK,     SYS_fork },
		{ "vfork",          A_VFORK,        SYS_vfork },
		{ "clone3",         A_CLONE3,       SYS_clone3 },
		{ "kill-parent",    A_KILL,         SYS_kill },
		{ "tgkill-parent",  A_TGKILL_OTHER, SYS_tgkill },
		{ "write-stderr",   A_WRITE,        SYS_write },
		{ "mmap-exec",      A_MMAP_EXEC,    SYS_mmap },
		{ "mmap-high-bits", A_MMAP_HIGH,    SYS_mmap },
		{ "mprotect-exec",  A_MPROTECT_EXEC, SYS_mprotect },
		{ "ptrace",         A_PTRACE,       SYS_ptrace },
		{ "unshare",        A_UNSHARE,      SYS_unshare },
		{ "setuid",         A_SETUID,       SYS_setuid },
		{ "setns",          A_SETNS,        SYS_setns },
		{ "memfd_create",   A_MEMFD,        SYS_memfd_create },
		{ "ioctl",          A_IOCTL,        SYS_ioctl },
		{ "bpf",            A_BPF,          SYS_bpf },
		{ "io_uring_setup", A_IO_URING,     SYS_io_uring_setup },
		{ "process_vm_writev", A_PVM_WRITE, SYS_process_vm_writev },
		{ "x32-getpid",     A_X32,          __X32_SYSCALL_BIT + SYS_getpid },
		/* the handler cannot be taken away, nor the filter changed */
		{ "rt_sigaction",   A_SIGACTION,    SYS_rt_sigaction },
		{ "prctl",          A_PRCTL,        SYS_prctl },
		{ "seccomp",        A_SECCOMP,      SYS_prctl },    /* its no_new_privs first */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct attack_arg at = { .a = cases[i].a, .ppid = getpid() };
		struct check c;

		check_start(&c, "confine/serve-refuses-%s", cases[i].name);
		expect_refused(&c, child_run(child_serve_attack, &at), cases[i].nr);
		check_end(&c);
	}
}

/* int $0x80: the i386 table, where 20 is getpid; not x86_64's filter */
static void child_i386(const void *arg)
{
	long ret = 20;

	if (arg) {
		confine_or_exit(CONFINE_SERVE);
	} else {
		/* the probe: a kernel without it answers SIGSEGV, which a
		 * sanitizer would report at length */
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
	}
	__asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
	rep->ret[0] = (int)ret;
}

/* a SIGSYS that seccomp did not raise names no call */
static void child_sigsys_sent(const void *arg)
{
	(void)arg;
	raise(SIGSYS);
}

static void test_sigsys_sent(void)
{
	struct check c;

	check_start(&c, "confine/sigsys-not-from-seccomp");
	expect_refused(&c, child_run(child_sigsys_sent, NULL), CONFINE_NR_UNKNOWN);
	check_end(&c);
}

static void test_serve_arch(void)
{
	struct outcome o = child_run(child_i386, NULL);
	struct check c;
	char why[128];

	if (!WIFEXITED(o.status) || WEXITSTATUS(o.status) != 0 || rep->ret[0] <= 0) {
		CHECK("confine/serve-kills-i386 (skipped: this kernel has no i386 entry)", true, " ");
		return;
	}
	check_start(&c, "confine/serve-kills-i386");
	o = child_run(child_i386, "confined");
	status_text(o.status, o.nr, why, sizeof(why));
	check_that(&c, WIFSIGNALED(o.status) && WTERMSIG(o.status) == SIGSYS,
		   "child: %s, want killed by SIGSYS", why);
	check_that(&c, o.nr == CONFINE_NR_UNKNOWN, "the handler ran (%u)", o.nr);
	check_end(&c);
}

/* ---- rlimits ------------------------------------------------------------ */

#define LIMIT_MEM (64u << 20)

/* as nobody: RLIMIT_NPROC does not bind root */
static void child_limits(const void *arg)
{
	uint64_t mem = CONFINE_ASAN ? UINT64_MAX : LIMIT_MEM;
	struct rlimit rl;
	void *p;
	pid_t pid;
	int rc;

	(void)arg;
	if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
		_exit(10);
	/* fds 3 and 4 in use, as the sandbox's channel */
	dup2(1, 3);
	dup2(1, 4);
	if ((rc = confine_limits_load(mem)) < 0) {
		rep->ret[3] = rc;
		_exit(11);
	}
	/* loading opens files: the load's limits leave fds to it */
	rep->ret[4] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	rep->err[4] = rep->ret[4] < 0 ? errno : 0;
	if (rep->ret[4] >= 0)
		close(rep->ret[4]);
	if ((rc = confine_limits_serve()) < 0) {
		rep->ret[3] = rc;
		_exit(12);
	}
	rep->step = 1;
	if (!CONFINE_ASAN) {
		p = malloc(2 * LIMIT_MEM);
		rep->ret[0] = p == NULL;
		p = malloc(1 << 20);
		rep->ret[1] = p != NULL;
		free(p);
	}
	pid = fork();
	if (pid == 0)
		_exit(0);
	rep->ret[2] = pid;
	rep->err[2] = errno;
	rep->err[0] = open("/dev/null", O_RDONLY) < 0 ? errno : 0;
	rep->err[1] = fcntl(4, F_GETFD) < 0 ? errno : 0;
	getrlimit(RLIMIT_CORE, &rl);
	rep->err[3] = rl.rlim_max == 0;
	getrlimit(RLIMIT_NOFILE, &rl);
	rep->err[3] += rl.rlim_cur == 5 && rl.rlim_max == 5;
	getrlimit(RLIMIT_FSIZE, &rl);
	rep->err[3] += rl.rlim_max == 0;
	rep->step = 2;
}

static void test_limits(void)
{
	struct outcome o;
	struct check c;

	if (geteuid() != 0) {
		CHECK("confine/limits (skipped: not root, NPROC needs a switch to nobody)", true, " ");
		return;
	}
	check_start(&c, "confine/limits");
	o = child_run(child_limits, NULL);
	expect_exit0(&c, o);
	check_that(&c, rep->step == 2, "the child stopped at step %d (rc %d)", rep->step, rep->ret[3]);
	if (!CONFINE_ASAN) {
		check_that(&c, rep->ret[0], "malloc(%u) past RLIMIT_AS did not fail", 2 * LIMIT_MEM);
		check_that(&c, rep->ret[1], "malloc(1 MiB) under RLIMIT_AS failed");
	}
	check_that(&c, rep->ret[2] < 0 && rep->err[2] == EAGAIN, "fork: %d (%s), want EAGAIN",
		   rep->ret[2], strerror(rep->err[2]));
	check_that(&c, rep->ret[4] >= 0, "open after the load's limits: fd %d (%s), want one",
		   rep->ret[4], strerror(rep->err[4]));
	check_that(&c, rep->err[0] == EMFILE, "open with fds 0..4 in use: %s, want EMFILE",
		   strerror(rep->err[0]));
	check_that(&c, rep->err[1] == 0, "fd 4 not usable: %s", strerror(rep->err[1]));
	check_that(&c, rep->err[3] == 3, "CORE/NOFILE/FSIZE not as set (%d of 3)", rep->err[3]);
	check_end(&c);
	if (CONFINE_ASAN)
		CHECK("confine/limits-memory (skipped under ASan: its shadow memory is address space, "
		      "no RLIMIT_AS fits it)", true, " ");
}

/*
 * A plugin's constructor runs at dlopen(), before anything of the host:
 * the load's limits come first (confine.h), so its allocation past
 * sandbox_memory is refused.  ctoralloc's init() says whether its
 * constructor got CTORALLOC's 32 MiB; 16 MiB is the smallest
 * sandbox_memory, 256 the default.
 */
struct ctor_case {
	const char *plugin;
	uint64_t mem;
};

static void child_ctor(const void *arg)
{
	const struct ctor_case *cc = arg;
	const struct cth_plugin_desc *desc;
	void *dl;

	if (confine_limits_load(cc->mem) < 0)
		_exit(10);
	confine_or_exit(CONFINE_LOAD);
	rep->step = 1;
	if (!(dl = dlopen(cc->plugin, RTLD_NOW | RTLD_LOCAL)))
		_exit(11);
	if (!(desc = dlsym(dl, CTH_PLUGIN_SYMBOL)) || !desc->init)
		_exit(12);
	rep->step = 2;
	rep->ret[0] = desc->init(NULL, "ctoralloc");
}

static void test_limits_ctor(void)
{
	char plugin[PATH_MAX + 64];
	struct ctor_case cc = { .plugin = plugin };
	struct outcome o;
	struct check c;

	if (CONFINE_ASAN) {
		CHECK("confine/limits-ctor (skipped under ASan: its shadow memory is address space, "
		      "no RLIMIT_AS fits it)", true, " ");
		return;
	}
	/* beside plugin_dir (absolute: a relative dlopen() calls getcwd) */
	snprintf(plugin, sizeof(plugin), "%s/../tests/plugins/ctoralloc.so", plugin_dir);
	check_start(&c, "confine/limits-ctor-refused");
	cc.mem = 16u << 20;
	o = child_run(child_ctor, &cc);
	expect_exit0(&c, o);
	check_that(&c, rep->step == 2, "the child stopped at step %d", rep->step);
	check_that(&c, rep->ret[0] == -ENOMEM, "init() after the constructor: %d, want -ENOMEM "
		   "(its 32 MiB refused under 16)", rep->ret[0]);
	check_end(&c);
	check_start(&c, "confine/limits-ctor-within");
	cc.mem = 256u << 20;
	o = child_run(child_ctor, &cc);
	expect_exit0(&c, o);
	check_that(&c, rep->step == 2, "the child stopped at step %d", rep->step);
	check_that(&c, rep->ret[0] == 0, "init() after the constructor: %d, want 0 (32 MiB "
		   "under 256)", rep->ret[0]);
	check_end(&c);
}

/* ---- landlock ----------------------------------------------------------- */

struct ll_files {
	char dir[64], in[96], out[96], newf[96];
	bool missing;           /* a path the system lacks comes first */
};

static int read_errno(const char *path)
{
	char b[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (read(fd, b, sizeof(b)) < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static void child_landlock(const void *arg)
{
	const struct ll_files *f = arg;
	const char *paths[] = { f->dir, NULL };
	int fd, rc;

	if ((rc = confine_landlock_paths(paths)) < 0) {
		rep->ret[3] = rc;
		_exit(11);
	}
	rep->err[0] = read_errno(f->in);
	rep->err[1] = read_errno(f->out);
	fd = open(f->newf, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	rep->err[2] = fd < 0 ? errno : 0;
	if ((rc = confine_landlock_none()) < 0) {
		rep->ret[3] = rc;
		_exit(12);
	}
	rep->err[3] = read_errno(f->in);
}

/* a file, not a directory: file rights only (directory ones are EINVAL) */
/* f->in alone; with f->missing a path the system lacks (/usr/lib64
 * without merged /usr) first, which must be skipped, not fail */
static void child_landlock_file(const void *arg)
{
	const struct ll_files *f = arg;
	const char *paths[] = { f->missing ? "/nonexistent/cth-confine" : f->in, f->in, NULL };
	int rc;

	if ((rc = confine_landlock_paths(paths)) < 0) {
		rep->ret[3] = rc;
		_exit(11);
	}
	rep->err[0] = read_errno(f->in);
	rep->err[1] = read_errno(f->out);
}

static void test_landlock(void)
{
	struct ll_files f;
	struct outcome o;
	struct check c;
	int abi = confine_landlock_abi();
	FILE *fp;

	if (abi < 1) {
		CHECK("confine/landlock (skipped: no landlock on this kernel)", abi == -ENOSYS ||
		      abi == -EOPNOTSUPP, "confine_landlock_abi() = %d", abi);
		return;
	}
	printf("# landlock ABI %d\n", abi);
	snprintf(f.dir, sizeof(f.dir), "/tmp/cth-confine-XXXXXX");
	if (!mkdtemp(f.dir)) {
		CHECK("confine/landlock", false, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(f.in, sizeof(f.in), "%s/in", f.dir);
	snprintf(f.out, sizeof(f.out), "%s-out", f.dir);
	snprintf(f.newf, sizeof(f.newf), "%s/new", f.dir);
	if ((fp = fopen(f.in, "w")))
		fclose(fp);
	if ((fp = fopen(f.out, "w")))
		fclose(fp);

	check_start(&c, "confine/landlock-paths-then-none");
	o = child_run(child_landlock, &f);
	expect_exit0(&c, o);
	check_that(&c, rep->err[0] == 0, "inside: %s, want readable", strerror(rep->err[0]));
	check_that(&c, rep->err[1] == EACCES, "outside: %s, want EACCES", strerror(rep->err[1]));
	check_that(&c, rep->err[2] == EACCES, "create inside: %s, want EACCES", strerror(rep->err[2]));
	check_that(&c, rep->err[3] == EACCES, "inside after none: %s, want EACCES",
		   strerror(rep->err[3]));
	check_end(&c);

	/* a file alone, then after a path the system lacks */
	for (int m = 0; m < 2; m++) {
		f.missing = m;
		check_start(&c, m ? "confine/landlock-missing-path-skipped" : "confine/landlock-file");
		o = child_run(child_landlock_file, &f);
		expect_exit0(&c, o);
		check_that(&c, rep->ret[3] == 0, "confine_landlock_paths: %d", rep->ret[3]);
		check_that(&c, rep->err[0] == 0, "the file: %s, want readable", strerror(rep->err[0]));
		check_that(&c, rep->err[1] == EACCES, "another: %s, want EACCES", strerror(rep->err[1]));
		check_end(&c);
	}
	unlink(f.in);
	unlink(f.out);
	unlink(f.newf);
	rmdir(f.dir);
}

/* ---- the whole order (confine.h) ---------------------------------------- */

static void child_order(const void *arg)
{
	const char *plugin = arg;
	const char *paths[] = { plugin_dir, NULL };
	const struct cth_plugin_desc *desc;
	char *p;
	void *dl;
	int rc;

	if (confine_limits_load(CONFINE_ASAN ? UINT64_MAX : 256u << 20) < 0)
		_exit(14);
	if ((rc = confine_landlock_paths(paths)) < 0 && rc != -EOPNOTSUPP)
		_exit(10);
	confine_or_exit(CONFINE_LOAD);
	rep->step = 1;
	if (!(dl = dlopen(plugin, RTLD_NOW | RTLD_LOCAL)))
		_exit(11);
	if (!(desc = dlsym(dl, CTH_PLUGIN_SYMBOL)))
		_exit(12);
	rep->step = 2;
	if ((rc = confine_landlock_none()) < 0 && rc != -EOPNOTSUPP)
		_exit(13);
	rep->step = 3;
	if (confine_limits_serve() < 0)
		_exit(16);
	rep->step = 4;
	confine_or_exit(CONFINE_SERVE);
	rep->step = 5;
	snprintf(rep->text, sizeof(rep->text), "%s", desc->name);
	if (!(p = malloc(1 << 20)))
		_exit(15);
	free(p);
	open(plugin, O_RDONLY);   /* the end: refused */
}

static void test_order(void)
{
	char plugin[PATH_MAX + 16];
	struct outcome o;
	struct check c;

	snprintf(plugin, sizeof(plugin), "%s/ftp.so", plugin_dir);
	check_start(&c, "confine/order-load-then-serve");
	o = child_run(child_order, plugin);
	check_that(&c, rep->step == 5, "the child stopped after step %d", rep->step);
	expect_refused(&c, o, SYS_openat);
	check_that(&c, strcmp(rep->text, "ftp") == 0, "plugin name \"%s\"", rep->text);
	check_end(&c);
}

/* ---- names -------------------------------------------------------------- */

static void test_names(void)
{
	struct check c;

	check_start(&c, "confine/syscall-names");
	check_that(&c, confine_syscall_name(SYS_openat) &&
		       strcmp(confine_syscall_name(SYS_openat), "openat") == 0, "openat");
	check_that(&c, confine_syscall_name(SYS_socket) &&
		       strcmp(confine_syscall_name(SYS_socket), "socket") == 0, "socket");
	check_that(&c, confine_syscall_name(SYS_clone3) &&
		       strcmp(confine_syscall_name(SYS_clone3), "clone3") == 0, "clone3");
	check_that(&c, confine_syscall_name(CONFINE_NR_UNKNOWN) == NULL, "UINT32_MAX named");
	check_that(&c, confine_syscall_name(__X32_SYSCALL_BIT) == NULL, "x32 named");
	check_end(&c);
}

int main(void)
{
	build = getenv("CTH_BUILD");
	snprintf(plugin_dir, sizeof(plugin_dir), "%s/plugins", build && *build ? build : "build");
	{
		char *real = realpath(plugin_dir, NULL);

		if (real) {
			snprintf(plugin_dir, sizeof(plugin_dir), "%s", real);
			free(real);
		}
	}
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rep == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	test_names();
	test_load_plugins();
	test_load_files();
	test_serve_allowed();
	test_serve_chan();
	test_serve_refused();
	test_serve_arch();
	test_sigsys_sent();
	test_limits();
	test_limits_ctor();
	test_landlock();
	test_order();
	return check_exit();
}
