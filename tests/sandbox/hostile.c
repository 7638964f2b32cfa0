/* SPDX-License-Identifier: MIT */
/*
 * A hostile test plugin (issue 32): what a plugin taken over by one bad
 * packet would try, run from inside packet() on command, so the VM suite
 * (tests/sandbox/run.sh) can show each attempt refused or survived by the
 * sandbox, and, with "sandbox = no", that each one is real.
 *
 *   PING <port>            expect UDP from the peer (the original
 *                          direction's destination, any source port) to
 *                          this packet's sender, port <port>: the suite
 *                          sends that datagram through the firewall and
 *                          so sees the helper serve; counted as "ping"
 *   ATTACK <name> [args]   run one attack (hostile_attacks[] below)
 *
 * One command per packet, in the original direction, UDP or TCP.  An
 * attack that returns counts "attack_succeeded" or "attack_failed" and
 * logs "hostile: ATTACK <name>: succeeded|failed (...)"; one that ends
 * the process counts nothing.  The attacks are blunt on purpose: each
 * calls the system directly, as compiled plugin code can, and none goes
 * through the SDK but the last step of open-shadow (cth_mangle, the
 * channel a plugin legitimately has).  Built only for the tests
 * ($(B)/tests/plugins/hostile.so), never installed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netfilter/nfnetlink_cthelper.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cthelperd/plugin.h>

enum hostile_counter {
	HOSTILE_C_PING,
	HOSTILE_C_SUCCEEDED,
	HOSTILE_C_FAILED,
	HOSTILE_C_COUNT,
};

struct hostile_config {
	struct cth_ports ports;
};

/* An attack: 1 succeeded, 0 failed (refused); why says how, one line. */
typedef int hostile_fn(struct cth_ctx *ctx, const struct cth_packet *pkt,
		       const char *args, char *why, size_t len);

struct hostile_attack {
	const char *name;
	hostile_fn *fn;
};

static hostile_fn hostile_open_shadow, hostile_create_file, hostile_fork,
	hostile_forkbomb, hostile_exec, hostile_connect, hostile_udp_send,
	hostile_nl_ctflush, hostile_nl_helperdel, hostile_nl_nftdel,
	hostile_fd_sweep, hostile_kill_daemon, hostile_ptrace, hostile_unshare,
	hostile_setuid0, hostile_mprotect_exec, hostile_segv, hostile_abort,
	hostile_trap, hostile_loop, hostile_memory, hostile_stack,
	hostile_log_flood;

static const struct hostile_attack hostile_attacks[] = {
	{ "open-shadow", hostile_open_shadow },
	{ "create-file", hostile_create_file },
	{ "fork", hostile_fork },
	{ "forkbomb", hostile_forkbomb },
	{ "exec", hostile_exec },
	{ "connect", hostile_connect },        /* connect ADDR PORT */
	{ "udp-send", hostile_udp_send },      /* udp-send ADDR PORT */
	{ "nl-ctflush", hostile_nl_ctflush },
	{ "nl-helperdel", hostile_nl_helperdel }, /* nl-helperdel NAME */
	{ "nl-nftdel", hostile_nl_nftdel },    /* nl-nftdel TABLE (family inet) */
	{ "fd-sweep", hostile_fd_sweep },
	{ "kill-daemon", hostile_kill_daemon }, /* kill-daemon [PID] */
	{ "ptrace", hostile_ptrace },          /* ptrace PID */
	{ "unshare", hostile_unshare },
	{ "setuid0", hostile_setuid0 },
	{ "mprotect-exec", hostile_mprotect_exec },
	{ "segv", hostile_segv },
	{ "abort", hostile_abort },
	{ "trap", hostile_trap },
	{ "loop", hostile_loop },
	{ "memory", hostile_memory },
	{ "stack", hostile_stack },
	{ "log-flood", hostile_log_flood },
};
#define HOSTILE_N_ATTACKS (sizeof(hostile_attacks) / sizeof(hostile_attacks[0]))

static void hostile_ping(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 const char *args);
static void hostile_attack(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const char *line);

