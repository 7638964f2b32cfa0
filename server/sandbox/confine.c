/* SPDX-License-Identifier: MIT */
/*
 * The sandbox's confinement (server/sandbox/confine.h): rlimits, landlock
 * through its system calls (glibc has no wrappers), and a seccomp filter
 * written as classic BPF with the kernel's own headers (no libseccomp:
 * nothing more is loaded into the sandbox, and the whole filter is the
 * two tables below).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>

#include "confine.h"

/* ---- resource limits ---------------------------------------------------- */

struct confine_limit {
	int resource;
	rlim_t value;
	enum confine_phase phase;      /* set by that phase's call */
};

/*
 * Soft and hard limit alike: without CAP_SYS_RESOURCE a hard limit can
 * only be lowered, so the plugin cannot raise any of them back.
 * Not RLIMIT_CPU: it counts the process's whole life and would end a
 * healthy busy sandbox; a call's time budget is the worker's watchdog.
 * RLIMIT_STACK stays as it is: a write of the whole stack ends at the
 * guard page with SIGSEGV.
 * CONFINE_LOAD's hold before any plugin code runs: neither dlopen() nor
 * a plugin's init() forks, writes a file, dumps core, locks memory,
 * opens a message queue or changes its priority.
 */
static const struct confine_limit confine_limits_fixed[] = {
	/* a fork fails even before seccomp refuses it; not enforced for
	 * root or CAP_SYS_RESOURCE/CAP_SYS_ADMIN (kernel copy_process()):
	 * the sandbox runs as its own unprivileged user */
	{ .resource = RLIMIT_NPROC,    .value = 0, .phase = CONFINE_LOAD },
	{ .resource = RLIMIT_FSIZE,    .value = 0, .phase = CONFINE_LOAD },
	/* no core file holding packet data */
	{ .resource = RLIMIT_CORE,     .value = 0, .phase = CONFINE_LOAD },
	{ .resource = RLIMIT_MEMLOCK,  .value = 0, .phase = CONFINE_LOAD },
	{ .resource = RLIMIT_MSGQUEUE, .value = 0, .phase = CONFINE_LOAD },
	{ .resource = RLIMIT_NICE,     .value = 0, .phase = CONFINE_LOAD },
	{ .resource = RLIMIT_RTPRIO,   .value = 0, .phase = CONFINE_LOAD },
	/*
	 * fds 0..4 stay usable (3: the channel socket, 4: the channel
	 * memfd), and no new one can be made: the kernel refuses an fd
	 * number >= RLIMIT_NOFILE (EMFILE), whatever call asks for it, so
	 * this covers calls seccomp might one day let through.  Hence it
	 * is the serving phase's: dlopen() and the landlock rulesets open
	 * fds.
	 */
	{ .resource = RLIMIT_NOFILE,   .value = CONFINE_CHAN_FD + 2, .phase = CONFINE_SERVE },
};

static int confine_limits_phase(enum confine_phase phase);
static int confine_limit_set(int resource, rlim_t value);

int confine_limits_load(uint64_t mem_bytes)
{
	int rc = 0;

	if (mem_bytes == 0)
		return -EINVAL;
	/* address space, not RSS: the mapped channel and libc count too,
	 * and a failed mmap()/brk() is a NULL from malloc(), not a kill;
	 * before the load, so a constructor's allocation is bounded too.
	 * Not in an ASan build: its shadow (terabytes, reserved at start)
	 * is past any limit, so the load itself would find no room. */
	if (!CONFINE_ASAN)
		rc = confine_limit_set(RLIMIT_AS, (rlim_t)mem_bytes);
	return rc < 0 ? rc : confine_limits_phase(CONFINE_LOAD);
}

int confine_limits_serve(void)
{
	return confine_limits_phase(CONFINE_SERVE);
}

static int confine_limits_phase(enum confine_phase phase)
{
	for (size_t i = 0; i < sizeof(confine_limits_fixed) / sizeof(confine_limits_fixed[0]); i++) {
		const struct confine_limit *l = &confine_limits_fixed[i];
		int rc;

		if (l->phase == phase && (rc = confine_limit_set(l->resource, l->value)) < 0)
			return rc;
	}
	return 0;
}

