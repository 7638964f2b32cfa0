/* SPDX-License-Identifier: MIT */
/*
 * cthbench-load hold (issue 34, part 3): many FTP control connections
 * held through the firewall at once, in steps, one epoll loop.
 *
 *   cthbench-load hold HOST PORT STEPS SECONDS XFER_PER_MILLE FILE[:SIZE]
 *
 * STEPS is a list of totals ("1000,2000,5000,10000").  For each step the
 * tool opens connections until STEPS[i] were opened in all (at most
 * HOLD_WINDOW of them connecting or logging in at once), logs each in
 * (USER anonymous, PASS, TYPE I), then holds them for SECONDS: every connection
 * sends one NOOP at a random moment of that time, and XFER_PER_MILLE per
 * thousand held ones run PASV, connect the data port through the
 * firewall (it passes only as RELATED, so only if the helper expected it)
 * and RETR FILE (SIZE bytes, when given, must arrive).  Nothing is
 * retried: every failure is counted once, by why.
 *
 * Two lines per step on stdout, each answered by a line on stdin before
 * the tool goes on (the caller measures the helper meanwhile; the loop
 * keeps serving the connections while it waits):
 *
 *   open N opened held failed open_seconds
 *   step N opened held failed noop_ok xfer_ok xfer_failed reasons
 *
 * counts since the start; reasons "why:count,..." or "-".  EOF on stdin
 * ends the tool.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/resource.h>

#define HOLD_MAX 65536u
/* Connections connecting or logging in at once: the server's accept
 * queue and the firewall's SYN handling set the pace, not this; fewer
 * waiting means less time each waits for a slow server. */
#define HOLD_WINDOW 32u
/* Any step of a session (a SYN retransmitted four times is 15 s; a
 * logging server under TCG answers a login in a fraction of that) */
#define HOLD_TIMEOUT_S 30.0
#define HOLD_LINE 256u

enum hold_state {
	HS_FREE,
	HS_CONNECTING, HS_BANNER, HS_USER, HS_PASS, HS_TYPE,
	HS_IDLE, HS_NOOP,
	HS_PASV, HS_DCONN, HS_RETR, HS_XFER,
	HS_DEAD,
};

/* Why a session or a transfer failed. */
enum hold_why {
	HW_CONNECT_REFUSED, HW_CONNECT_TIMEOUT, HW_CONNECT_ERROR,
	HW_LOGIN_TIMEOUT, HW_LOGIN_REPLY, HW_CLOSED, HW_NOOP_TIMEOUT, HW_NOOP_REPLY,
	HW_PASV_TIMEOUT, HW_PASV_REPLY, HW_DATA_TIMEOUT, HW_DATA_REFUSED,
	HW_DATA_ERROR, HW_RETR_REPLY, HW_RETR_TIMEOUT, HW_DATA_SHORT,
	HW_N,
};

static const char *const hold_why_name[HW_N] = {
	[HW_CONNECT_REFUSED] = "connect_refused",
	[HW_CONNECT_TIMEOUT] = "connect_timeout",
	[HW_CONNECT_ERROR] = "connect_error",
	[HW_LOGIN_TIMEOUT] = "login_timeout",
	[HW_LOGIN_REPLY] = "login_reply",
	[HW_CLOSED] = "closed",
	[HW_NOOP_TIMEOUT] = "noop_timeout",
	[HW_NOOP_REPLY] = "noop_reply",
	[HW_PASV_TIMEOUT] = "pasv_timeout",
	[HW_PASV_REPLY] = "pasv_reply",
	[HW_DATA_TIMEOUT] = "data_connect_timeout",
	[HW_DATA_REFUSED] = "data_refused",
	[HW_DATA_ERROR] = "data_error",
	[HW_RETR_REPLY] = "retr_reply",
	[HW_RETR_TIMEOUT] = "retr_timeout",
	[HW_DATA_SHORT] = "data_short",
};