static int hostile_packet(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  void *priv, const void *config)
{
	char line[256];
	size_t n = pkt->payload_len;

	(void)priv;
	(void)config;
	if (pkt->dir != CTH_DIR_ORIGINAL || (pkt->ct_status & CTH_CT_EXPECTED))
		return CTH_VERDICT_ACCEPT;
	if (n > sizeof(line) - 1)
		n = sizeof(line) - 1;
	memcpy(line, pkt->payload, n);
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (strncmp(line, "PING ", 5) == 0)
		hostile_ping(ctx, pkt, line + 5);
	else if (strncmp(line, "ATTACK ", 7) == 0)
		hostile_attack(ctx, pkt, line + 7);
	return CTH_VERDICT_ACCEPT;
}

/* The answer the suite sends from the peer to the sender's <port>: the
 * firewall lets it through only as RELATED, i.e. only if this ran. */
static void hostile_ping(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 const char *args)
{
	const struct cth_tuple *t = &pkt->tuple[CTH_DIR_ORIGINAL];
	struct cth_expect e = { 0 };
	unsigned long port = strtoul(args, NULL, 10);
	int rc;

	if (port == 0 || port > 65535)
		return;
	e.family = t->family;
	e.proto = IPPROTO_UDP;
	e.src = t->dst;
	e.dst = t->src;
	e.dport = (uint16_t)port;
	rc = cth_expect(ctx, &e, 0);
	cth_count(ctx, HOSTILE_C_PING);
	cth_log(ctx, CTH_LOG_NOTICE, "PING %lu: %d", port, rc);
}

static void hostile_attack(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const char *line)
{
	size_t len = strcspn(line, " ");
	const char *args = line[len] ? line + len + 1 : "";
	char why[160] = "";

	for (size_t i = 0; i < HOSTILE_N_ATTACKS; i++) {
		const struct hostile_attack *a = &hostile_attacks[i];
		int ok;

		if (strlen(a->name) != len || strncmp(a->name, line, len) != 0)
			continue;
		cth_log(ctx, CTH_LOG_NOTICE, "ATTACK %s: starting", a->name);
		ok = a->fn(ctx, pkt, args, why, sizeof(why));
		cth_count(ctx, ok ? HOSTILE_C_SUCCEEDED : HOSTILE_C_FAILED);
		cth_log(ctx, CTH_LOG_NOTICE, "ATTACK %s: %s (%s)", a->name,
			ok ? "succeeded" : "failed", why);
		return;
	}
	cth_log(ctx, CTH_LOG_NOTICE, "ATTACK %.*s: no such attack", (int)len, line);
}

/* ---- files ---------------------------------------------------------- */

/* Read the start of the file and send it on in this very packet, which
 * the suite's listener behind the firewall logs: read access and a way
 * out for what was read. */
static int hostile_open_shadow(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const char *args, char *why, size_t len)
{
	char buf[32];
	ssize_t n;
	int fd, rc;

	(void)args;
	fd = open("/etc/shadow", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "open: %s", strerror(errno));
		return 0;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0) {
		snprintf(why, len, "read: %s", n < 0 ? strerror(errno) : "empty");
		return 0;
	}
	rc = cth_mangle(ctx, 0, pkt->payload_len, buf, (size_t)n);
	snprintf(why, len, "read %zd bytes, mangled into the packet: %d", n, rc);
	return 1;
}

static int hostile_create_file(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const char *args, char *why, size_t len)
{
	static const char *const dirs[] = { "/tmp", "/var/tmp" };
	char path[64];
	int made = 0;

	(void)ctx;
	(void)pkt;
	(void)args;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/pwned-%ld", dirs[i], (long)getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			snprintf(why, len, "%s: %s", path, strerror(errno));
			continue;
		}
		close(fd);
		made++;
	}
	if (made)
		snprintf(why, len, "%d files created", made);
	return made > 0;
}

/* ---- processes ------------------------------------------------------ */

/* The child leaves a file behind, so the suite sees it ran. */
static int hostile_fork(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const char *args, char *why, size_t len)
{
	pid_t pid;

	(void)ctx;
	(void)pkt;
	(void)args;
	pid = fork();
	if (pid < 0) {
		snprintf(why, len, "fork: %s", strerror(errno));
		return 0;
	}
	if (pid == 0) {
		char path[64];

		snprintf(path, sizeof(path), "/tmp/pwned-fork-%ld", (long)getppid());
		close(open(path, O_WRONLY | O_CREAT, 0644));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	snprintf(why, len, "child %ld", (long)pid);
	return 1;
}

/* Bounded: 64 children that live 20 s, enough for the suite to count
 * them, not enough to take the test VM down when nothing stops them. */
#define HOSTILE_BOMB 64
static int hostile_forkbomb(struct cth_ctx *ctx, const struct cth_packet *pkt,
			    const char *args, char *why, size_t len)
{
	int n = 0, err = 0;

	(void)ctx;
	(void)pkt;
	(void)args;
	for (int i = 0; i < HOSTILE_BOMB; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			err = errno;
			break;
		}
		if (pid == 0) {
			/* the bomb is about processes: a child holding the
			 * daemon's queue sockets would keep a restarted
			 * daemon from binding them (seen in the open mode) */
			close_range(3, ~0u, 0);
			alarm(20);
			for (;;)
				pause();
		}
		n++;
	}
	snprintf(why, len, "%d children%s%s", n, err ? ", then " : "", err ? strerror(err) : "");
	return n > 0;
}