static int confine_limit_set(int resource, rlim_t value)
{
	const struct rlimit rl = { .rlim_cur = value, .rlim_max = value };

	return setrlimit(resource, &rl) < 0 ? -errno : 0;
}

/* ---- landlock ----------------------------------------------------------- */

/*
 * Rights newer than Debian 12's <linux/landlock.h> (Linux 6.1, ABI 2),
 * with the ABI that brought each; values from the kernel's UAPI header.
 */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)               /* ABI 3, 6.2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)              /* ABI 5, 6.10 */
#endif
#define CONFINE_LL_NET_TCP ((1ULL << 0) | (1ULL << 1))        /* ABI 4 BIND/CONNECT_TCP */
#define CONFINE_LL_SCOPE ((1ULL << 0) | (1ULL << 1))          /* ABI 6 abstract unix, signal */

/*
 * struct landlock_ruleset_attr as the newest kernels read it.  The kernel
 * takes the size it is given and refuses (E2BIG) non-zero bytes past the
 * struct it knows, so the size passed is cut to the running ABI's.
 */
struct confine_ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;   /* ABI 4 */
	uint64_t scoped;               /* ABI 6 */
};

/* Every file-system right of each ABI: a right the ruleset does not
 * handle stays allowed, so all of them are handled. */
static const uint64_t confine_ll_fs_abi[] = {
	[1] = (1ULL << 13) - 1,                                /* EXECUTE .. MAKE_SYM */
	[2] = LANDLOCK_ACCESS_FS_REFER,
	[3] = LANDLOCK_ACCESS_FS_TRUNCATE,
	[5] = LANDLOCK_ACCESS_FS_IOCTL_DEV,
};

/* What "read and execute beneath" grants: a directory is read and
 * listed, a file read and mapped executable (dlopen). */
#define CONFINE_LL_READ_FILE (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE)
#define CONFINE_LL_READ_DIR  (CONFINE_LL_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

static int confine_ll_ruleset(int abi, uint64_t *handled);
static int confine_ll_allow(int ruleset, const char *path, uint64_t handled);
static int confine_ll_enforce(int ruleset);

int confine_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	/* ENOSYS: not built into the kernel; EOPNOTSUPP: built, not
	 * enabled at boot (lsm=) */
	return abi < 0 ? -errno : (int)abi;
}

int confine_landlock_paths(const char *const *paths)
{
	uint64_t handled;
	int ruleset, rc = 0;

	if ((ruleset = confine_ll_ruleset(confine_landlock_abi(), &handled)) < 0)
		return ruleset;
	for (; *paths && rc == 0; paths++) {
		rc = confine_ll_allow(ruleset, *paths, handled);
		/* a library directory this system lacks grants nothing:
		 * /usr/lib64 without merged /usr (a buildd chroot of Debian
		 * 12, where every sandbox failed to start on it), /lib64 on
		 * other architectures */
		if (rc == -ENOENT)
			rc = 0;
	}
	if (rc == 0)
		rc = confine_ll_enforce(ruleset);
	close(ruleset);
	return rc;
}

int confine_landlock_none(void)
{
	uint64_t handled;
	int ruleset, rc;

	if ((ruleset = confine_ll_ruleset(confine_landlock_abi(), &handled)) < 0)
		return ruleset;
	rc = confine_ll_enforce(ruleset);
	close(ruleset);
	return rc;
}

/* A ruleset handling every right the running kernel knows; its fd. */
static int confine_ll_ruleset(int abi, uint64_t *handled)
{
	struct confine_ll_attr attr = { 0 };
	size_t size = offsetof(struct confine_ll_attr, handled_access_net);
	long fd;

	if (abi < 1)
		return -EOPNOTSUPP;
	for (int i = 1; i <= abi && i < (int)(sizeof(confine_ll_fs_abi) / sizeof(confine_ll_fs_abi[0])); i++)
		attr.handled_access_fs |= confine_ll_fs_abi[i];
	if (abi >= 4) {
		/* no TCP bind or connect: seccomp refuses socket() already */
		attr.handled_access_net = CONFINE_LL_NET_TCP;
		size = offsetof(struct confine_ll_attr, scoped);
	}
	if (abi >= 6) {
		/* no signal to, no abstract socket of, a process outside */
		attr.scoped = CONFINE_LL_SCOPE;
		size = sizeof(attr);
	}
	*handled = attr.handled_access_fs;
	fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	return fd < 0 ? -errno : (int)fd;
}