struct hold_conn {
	int fd, dfd;
	uint8_t state;              /* enum hold_state */
	bool got_226, data_eof;
	uint16_t len;               /* of buf: a reply line not complete yet */
	uint32_t bytes;             /* data received in this transfer */
	double deadline, noop_at;   /* noop_at 0: no NOOP due */
	char buf[HOLD_LINE];
};

struct hold {
	struct addrinfo *ai;
	int ep;
	char retr[HOLD_LINE];
	long size;                  /* FILE's size, -1: not checked */
	struct hold_conn *c;
	unsigned int n, busy;       /* opened, connecting or logging in */
	unsigned int held, failed, noop_ok, xfer_ok, xfer_failed, xfer_busy;
	unsigned long why[HW_N];
	unsigned int why_logged;
};

static double hold_now(void) { return load_now(); }

static void hold_ep(struct hold *h, int op, int fd, uint32_t ev, uint64_t tag)
{
	struct epoll_event e = { .events = ev, .data.u64 = tag };

	epoll_ctl(h->ep, op, fd, &e);
}

static void hold_why(struct hold *h, enum hold_why w, unsigned int i, int code)
{
	h->why[w]++;
	/* a few examples for the log, not one line per failure */
	if (h->why_logged++ < 20)
		fprintf(stderr, "cthbench-load hold: connection %u: %s (reply %d)\n", i,
			hold_why_name[w], code);
}

static void hold_fail(struct hold *h, unsigned int i, enum hold_why w, int code);

static void hold_send(struct hold *h, unsigned int i, const char *line)
{
	/* a few bytes: a socket buffer of a live connection takes them */
	if (load_write_all(h->c[i].fd, line, strlen(line)) < 0)
		hold_fail(h, i, HW_CLOSED, 0);
}

static void hold_data_close(struct hold *h, struct hold_conn *c)
{
	if (c->dfd >= 0) {
		epoll_ctl(h->ep, EPOLL_CTL_DEL, c->dfd, NULL);
		close(c->dfd);
		c->dfd = -1;
	}
}

/* A transfer is over, well or not; the session goes on. */
static void hold_xfer_end(struct hold *h, unsigned int i, int why, int code)
{
	struct hold_conn *c = &h->c[i];

	hold_data_close(h, c);
	h->xfer_busy--;
	if (why < 0) {
		h->xfer_ok++;
	} else {
		h->xfer_failed++;
		hold_why(h, (enum hold_why)why, i, code);
	}
	c->state = HS_IDLE;
}