/* Replaces the process image: on success nothing returns. */
static int hostile_exec(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const char *args, char *why, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)args;
	execl("/bin/sh", "sh", "-c", "touch /tmp/pwned-exec", (char *)NULL);
	snprintf(why, len, "execve: %s", strerror(errno));
	return 0;
}

/* kill-daemon [PID]: the pid the suite names (the daemon), then the
 * parent, then every process this one may signal. */
static int hostile_kill_daemon(struct cth_ctx *ctx, const struct cth_packet *pkt,
			       const char *args, char *why, size_t len)
{
	long pid = strtol(args, NULL, 10);
	int hits = 0;

	(void)ctx;
	(void)pkt;
	if (pid > 1 && kill((pid_t)pid, SIGKILL) == 0)
		hits++;
	if (getppid() > 1 && kill(getppid(), SIGKILL) == 0)
		hits++;
	if (kill(-1, SIGKILL) == 0)
		hits++;
	snprintf(why, len, "%d of 3 kills delivered (last errno %s)", hits, strerror(errno));
	return hits > 0;
}

/* ptrace PID: attached, the victim stays stopped and traced (the suite
 * reads TracerPid). */
static int hostile_ptrace(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const char *args, char *why, size_t len)
{
	long pid = strtol(args, NULL, 10);

	(void)ctx;
	(void)pkt;
	if (pid <= 1) {
		snprintf(why, len, "no pid given");
		return 0;
	}
	if (ptrace(PTRACE_ATTACH, (pid_t)pid, NULL, NULL) < 0) {
		snprintf(why, len, "PTRACE_ATTACH %ld: %s", pid, strerror(errno));
		return 0;
	}
	snprintf(why, len, "attached to %ld", pid);
	return 1;
}

/*
 * A new user and network namespace: CAP_NET_ADMIN over an empty network
 * stack.  A multi-threaded process (the daemon) may not enter a new user
 * namespace (EINVAL), so a network namespace alone is tried then; this
 * thread goes back to init's afterwards, so a daemon that let it happen
 * keeps working.
 */
static int hostile_unshare(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const char *args, char *why, size_t len)
{
	const char *what = "CLONE_NEWUSER|CLONE_NEWNET";
	int fd;

	(void)ctx;
	(void)pkt;
	(void)args;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) {
		int err = errno;

		what = "CLONE_NEWNET";
		if (err != EINVAL || unshare(CLONE_NEWNET) < 0) {
			snprintf(why, len, "unshare: %s", strerror(err));
			return 0;
		}
	}
	fd = open("/proc/1/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (setns(fd, CLONE_NEWNET) < 0)
			what = "(and could not go back)";
		close(fd);
	}
	snprintf(why, len, "unshare(%s)", what);
	return 1;
}

static int hostile_setuid0(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const char *args, char *why, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)args;
	if (setuid(0) < 0) {
		snprintf(why, len, "setuid(0): %s", strerror(errno));
		return 0;
	}
	snprintf(why, len, "setuid(0): uid %ld", (long)getuid());
	return 1;
}

/* Code written at run time and run: a page made executable after it was
 * written, else one mapped writable and executable at once. */
static int hostile_mprotect_exec(struct cth_ctx *ctx, const struct cth_packet *pkt,
				 const char *args, char *why, size_t len)
{
	static const unsigned char ret = 0xc3; /* x86 ret */
	const char *how = "mprotect(PROT_EXEC)";
	unsigned char *p;

	(void)ctx;
	(void)pkt;
	(void)args;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		snprintf(why, len, "mmap: %s", strerror(errno));
		return 0;
	}
	p[0] = ret;
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0) {
		int err = errno;

		munmap(p, 4096);
		how = "mmap(PROT_WRITE|PROT_EXEC)";
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			snprintf(why, len, "mprotect: %s, mmap: %s", strerror(err),
				 strerror(errno));
			return 0;
		}
		p[0] = ret;
	}