static int confine_ll_allow(int ruleset, const char *path, uint64_t handled)
{
	struct landlock_path_beneath_attr rule = { 0 };
	struct stat st;
	int fd, rc = 0;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		goto out;
	}
	/* a file given directory rights is EINVAL to the kernel */
	rule.allowed_access = (S_ISDIR(st.st_mode) ? CONFINE_LL_READ_DIR : CONFINE_LL_READ_FILE) & handled;
	rule.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) < 0)
		rc = -errno;
out:
	close(fd);
	return rc;
}

static int confine_ll_enforce(int ruleset)
{
	/* without CAP_SYS_ADMIN, landlock_restrict_self() needs it */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return syscall(SYS_landlock_restrict_self, ruleset, 0) < 0 ? -errno : 0;
}

/* ---- seccomp ------------------------------------------------------------ */

/*
 * A rule allows one system call when every check holds: the argument's
 * low 32 bits, masked, equal the value, and its high 32 bits are 0 (the
 * filter sees the 64-bit register, whatever type the kernel gives it).
 */
struct confine_check {
	uint8_t arg;
	bool own_pid;                  /* value: getpid() at install time */
	uint32_t mask;
	uint32_t value;
};

struct confine_rule {
	uint32_t nr;
	uint8_t nchecks;
	struct confine_check check[2];
};