/* A session is lost: counted once, by why. */
static void hold_fail(struct hold *h, unsigned int i, enum hold_why w, int code)
{
	struct hold_conn *c = &h->c[i];

	if (c->state >= HS_PASV && c->state <= HS_XFER) {
		h->xfer_busy--;
		h->xfer_failed++;
	}
	if (c->state >= HS_CONNECTING && c->state <= HS_TYPE)
		h->busy--;
	else if (c->state >= HS_IDLE && c->state < HS_DEAD)
		h->held--;
	hold_data_close(h, c);
	epoll_ctl(h->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->state = HS_DEAD;
	h->failed++;
	hold_why(h, w, i, code);
}

static int hold_open(struct hold *h)
{
	unsigned int i = h->n;
	struct hold_conn *c = &h->c[i];
	int fd = socket(h->ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK, 0);

	if (fd < 0) {
		perror("cthbench-load hold: socket");
		return -1;
	}
	h->n++;
	h->busy++;
	*c = (struct hold_conn){ .fd = fd, .dfd = -1, .state = HS_CONNECTING,
				 .deadline = hold_now() + HOLD_TIMEOUT_S };
	if (connect(fd, h->ai->ai_addr, h->ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
		hold_fail(h, i, errno == ECONNREFUSED ? HW_CONNECT_REFUSED : HW_CONNECT_ERROR, 0);
		return 0;
	}
	hold_ep(h, EPOLL_CTL_ADD, fd, EPOLLOUT, (uint64_t)i << 1);
	return 0;
}

/* "227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)." */
static int hold_pasv_addr(const char *line, struct sockaddr_in *sa)
{
	const char *p = strchr(line, '(');
	unsigned int a[6];

	if (!p || sscanf(p + 1, "%u,%u,%u,%u,%u,%u", &a[0], &a[1], &a[2], &a[3], &a[4],
			 &a[5]) != 6)
		return -1;
	for (int k = 0; k < 6; k++)
		if (a[k] > 255)
			return -1;
	*sa = (struct sockaddr_in){ .sin_family = AF_INET,
				    .sin_port = htons((uint16_t)(a[4] << 8 | a[5])),
				    .sin_addr.s_addr = htonl(a[0] << 24 | a[1] << 16 |
							      a[2] << 8 | a[3]) };
	return 0;
}

static void hold_pasv(struct hold *h, unsigned int i, const char *line)
{
	struct hold_conn *c = &h->c[i];
	struct sockaddr_in sa;

	if (hold_pasv_addr(line, &sa) < 0) {
		hold_xfer_end(h, i, HW_PASV_REPLY, 227);
		return;
	}
	c->dfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (c->dfd < 0 || (connect(c->dfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 &&
			   errno != EINPROGRESS)) {
		hold_xfer_end(h, i, HW_DATA_ERROR, 0);
		return;
	}
	c->state = HS_DCONN;
	c->deadline = hold_now() + HOLD_TIMEOUT_S;
	hold_ep(h, EPOLL_CTL_ADD, c->dfd, EPOLLOUT, (uint64_t)i << 1 | 1);
}

static void hold_xfer_check(struct hold *h, unsigned int i)
{
	struct hold_conn *c = &h->c[i];

	if (!c->got_226 || !c->data_eof)
		return;
	if (h->size >= 0 && c->bytes != (uint32_t)h->size)
		hold_xfer_end(h, i, HW_DATA_SHORT, 226);
	else
		hold_xfer_end(h, i, -1, 226);
}

/* A final reply line (code and a space) of connection i. */
static void hold_reply(struct hold *h, unsigned int i, int code, const char *line)
{
	struct hold_conn *c = &h->c[i];
	double t = hold_now();

	c->deadline = t + HOLD_TIMEOUT_S;
	switch (c->state) {
	case HS_BANNER:
		if (code != 220)
			return hold_fail(h, i, HW_LOGIN_REPLY, code);
		c->state = HS_USER;
		return hold_send(h, i, "USER anonymous\r\n");
	case HS_USER:
		if (code != 331 && code != 230)
			return hold_fail(h, i, HW_LOGIN_REPLY, code);
		if (code == 331) {
			c->state = HS_PASS;
			return hold_send(h, i, "PASS hold@\r\n");
		}
		/* 230: logged in without a password */
		/* fall through */
	case HS_PASS:
		if (code != 230)
			return hold_fail(h, i, HW_LOGIN_REPLY, code);
		/* binary: the file's bytes arrive as they are */
		c->state = HS_TYPE;
		return hold_send(h, i, "TYPE I\r\n");
	case HS_TYPE:
		if (code != 200)
			return hold_fail(h, i, HW_LOGIN_REPLY, code);
		c->state = HS_IDLE;
		h->busy--;
		h->held++;
		return;
	case HS_NOOP:
		if (code != 200)
			return hold_fail(h, i, HW_NOOP_REPLY, code);
		h->noop_ok++;
		c->state = HS_IDLE;
		return;
	case HS_PASV:
		if (code != 227)
			return hold_xfer_end(h, i, HW_PASV_REPLY, code);
		return hold_pasv(h, i, line);
	case HS_RETR:
		if (code == 150 || code == 125) {
			c->state = HS_XFER;
			return;
		}
		return hold_xfer_end(h, i, HW_RETR_REPLY, code);
	case HS_XFER:
		if (code != 226)
			return hold_xfer_end(h, i, HW_RETR_REPLY, code);
		c->got_226 = true;
		return hold_xfer_check(h, i);
	default:
		/* an unasked reply (a 421 timeout notice): the session ends */
		return hold_fail(h, i, HW_CLOSED, code);
	}
}

static void hold_ctl_read(struct hold *h, unsigned int i)
{
	struct hold_conn *c = &h->c[i];
	char tmp[512];
	ssize_t r = read(c->fd, tmp, sizeof(tmp));

	if (r <= 0) {
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		return hold_fail(h, i, HW_CLOSED, 0);
	}
	for (ssize_t k = 0; k < r && c->state != HS_DEAD; k++) {
		if (c->len < HOLD_LINE - 1)
			c->buf[c->len++] = tmp[k];
		if (tmp[k] != '\n')
			continue;
		c->buf[c->len] = 0;
		c->len = 0;
		/* "ddd " ends a reply; "ddd-" lines continue it */
		if (c->buf[0] >= '1' && c->buf[0] <= '5' && c->buf[3] == ' ')
			hold_reply(h, i, atoi(c->buf), c->buf);
	}
}

static void hold_data_event(struct hold *h, unsigned int i, uint32_t ev)
{
	struct hold_conn *c = &h->c[i];
	char tmp[8192];
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->dfd < 0)
		return;
	if (c->state == HS_DCONN) {
		getsockopt(c->dfd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			return hold_xfer_end(h, i, err == ECONNREFUSED ? HW_DATA_REFUSED
					     : err == ETIMEDOUT ? HW_DATA_TIMEOUT : HW_DATA_ERROR, 0);
		if (!(ev & EPOLLOUT))
			return;
		hold_ep(h, EPOLL_CTL_MOD, c->dfd, EPOLLIN, (uint64_t)i << 1 | 1);
		c->state = HS_RETR;
		c->bytes = 0;
		c->got_226 = c->data_eof = false;
		return hold_send(h, i, h->retr);
	}
	for (;;) {
		ssize_t r = read(c->dfd, tmp, sizeof(tmp));

		if (r > 0) {
			c->bytes += (uint32_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		hold_data_close(h, c);
		c->data_eof = true;
		return hold_xfer_check(h, i);
	}
}

static void hold_connected(struct hold *h, unsigned int i)
{
	struct hold_conn *c = &h->c[i];
	int err = 0;
	socklen_t len = sizeof(err);

	getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err)
		return hold_fail(h, i, err == ECONNREFUSED ? HW_CONNECT_REFUSED
				 : err == ETIMEDOUT ? HW_CONNECT_TIMEOUT : HW_CONNECT_ERROR, 0);
	c->state = HS_BANNER;
	c->deadline = hold_now() + HOLD_TIMEOUT_S;
	hold_ep(h, EPOLL_CTL_MOD, c->fd, EPOLLIN, (uint64_t)i << 1);
}

/* Deadlines passed and NOOPs due; every connection, a few times a second. */
static void hold_tick(struct hold *h, double t)
{
	for (unsigned int i = 0; i < h->n; i++) {
		struct hold_conn *c = &h->c[i];

		switch (c->state) {
		case HS_IDLE:
			if (c->noop_at > 0 && t >= c->noop_at) {
				c->noop_at = 0;
				c->state = HS_NOOP;
				c->deadline = t + HOLD_TIMEOUT_S;
				hold_send(h, i, "NOOP\r\n");
			}
			continue;
		case HS_FREE:
		case HS_DEAD:
			continue;
		default:
			break;
		}
		if (t < c->deadline)
			continue;
		switch (c->state) {
		case HS_CONNECTING: hold_fail(h, i, HW_CONNECT_TIMEOUT, 0); break;
		case HS_NOOP: hold_fail(h, i, HW_NOOP_TIMEOUT, 0); break;
		case HS_PASV: hold_xfer_end(h, i, HW_PASV_TIMEOUT, 0); break;
		case HS_DCONN: hold_xfer_end(h, i, HW_DATA_TIMEOUT, 0); break;
		case HS_RETR:
		case HS_XFER: hold_xfer_end(h, i, HW_RETR_TIMEOUT, 0); break;
		default: hold_fail(h, i, HW_LOGIN_TIMEOUT, 0); break;
		}
	}
}

/* Start a transfer on some idle connection (from a random place on). */
static void hold_xfer_start(struct hold *h)
{
	unsigned int start = (unsigned int)random() % (h->n ? h->n : 1);

	for (unsigned int k = 0; k < h->n; k++) {
		unsigned int i = (start + k) % h->n;
		struct hold_conn *c = &h->c[i];

		if (c->state != HS_IDLE)
			continue;
		c->state = HS_PASV;
		c->deadline = hold_now() + HOLD_TIMEOUT_S;
		h->xfer_busy++;
		hold_send(h, i, "PASV\r\n");
		return;
	}
	h->xfer_failed++;
	hold_why(h, HW_PASV_TIMEOUT, 0, -1);   /* no session left to use */
}

/* A line of stdin, read a byte at a time: no buffer may hold the next
 * one unseen by epoll.  1, or -1 at its end. */
static int hold_read_go(void)
{
	char ch;
	ssize_t r;

	while ((r = read(0, &ch, 1)) == 1 || (r < 0 && errno == EINTR))
		if (r == 1 && ch == '\n')
			return 1;
	return -1;
}

/* One round of the loop: events for up to wait_ms.  Returns 1 when stdin
 * brought a line, -1 at its end, else 0; stdin is watched only while the
 * caller waits for it (hold_wait_go). */
static int hold_poll(struct hold *h, int wait_ms)
{
	struct epoll_event ev[256];
	int n = epoll_wait(h->ep, ev, 256, wait_ms), rc = 0;

	for (int k = 0; k < n; k++) {
		uint64_t tag = ev[k].data.u64;
		unsigned int i = (unsigned int)(tag >> 1);

		if (tag == UINT64_MAX) {
			rc = hold_read_go();
			continue;
		}
		if (tag & 1) {
			hold_data_event(h, i, ev[k].events);
		} else if (h->c[i].state == HS_CONNECTING) {
			hold_connected(h, i);
		} else if (h->c[i].state != HS_DEAD) {
			hold_ctl_read(h, i);
		}
	}
	return rc;
}

static void hold_print(struct hold *h, const char *what, unsigned int target, double secs)
{
	char reasons[1024];
	size_t off = 0;

	reasons[0] = 0;
	for (int w = 0; w < HW_N; w++)
		if (h->why[w] && off < sizeof(reasons) - 64)
			off += (size_t)snprintf(reasons + off, sizeof(reasons) - off, "%s%s:%lu",
						off ? "," : "", hold_why_name[w], h->why[w]);
	if (!strcmp(what, "open"))
		printf("open %u %u %u %u %.1f\n", target, h->n, h->held, h->failed, secs);
	else
		printf("step %u %u %u %u %u %u %u %s\n", target, h->n, h->held, h->failed,
		       h->noop_ok, h->xfer_ok, h->xfer_failed, off ? reasons : "-");
	fflush(stdout);
}

/* Serve the connections until stdin brings a line: 0, or -1 at its end. */
static int hold_wait_go(struct hold *h)
{
	int rc = 0;

	hold_ep(h, EPOLL_CTL_ADD, 0, EPOLLIN, UINT64_MAX);
	while (!rc) {
		rc = hold_poll(h, 100);
		hold_tick(h, hold_now());
	}
	epoll_ctl(h->ep, EPOLL_CTL_DEL, 0, NULL);
	return rc > 0 ? 0 : -1;
}

static int hold_step(struct hold *h, unsigned int target, double secs, unsigned int per_mille)
{
	double t0 = hold_now(), t, next_tick = 0, next_xfer;
	unsigned int xfers, started = 0;

	while (h->n < target || h->busy) {
		while (h->n < target && h->busy < HOLD_WINDOW)
			if (hold_open(h) < 0)
				return -1;
		hold_poll(h, 20);
		if ((t = hold_now()) >= next_tick) {
			hold_tick(h, t);
			next_tick = t + 0.2;
		}
	}
	hold_print(h, "open", target, hold_now() - t0);
	if (hold_wait_go(h) < 0)
		return -1;

	/* the hold: one NOOP per session at a random moment, transfers
	 * spread evenly over the time */
	t0 = hold_now();
	for (unsigned int i = 0; i < h->n; i++)
		if (h->c[i].state == HS_IDLE)
			h->c[i].noop_at = t0 + secs * ((double)random() / RAND_MAX);
	xfers = (unsigned int)((unsigned long)h->held * per_mille / 1000);
	next_xfer = xfers ? t0 + secs / xfers / 2 : 0;
	for (;;) {
		t = hold_now();
		if (started < xfers && t >= next_xfer) {
			hold_xfer_start(h);
			started++;
			next_xfer = t0 + secs * (started + 0.5) / xfers;
		}
		if (t >= next_tick) {
			hold_tick(h, t);
			next_tick = t + 0.05;
		}
		if (t - t0 >= secs && started == xfers && !h->xfer_busy) {
			bool noop_due = false;

			for (unsigned int i = 0; i < h->n && !noop_due; i++)
				noop_due = h->c[i].state == HS_NOOP ||
					   (h->c[i].state == HS_IDLE && h->c[i].noop_at > 0);
			if (!noop_due)
				break;
		}
		hold_poll(h, 10);
	}
	hold_print(h, "step", target, 0);
	return hold_wait_go(h);
}

static int hold_main(char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST };
	struct hold h = { .size = -1 };
	unsigned int steps[16], n_steps = 0, max = 0;
	char *list = argv[2], *tok, *colon;
	struct rlimit rl;
	int rc;

	for (tok = strtok(list, ","); tok && n_steps < 16; tok = strtok(NULL, ",")) {
		steps[n_steps] = (unsigned int)strtoul(tok, NULL, 10);
		if (!steps[n_steps] || steps[n_steps] > HOLD_MAX || steps[n_steps] <= max) {
			fprintf(stderr, "cthbench-load hold: steps must rise, 1..%u\n", HOLD_MAX);
			return 2;
		}
		max = steps[n_steps++];
	}
	if (!n_steps)
		return 2;
	if ((colon = strchr(argv[5], ':'))) {
		*colon = 0;
		h.size = strtol(colon + 1, NULL, 10);
	}
	snprintf(h.retr, sizeof(h.retr), "RETR %s\r\n", argv[5]);
	/* two descriptors per session at most (control and data) */
	rl.rlim_cur = rl.rlim_max = 2 * (rlim_t)max + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		perror("cthbench-load hold: RLIMIT_NOFILE");
		return 1;
	}
	if ((rc = getaddrinfo(argv[0], argv[1], &hints, &h.ai))) {
		fprintf(stderr, "cthbench-load hold: %s: %s\n", argv[0], gai_strerror(rc));
		return 1;
	}
	h.c = calloc(max, sizeof(*h.c));
	h.ep = epoll_create1(0);
	if (!h.c || h.ep < 0)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	srandom(1);
	for (unsigned int s = 0; s < n_steps; s++)
		if (hold_step(&h, steps[s], atof(argv[3]), (unsigned int)atoi(argv[4])) < 0)
			break;
	return 0;
}