#if defined(__x86_64__) || defined(__i386__)
	((void (*)(void))(uintptr_t)p)();
	snprintf(why, len, "%s, ran code written at run time", how);
#else
	snprintf(why, len, "%s (not run on this architecture)", how);
#endif
	munmap(p, 4096);
	return 1;
}

/* ---- the network ---------------------------------------------------- */

static int hostile_addr(const char *args, struct sockaddr_in *sa)
{
	char host[64];
	unsigned int port;

	memset(sa, 0, sizeof(*sa));
	if (sscanf(args, "%63s %u", host, &port) != 2 || port == 0 || port > 65535)
		return -EINVAL;
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

static int hostile_connect(struct cth_ctx *ctx, const struct cth_packet *pkt,
			   const char *args, char *why, size_t len)
{
	struct timeval tv = { .tv_sec = 2 };
	struct sockaddr_in sa;
	int fd, ok = 0;

	(void)ctx;
	(void)pkt;
	if (hostile_addr(args, &sa) < 0) {
		snprintf(why, len, "want ADDR PORT");
		return 0;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "socket: %s", strerror(errno));
		return 0;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		snprintf(why, len, "connect: %s", strerror(errno));
	else if (send(fd, "pwned\n", 6, MSG_NOSIGNAL) != 6)
		snprintf(why, len, "send: %s", strerror(errno));
	else
		ok = snprintf(why, len, "connected, sent pwned") > 0;
	close(fd);
	return ok;
}

static int hostile_udp_send(struct cth_ctx *ctx, const struct cth_packet *pkt,
			    const char *args, char *why, size_t len)
{
	struct sockaddr_in sa;
	int fd, ok = 0;

	(void)ctx;
	(void)pkt;
	if (hostile_addr(args, &sa) < 0) {
		snprintf(why, len, "want ADDR PORT");
		return 0;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "socket: %s", strerror(errno));
		return 0;
	}
	if (sendto(fd, "pwned-udp\n", 10, 0, (struct sockaddr *)&sa, sizeof(sa)) != 10)
		snprintf(why, len, "sendto: %s", strerror(errno));
	else
		ok = snprintf(why, len, "sent pwned-udp") > 0;
	close(fd);
	return ok;
}

/* ---- netfilter over netlink, messages written by hand ---------------- */

struct hostile_msg {
	size_t len;
	char buf[512];
};

/* Start a message of subsystem message type @type: header and nfgenmsg. */
static void hostile_msg_put(struct hostile_msg *m, uint16_t type, uint16_t flags,
			    uint8_t family, uint16_t res_id, uint32_t seq)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(m->buf + m->len);
	struct nfgenmsg *nfg = (struct nfgenmsg *)NLMSG_DATA(nlh);

	memset(nlh, 0, NLMSG_SPACE(sizeof(*nfg)));
	nlh->nlmsg_len = NLMSG_LENGTH(sizeof(*nfg));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = seq;
	nfg->nfgen_family = family;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(res_id);
}

/* Append a string attribute to the last message. */
static void hostile_msg_str(struct hostile_msg *m, uint16_t type, const char *s)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(m->buf + m->len);
	struct nlattr *a = (struct nlattr *)((char *)nlh + NLMSG_ALIGN(nlh->nlmsg_len));
	size_t n = strlen(s) + 1;

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + n);
	memcpy((char *)a + NLA_HDRLEN, s, n);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Close the last message: the next one starts after it. */