#define CONFINE_ANY(name) { .nr = SYS_##name }
#define CONFINE_ARG(name, a, m, v) \
	{ .nr = SYS_##name, .nchecks = 1, .check = { { .arg = a, .mask = m, .value = v } } }

/* recvfrom/sendto: the channel's doorbell, no other socket */
#define CONFINE_CHAN(name) CONFINE_ARG(name, 0, UINT32_MAX, CONFINE_CHAN_FD)
/* mmap/mprotect: no new executable page once the plugin is loaded */
#define CONFINE_NOEXEC(name) CONFINE_ARG(name, 2, PROT_EXEC, 0)
#define CONFINE_OPEN_WRITE (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)

/* Both phases: the channel, memory, and what abort() and the SIGSYS
 * handler need. */
static const struct confine_rule confine_rules_common[] = {
	CONFINE_CHAN(recvfrom),
	CONFINE_CHAN(sendto),
	CONFINE_ANY(futex),
	CONFINE_ANY(exit_group),
	CONFINE_ANY(exit),
	CONFINE_ANY(rt_sigreturn),
	CONFINE_ANY(brk),
	CONFINE_ANY(munmap),
	CONFINE_ANY(mremap),
	CONFINE_ANY(madvise),              /* glibc free() trimming */
	CONFINE_ANY(getpid),
	CONFINE_ANY(gettid),
	/* abort(): raise() is tgkill(getpid(), gettid(), SIGABRT) in glibc
	 * 2.36, with rt_sigprocmask around it; no other process */
	{ .nr = SYS_tgkill, .nchecks = 1,
	  .check = { { .arg = 0, .own_pid = true, .mask = UINT32_MAX } } },
	CONFINE_ANY(rt_sigprocmask),
	CONFINE_ANY(clock_gettime),        /* the vDSO's fallback */
	CONFINE_ANY(getrandom),
	CONFINE_ANY(sched_yield),
	/* waiting touches nothing: a plugin that sleeps is stopped by its
	 * time budget (the daemon's), not by the filter */
	CONFINE_ANY(clock_nanosleep),
	CONFINE_ANY(nanosleep),
};

/*
 * An ASan build asks at every call of a noreturn function (_exit, abort)
 * where the alternate signal stack is: sigaltstack(NULL, &old), a query
 * only.  Measured by test_confine under ASan; a build without it never
 * makes the call.
 */
static const struct confine_rule confine_rules_sanitizer[] = {
#if CONFINE_ASAN
	CONFINE_ARG(sigaltstack, 0, UINT32_MAX, 0),
#endif
	{ .nr = UINT32_MAX },           /* never a system call: keeps it non-empty */
};

static const struct confine_rule confine_rules_serve[] = {
	CONFINE_NOEXEC(mmap),
	CONFINE_NOEXEC(mprotect),
};

/*
 * glibc 2.36's dlopen() of a plugin, measured (strace, then
 * tests/unit/test_confine.c with exactly this list): openat(O_RDONLY|
 * O_CLOEXEC), read of the ELF header, newfstatat(AT_EMPTY_PATH) (glibc's
 * fstat), mmap of each segment (PROT_EXEC for the text), close, mprotect
 * of RELRO; brk and getrandom of its first malloc are in both sets.
 * pread64: glibc reads program headers that lie past the first 832 bytes
 * with it (none of ours, a third-party plugin's may).  Then the steps that
 * follow the load (confine.h), each of which only narrows what the
 * process may do.
 */
static const struct confine_rule confine_rules_load[] = {
	CONFINE_ARG(openat, 2, CONFINE_OPEN_WRITE, 0),
	CONFINE_ANY(read),
	CONFINE_ANY(pread64),
	CONFINE_ANY(newfstatat),
	CONFINE_ANY(readlink),          /* the loader's realpath() of the file */
	/* the loader's owner check (loader_stat_check()) of a plugin that is
	 * not root's: a daemon started as its own user over its own plugins */
	CONFINE_ANY(geteuid),
	CONFINE_ANY(close),
	CONFINE_ANY(mmap),
	CONFINE_ANY(mprotect),
	CONFINE_ARG(prctl, 0, UINT32_MAX, PR_SET_NO_NEW_PRIVS),
	{ .nr = SYS_seccomp, .nchecks = 2,
	  .check = { { .arg = 0, .mask = UINT32_MAX, .value = SECCOMP_SET_MODE_FILTER },
		     { .arg = 1, .mask = UINT32_MAX, .value = 0 } } },
	CONFINE_ANY(landlock_create_ruleset),
	CONFINE_ANY(landlock_add_rule),
	CONFINE_ANY(landlock_restrict_self),
	CONFINE_ARG(prlimit64, 0, UINT32_MAX, 0),  /* pid 0: itself */
};

#define N_RULES(t) (sizeof(t) / sizeof((t)[0]))

#define CONFINE_PROG_MAX 256

struct confine_prog {
	struct sock_filter insn[CONFINE_PROG_MAX];
	unsigned int len;
};

static void confine_prog_head(struct confine_prog *p);
static void confine_prog_rules(struct confine_prog *p, const struct confine_rule *rules,
			       size_t n, uint32_t pid);

int confine_seccomp(enum confine_phase phase)
{
	struct confine_prog p = { .len = 0 };
	struct sock_fprog fprog;
	uint32_t pid = (uint32_t)getpid();

	confine_prog_head(&p);
	confine_prog_rules(&p, confine_rules_common, N_RULES(confine_rules_common), pid);
	confine_prog_rules(&p, confine_rules_sanitizer, N_RULES(confine_rules_sanitizer) - 1, pid);
	if (phase == CONFINE_LOAD)
		confine_prog_rules(&p, confine_rules_load, N_RULES(confine_rules_load), pid);
	else
		confine_prog_rules(&p, confine_rules_serve, N_RULES(confine_rules_serve), pid);
	confine_prog_rules(&p, NULL, 0, pid);
	if (p.len > CONFINE_PROG_MAX)
		return -E2BIG;
	fprog.len = (unsigned short)p.len;
	fprog.filter = p.insn;
	/* an unprivileged process may install a filter only with it set */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) < 0 ? -errno : 0;
}

static void confine_prog_add(struct confine_prog *p, struct sock_filter f)
{
	if (p->len < CONFINE_PROG_MAX)
		p->insn[p->len] = f;
	p->len++;                      /* past the end: E2BIG at install */
}

/* BPF_STMT/BPF_JUMP are initialisers; these are values */
#define CONFINE_STMT(code, k)   ((struct sock_filter)BPF_STMT((code), (k)))
#define CONFINE_JEQ(k, jf)      ((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (jf)))
#define CONFINE_LD(off)         CONFINE_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define CONFINE_RET(action)     CONFINE_STMT(BPF_RET | BPF_K, (action))
#define CONFINE_ARG_LO(i)       (offsetof(struct seccomp_data, args) + 8 * (i))
#define CONFINE_ARG_HI(i)       (CONFINE_ARG_LO(i) + 4)   /* x86_64: little endian */

/*
 * The architecture first: the same number is another call in the i386
 * table (int 0x80 from a 64-bit process), so anything else is killed
 * outright.  x32 numbers (bit 30) reach the same handlers as x86_64's:
 * refused as a whole, whatever rule might match their low bits.
 */
static void confine_prog_head(struct confine_prog *p)
{
	confine_prog_add(p, CONFINE_LD(offsetof(struct seccomp_data, arch)));
	confine_prog_add(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
							 AUDIT_ARCH_X86_64, 1, 0));
	confine_prog_add(p, CONFINE_RET(SECCOMP_RET_KILL_PROCESS));
	confine_prog_add(p, CONFINE_LD(offsetof(struct seccomp_data, nr)));
	confine_prog_add(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, __X32_SYSCALL_BIT, 0, 1));
	confine_prog_add(p, CONFINE_RET(SECCOMP_RET_TRAP));
}

/*
 * Each rule: "nr == rule's? else skip the block"; the block checks the
 * arguments and ends in a return either way, so A still holds nr for the
 * next rule.  Per check, 5 instructions (the check's index k of n):
 *	ld hi; jeq 0 else fail; ld lo; and mask; jeq value else fail
 * then "ret allow" at 5n and "ret trap" (fail) at 5n + 1.
 * rules == NULL closes the program with the default action.
 */
static void confine_prog_rules(struct confine_prog *p, const struct confine_rule *rules,
			       size_t n, uint32_t pid)
{
	if (!rules) {
		confine_prog_add(p, CONFINE_RET(SECCOMP_RET_TRAP));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct confine_rule *r = &rules[i];
		unsigned int nc = r->nchecks;

		confine_prog_add(p, CONFINE_JEQ(r->nr, nc ? 5 * nc + 2 : 1));
		for (unsigned int k = 0; k < nc; k++) {
			const struct confine_check *c = &r->check[k];
			uint8_t left = (uint8_t)(5 * (nc - k));

			confine_prog_add(p, CONFINE_LD(CONFINE_ARG_HI(c->arg)));
			confine_prog_add(p, CONFINE_JEQ(0, left - 1));
			confine_prog_add(p, CONFINE_LD(CONFINE_ARG_LO(c->arg)));
			confine_prog_add(p, CONFINE_STMT(BPF_ALU | BPF_AND | BPF_K, c->mask));
			confine_prog_add(p, CONFINE_JEQ(c->own_pid ? pid : c->value, left - 4));
		}
		confine_prog_add(p, CONFINE_RET(SECCOMP_RET_ALLOW));
		if (nc)
			confine_prog_add(p, CONFINE_RET(SECCOMP_RET_TRAP));
	}
}

/* ---- the SIGSYS report -------------------------------------------------- */

/* si_code of a SIGSYS from SECCOMP_RET_TRAP (<asm-generic/siginfo.h>,
 * which cannot be included next to glibc's <signal.h>) */
#define CONFINE_SYS_SECCOMP 1

static volatile uint32_t *confine_report;

static void confine_sigsys(int sig, siginfo_t *info, void *uctx);

/*
 * The handler runs on the trapped call and ends the process with
 * CONFINE_EXIT_SYSCALL, so the parent tells a refused call from a crash
 * (a signal) and reads which one it was from *nr (the channel's shared
 * memory).  Installed before the filter: rt_sigaction is in neither set.
 */