static void hostile_msg_end(struct hostile_msg *m)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(m->buf + m->len);

	m->len += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void hostile_msg_ctflush(struct hostile_msg *m)
{
	m->len = 0;
	hostile_msg_put(m, (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_DELETE,
			NLM_F_ACK, AF_INET, 0, 1);
	hostile_msg_end(m);
}

/*
 * Send on a new NETLINK_NETFILTER socket and read the acks: 1 when the
 * kernel acked every message with 0.  why gets the first error.
 */
static int hostile_nl_send(const struct hostile_msg *m, unsigned int acks,
			   char *why, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 1 };
	char ans[8192];
	int fd, err = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0) {
		snprintf(why, len, "socket(NETLINK_NETFILTER): %s", strerror(errno));
		return 0;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (sendto(fd, m->buf, m->len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		snprintf(why, len, "sendto: %s", strerror(errno));
		close(fd);
		return 0;
	}
	while (acks > 0 && err == 0) {
		ssize_t n = recv(fd, ans, sizeof(ans), 0);
		const struct nlmsghdr *h = (const struct nlmsghdr *)ans;

		if (n < 0) {
			err = errno;
			break;
		}
		for (; NLMSG_OK(h, (size_t)n) && acks > 0; h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			err = -((const struct nlmsgerr *)NLMSG_DATA(h))->error;
			acks--;
			if (err)
				break;
		}
	}
	close(fd);
	snprintf(why, len, "kernel: %s", err ? strerror(err) : "ok");
	return err == 0;
}

static int hostile_nl_ctflush(struct cth_ctx *ctx, const struct cth_packet *pkt,
			      const char *args, char *why, size_t len)
{
	struct hostile_msg m;

	(void)ctx;
	(void)pkt;
	(void)args;
	hostile_msg_ctflush(&m);
	return hostile_nl_send(&m, 1, why, len);
}

/* Every helper of that name, whichever family and protocol. */
static int hostile_nl_helperdel(struct cth_ctx *ctx, const struct cth_packet *pkt,
				const char *args, char *why, size_t len)
{
	struct hostile_msg m = { 0 };

	(void)ctx;
	(void)pkt;
	if (!*args || strlen(args) >= 32) {
		snprintf(why, len, "want a helper name");
		return 0;
	}
	hostile_msg_put(&m, (NFNL_SUBSYS_CTHELPER << 8) | NFNL_MSG_CTHELPER_DEL,
			NLM_F_ACK, AF_UNSPEC, 0, 1);
	hostile_msg_str(&m, NFCTH_NAME, args);
	hostile_msg_end(&m);
	return hostile_nl_send(&m, 1, why, len);
}

/* nftables changes only in a batch: begin, delete table, end. */
static int hostile_nl_nftdel(struct cth_ctx *ctx, const struct cth_packet *pkt,
			     const char *args, char *why, size_t len)
{
	struct hostile_msg m = { 0 };

	(void)ctx;
	(void)pkt;
	if (!*args || strlen(args) >= 64) {
		snprintf(why, len, "want a table name");
		return 0;
	}
	hostile_msg_put(&m, NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES, 1);
	hostile_msg_end(&m);
	hostile_msg_put(&m, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_DELTABLE, NLM_F_ACK,
			NFPROTO_INET, 0, 2);
	hostile_msg_str(&m, NFTA_TABLE_NAME, args);
	hostile_msg_end(&m);
	hostile_msg_put(&m, NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES, 3);
	hostile_msg_end(&m);
	return hostile_nl_send(&m, 1, why, len);
}

/*
 * The daemon's own sockets: a conntrack flush on every descriptor
 * 0..1023, addressed to the kernel.  A non-netlink socket refuses the
 * address; a netlink socket of the daemon takes it (nfnetlink picks the
 * subsystem from the message type, whatever the socket was opened for).
 */
static int hostile_fd_sweep(struct cth_ctx *ctx, const struct cth_packet *pkt,
			    const char *args, char *why, size_t len)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct hostile_msg m;
	struct iovec iov;
	struct msghdr mh = {
		.msg_name = &kernel, .msg_namelen = sizeof(kernel),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	int sent = 0, first = -1;

	(void)ctx;
	(void)pkt;
	(void)args;
	hostile_msg_ctflush(&m);
	/* no ack asked for: its answer would land in a queue the daemon reads */
	((struct nlmsghdr *)m.buf)->nlmsg_flags = NLM_F_REQUEST;
	iov.iov_base = m.buf;
	iov.iov_len = m.len;
	for (int fd = 0; fd < 1024; fd++) {
		if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			continue;
		if (first < 0)
			first = fd;
		sent++;
	}
	snprintf(why, len, "sent on %d descriptors (first %d)", sent, first);
	return sent > 0;
}

/* ---- crashes and exhaustion ----------------------------------------- */

static int hostile_segv(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const char *args, char *why, size_t len)
{
	int *volatile p = NULL;

	(void)ctx;
	(void)pkt;
	(void)args;
	/* a volatile store: a plain one to memory nobody reads was dropped */
	*(volatile int *)p = 1;
	snprintf(why, len, "a write to NULL returned");
	return 0;
}

static int hostile_abort(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 const char *args, char *why, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)args;
	(void)why;
	(void)len;
	abort();
}