void confine_sigsys_report(volatile uint32_t *nr)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	confine_report = nr;
	sa.sa_sigaction = confine_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigfillset(&sa.sa_mask);
	sigaction(SIGSYS, &sa, NULL);
}

static void confine_sigsys(int sig, siginfo_t *info, void *uctx)
{
	(void)sig;
	(void)uctx;
	/* a SIGSYS someone sent is no refused call of ours */
	if (confine_report)
		*confine_report = info->si_code == CONFINE_SYS_SECCOMP ? (uint32_t)info->si_syscall
								       : CONFINE_NR_UNKNOWN;
	/* exit_group is in both sets; nothing else is called here */
	syscall(SYS_exit_group, CONFINE_EXIT_SYSCALL);
}

/* ---- names -------------------------------------------------------------- */

/* The calls the filters allow and the ones a hostile or careless plugin
 * is likely to try: for the status line and the replay tool. */
static const char *const confine_names[] = {
	/* allowed (both phases, or load) */
	[SYS_recvfrom] = "recvfrom",
	[SYS_sendto] = "sendto",
	[SYS_futex] = "futex",
	[SYS_exit_group] = "exit_group",
	[SYS_exit] = "exit",
	[SYS_rt_sigreturn] = "rt_sigreturn",
	[SYS_brk] = "brk",
	[SYS_mmap] = "mmap",
	[SYS_mprotect] = "mprotect",
	[SYS_munmap] = "munmap",
	[SYS_mremap] = "mremap",
	[SYS_madvise] = "madvise",
	[SYS_getpid] = "getpid",
	[SYS_geteuid] = "geteuid",
	[SYS_gettid] = "gettid",
	[SYS_tgkill] = "tgkill",
	[SYS_rt_sigprocmask] = "rt_sigprocmask",
	[SYS_clock_gettime] = "clock_gettime",
	[SYS_getrandom] = "getrandom",
	[SYS_sched_yield] = "sched_yield",
	[SYS_openat] = "openat",
	[SYS_read] = "read",
	[SYS_pread64] = "pread64",
	[SYS_newfstatat] = "newfstatat",
	[SYS_close] = "close",
	[SYS_prctl] = "prctl",
	[SYS_seccomp] = "seccomp",
	[SYS_landlock_create_ruleset] = "landlock_create_ruleset",
	[SYS_landlock_add_rule] = "landlock_add_rule",
	[SYS_landlock_restrict_self] = "landlock_restrict_self",
	[SYS_prlimit64] = "prlimit64",
	/* refused: files */
	[SYS_open] = "open",
	[SYS_openat2] = "openat2",
	[SYS_creat] = "creat",
	[SYS_write] = "write",
	[SYS_writev] = "writev",
	[SYS_pwrite64] = "pwrite64",
	[SYS_readv] = "readv",
	[SYS_lseek] = "lseek",
	[SYS_fstat] = "fstat",
	[SYS_stat] = "stat",
	[SYS_lstat] = "lstat",
	[SYS_statx] = "statx",
	[SYS_access] = "access",
	[SYS_faccessat] = "faccessat",
	[SYS_faccessat2] = "faccessat2",
	[SYS_getdents64] = "getdents64",
	[SYS_readlink] = "readlink",
	[SYS_readlinkat] = "readlinkat",
	[SYS_truncate] = "truncate",
	[SYS_ftruncate] = "ftruncate",
	[SYS_unlink] = "unlink",
	[SYS_unlinkat] = "unlinkat",
	[SYS_rename] = "rename",
	[SYS_renameat2] = "renameat2",
	[SYS_mkdir] = "mkdir",
	[SYS_mkdirat] = "mkdirat",
	[SYS_chmod] = "chmod",
	[SYS_fchmod] = "fchmod",
	[SYS_chown] = "chown",
	[SYS_fchown] = "fchown",
	[SYS_link] = "link",
	[SYS_symlink] = "symlink",
	[SYS_ioctl] = "ioctl",
	[SYS_fcntl] = "fcntl",
	[SYS_dup] = "dup",
	[SYS_dup2] = "dup2",
	[SYS_dup3] = "dup3",
	[SYS_pipe] = "pipe",
	[SYS_pipe2] = "pipe2",
	[SYS_memfd_create] = "memfd_create",
	[SYS_mount] = "mount",
	[SYS_chroot] = "chroot",
	[SYS_pivot_root] = "pivot_root",
	/* refused: network */
	[SYS_socket] = "socket",
	[SYS_socketpair] = "socketpair",
	[SYS_connect] = "connect",
	[SYS_bind] = "bind",
	[SYS_listen] = "listen",
	[SYS_accept] = "accept",
	[SYS_accept4] = "accept4",
	[SYS_sendmsg] = "sendmsg",
	[SYS_sendmmsg] = "sendmmsg",
	[SYS_recvmsg] = "recvmsg",
	[SYS_recvmmsg] = "recvmmsg",
	[SYS_setsockopt] = "setsockopt",
	[SYS_getsockopt] = "getsockopt",
	/* refused: processes, identity, signals */
	[SYS_execve] = "execve",
	[SYS_execveat] = "execveat",
	[SYS_clone] = "clone",
	[SYS_clone3] = "clone3",
	[SYS_fork] = "fork",
	[SYS_vfork] = "vfork",
	[SYS_kill] = "kill",
	[SYS_tkill] = "tkill",
	[SYS_rt_sigqueueinfo] = "rt_sigqueueinfo",
	[SYS_rt_tgsigqueueinfo] = "rt_tgsigqueueinfo",
	[SYS_rt_sigaction] = "rt_sigaction",
	[SYS_pidfd_open] = "pidfd_open",
	[SYS_pidfd_send_signal] = "pidfd_send_signal",
	[SYS_pidfd_getfd] = "pidfd_getfd",
	[SYS_ptrace] = "ptrace",
	[SYS_process_vm_readv] = "process_vm_readv",
	[SYS_process_vm_writev] = "process_vm_writev",
	[SYS_unshare] = "unshare",
	[SYS_setns] = "setns",
	[SYS_setuid] = "setuid",
	[SYS_setgid] = "setgid",
	[SYS_setresuid] = "setresuid",
	[SYS_setresgid] = "setresgid",
	[SYS_setgroups] = "setgroups",
	[SYS_capset] = "capset",
	[SYS_setrlimit] = "setrlimit",
	[SYS_setsid] = "setsid",
	/* refused: waiting (a plugin call never sleeps) */
	[SYS_nanosleep] = "nanosleep",
	[SYS_clock_nanosleep] = "clock_nanosleep",
	[SYS_poll] = "poll",
	[SYS_ppoll] = "ppoll",
	[SYS_select] = "select",
	[SYS_pselect6] = "pselect6",
	[SYS_epoll_create1] = "epoll_create1",
	[SYS_epoll_wait] = "epoll_wait",
	[SYS_epoll_pwait] = "epoll_pwait",
	/* refused: kernel interfaces */
	[SYS_bpf] = "bpf",
	[SYS_io_uring_setup] = "io_uring_setup",
	[SYS_io_uring_enter] = "io_uring_enter",
	[SYS_io_uring_register] = "io_uring_register",
	[SYS_perf_event_open] = "perf_event_open",
	[SYS_userfaultfd] = "userfaultfd",
	[SYS_keyctl] = "keyctl",
	[SYS_add_key] = "add_key",
	[SYS_pkey_mprotect] = "pkey_mprotect",
	[SYS_personality] = "personality",
	[SYS_uname] = "uname",
	[SYS_sysinfo] = "sysinfo",
	[SYS_init_module] = "init_module",
	[SYS_finit_module] = "finit_module",
	[SYS_kexec_load] = "kexec_load",
	[SYS_reboot] = "reboot",
	[SYS_sigaltstack] = "sigaltstack",
	[SYS_arch_prctl] = "arch_prctl",
	[SYS_set_robust_list] = "set_robust_list",
	[SYS_rseq] = "rseq",
};

const char *confine_syscall_name(uint32_t nr)
{
	return nr < sizeof(confine_names) / sizeof(confine_names[0]) ? confine_names[nr] : NULL;
}