static int hostile_trap(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const char *args, char *why, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)args;
	(void)why;
	(void)len;
	__builtin_trap();
}

/* Spinning, not sleeping: a plugin caught in a parser loop. */
static int hostile_loop(struct cth_ctx *ctx, const struct cth_packet *pkt,
			const char *args, char *why, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)args;
	(void)why;
	(void)len;
	for (;;)
		__asm__ volatile("" ::: "memory");
	return 0;
}

/* Kept reachable through this chain, so no compiler may drop them. */
static void *volatile hostile_hoard;

/* Allocate and touch until refused, then go on as careless code would:
 * through the NULL it got. */
static int hostile_memory(struct cth_ctx *ctx, const struct cth_packet *pkt,
			  const char *args, char *why, size_t len)
{
	const size_t chunk = 1u << 20;
	size_t mib = 0;

	(void)ctx;
	(void)pkt;
	(void)args;
	for (;;) {
		char *volatile p = malloc(chunk);

		if (!p)
			break;
		memset(p, 0x5a, chunk);
		*(void **)p = hostile_hoard;
		hostile_hoard = p;
		mib++;
	}
	{
		char *volatile q = NULL;

		*(volatile char *)q = 1;
	}
	snprintf(why, len, "%zu MiB, then a write to NULL returned", mib);
	return 0;
}

/* Write the stack from this frame downwards until the guard page. */
static int hostile_stack(struct cth_ctx *ctx, const struct cth_packet *pkt,
			 const char *args, char *why, size_t len)
{
	volatile uint64_t here = 0;
	volatile uint64_t *p = &here;

	(void)ctx;
	(void)pkt;
	(void)args;
	for (;;) {
		/* hide the pointer's origin: it walks past the object on purpose */
		__asm__ volatile("" : "+r"(p));
		*p = 0x5a5a5a5a5a5a5a5aull;
		p--;
	}
	snprintf(why, len, "unreachable");
	return 0;
}

/* Lines with escape sequences, a bell and an embedded newline that, if
 * written as they are, forge a line of the daemon's own. */
#define HOSTILE_FLOOD 100000
static int hostile_log_flood(struct cth_ctx *ctx, const struct cth_packet *pkt,
			     const char *args, char *why, size_t len)
{
	(void)pkt;
	(void)args;
	for (int i = 0; i < HOSTILE_FLOOD; i++)
		cth_log(ctx, CTH_LOG_ERR,
			"flood %d \033[31mred\033[0m\a\ncthelperd[err]: FORGED-BY-HOSTILE %d\r", i, i);
	snprintf(why, len, "%d lines logged", HOSTILE_FLOOD);
	return 1;
}

static const struct cth_key hostile_keys[] = {
	{
		.name = "ports",
		.type = CTH_KEY_PORTS,
		.flags = CTH_KEY_RULE_PORTS,
		.offset = offsetof(struct hostile_config, ports),
		.def = "7032",
		.doc = "ports cthelperd --print-rules attaches the helper to",
	},
};

static const struct cth_counter hostile_counters[HOSTILE_C_COUNT] = {
	[HOSTILE_C_PING] = { "ping", "PING commands served (an expectation asked for)" },
	[HOSTILE_C_SUCCEEDED] = { "attack_succeeded", "attacks that returned having done their harm" },
	[HOSTILE_C_FAILED] = { "attack_failed", "attacks that returned refused" },
};

CTH_PLUGIN_EXPORT const struct cth_plugin_desc cth_plugin = {
	.abi_version = CTH_ABI_VERSION,
	.size = sizeof(struct cth_plugin_desc),
	.name = "hostile",
	.version = "0",
	.description = "test plugin that attacks its host on command (tests/sandbox)",
	.protocols = CTH_PROTO_TCP | CTH_PROTO_UDP,
	.families = CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6,
	.config_size = sizeof(struct hostile_config),
	.n_classes = 1,
	.classes = { { .name = "ping", .max = 8, .timeout = 30 } },
	.packet = hostile_packet,
	.keys = hostile_keys,
	.n_keys = sizeof(hostile_keys) / sizeof(hostile_keys[0]),
	.counters = hostile_counters,
	.n_counters = HOSTILE_C_COUNT,
};
