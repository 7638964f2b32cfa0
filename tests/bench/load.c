/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's TCP load: bulk transfer and request/response round trips
 * over ONE connection to the helped port, so that every packet of it is
 * queued to the helper under test.
 *
 *   cthbench-load serve PORT [ADDR]      (server netns; one process per
 *                                         connection; ADDR, or IPv4 and
 *                                         IPv6 wildcards)
 *   cthbench-load bulk HOST PORT SECONDS (prints "bulk BYTES SECONDS MB/s")
 *   cthbench-load rr HOST PORT SECONDS   (prints "rr N SECONDS N/s P50 P99":
 *                                         the round trips' median and 99th
 *                                         percentile, microseconds)
 *   cthbench-load hold HOST PORT STEPS SECONDS XFER_PER_MILLE FILE
 *                                        (issue 34: many FTP control
 *                                         connections held at once; hold.c)
 *
 * The connection's first line says what it is ("BULK" or "RR").  Bulk
 * sends 64 KiB writes of 64-byte text lines (a helper parsing the control
 * connection sees line after line, no command it knows) for SECONDS, shuts
 * its side down and reads the byte count the server received, so MB/s is
 * what crossed the firewall.  RR sends "NOOP\r\n" and waits for the reply
 * line before the next: one command/reply exchange as on an FTP control
 * connection, TCP_NODELAY on both sides.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOAD_CHUNK (64 * 1024)
#define LOAD_REPLY "200 NOOP ok.\r\n"

static double load_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int load_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * A connection's reader: lines out of one read() per segment.  It read
 * one byte per call before (issue 34): under TCG each system call is
 * dear, so the load generator's own cost was in every figure, and an RR
 * reply of 14 bytes took 14 reads on each side.
 */
struct load_rd {
	int fd;
	size_t pos, len;
	char buf[4096];
};

static void load_rd_init(struct load_rd *rd, int fd)
{
	rd->fd = fd;
	rd->pos = rd->len = 0;
}

/* Up to and including '\n' (at most len - 1 bytes) into line: 0, or -1
 * at the end of the stream or on an error. */
static int load_rd_line(struct load_rd *rd, char *line, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		if (rd->pos == rd->len) {
			ssize_t r = read(rd->fd, rd->buf, sizeof(rd->buf));

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return -1;
			rd->pos = 0;
			rd->len = (size_t)r;
		}
		line[n] = rd->buf[rd->pos++];
		if (line[n++] == '\n')
			break;
	}
	line[n] = 0;
	return 0;
}

static void load_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---------------------------------------------------------------- server */

/* what the first read brought after the BULK line counts too */
static void load_serve_bulk(struct load_rd *rd)
{
	static char buf[LOAD_CHUNK];
	unsigned long long total = rd->len - rd->pos;
	int fd = rd->fd;
	char line[64];
	ssize_t r;

	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return;
		total += (unsigned long long)r;
	}
	snprintf(line, sizeof(line), "%llu\r\n", total);
	load_write_all(fd, line, strlen(line));
}

static void load_serve_rr(struct load_rd *rd)
{
	char line[256];

	load_nodelay(rd->fd);
	while (load_rd_line(rd, line, sizeof(line)) == 0)
		if (load_write_all(rd->fd, LOAD_REPLY, strlen(LOAD_REPLY)) < 0)
			return;
}

static void load_serve_one(int fd)
{
	struct load_rd rd;
	char line[64];

	load_rd_init(&rd, fd);
	if (load_rd_line(&rd, line, sizeof(line)) < 0)
		return;
	if (!strncmp(line, "BULK", 4))
		load_serve_bulk(&rd);
	else if (!strncmp(line, "RR", 2))
		load_serve_rr(&rd);
}

static int load_listen(const char *port, const char *addr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_family = addr ? AF_UNSPEC : AF_INET6 };
	struct addrinfo *ai;
	int fd, zero = 0, one = 1;

	if (getaddrinfo(addr, port, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	/* without ADDR: [::] takes IPv4 too */
	if (fd < 0 || (ai->ai_family == AF_INET6 &&
		       setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int load_serve(const char *port, const char *addr)
{
	int fd = load_listen(port, addr);

	if (fd < 0) {
		perror("cthbench-load serve");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN);  /* no zombies, no reaping */
	printf("listening on %s port %s\n", addr ? addr : "*", port);
	fflush(stdout);
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c < 0)
			continue;
		if (fork() == 0) {
			close(fd);
			load_serve_one(c);
			_exit(0);
		}
		close(c);
	}
}

/* ---------------------------------------------------------------- client */

static int load_connect(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST };
	struct addrinfo *ai;
	int fd, rc = getaddrinfo(host, port, &hints, &ai);

	if (rc) {
		fprintf(stderr, "cthbench-load: %s: %s\n", host, gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		perror("cthbench-load: connect");
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int load_bulk(int fd, double seconds)
{
	static char buf[LOAD_CHUNK];
	struct load_rd rd;
	char line[64];
	double t0, t;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (i % 64 == 62) ? '\r' : (i % 64 == 63) ? '\n' : 'x';
	if (load_write_all(fd, "BULK\r\n", 6) < 0)
		return 1;
	t0 = load_now();
	do {
		if (load_write_all(fd, buf, sizeof(buf)) < 0) {
			perror("cthbench-load: bulk write");
			return 1;
		}
	} while (load_now() - t0 < seconds);
	shutdown(fd, SHUT_WR);
	load_rd_init(&rd, fd);
	if (load_rd_line(&rd, line, sizeof(line)) < 0) {
		fprintf(stderr, "cthbench-load: no byte count from the server\n");
		return 1;
	}
	t = load_now() - t0;
	printf("bulk %llu %.3f %.2f\n", strtoull(line, NULL, 10), t,
	       (double)strtoull(line, NULL, 10) / t / 1e6);
	return 0;
}

/* Each round trip's time, for its median and 99th percentile (issue
 * 34: the latency a helper adds to a packet, next to the floor's). */
struct load_lat {
	uint32_t *us;
	size_t n, cap;
};

static void load_lat_add(struct load_lat *l, double seconds)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		uint32_t *p = realloc(l->us, cap * sizeof(*p));

		if (!p)
			return;                 /* fewer samples, not a failure */
		l->us = p;
		l->cap = cap;
	}
	l->us[l->n++] = seconds >= 4e3 ? UINT32_MAX : (uint32_t)(seconds * 1e6);
}

static int load_lat_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* the value below which a share q of the samples lie (nearest rank) */
static uint32_t load_lat_at(const struct load_lat *l, double q)
{
	size_t i = (size_t)(q * (double)l->n);

	return l->n ? l->us[i < l->n ? i : l->n - 1] : 0;
}

static int load_rr(int fd, double seconds)
{
	struct load_lat lat = { 0 };
	struct load_rd rd;
	char line[256];
	unsigned long n = 0;
	double t0, t, t1, t2;

	load_rd_init(&rd, fd);
	load_nodelay(fd);
	if (load_write_all(fd, "RR\r\n", 4) < 0)
		return 1;
	t0 = t1 = load_now();
	do {
		if (load_write_all(fd, "NOOP\r\n", 6) < 0 ||
		    load_rd_line(&rd, line, sizeof(line)) < 0) {
			fprintf(stderr, "cthbench-load: rr: connection lost after %lu\n", n);
			free(lat.us);
			return 1;
		}
		n++;
		t2 = load_now();
		load_lat_add(&lat, t2 - t1);
		t1 = t2;
	} while ((t = t2 - t0) < seconds);
	qsort(lat.us, lat.n, sizeof(*lat.us), load_lat_cmp);
	printf("rr %lu %.3f %.1f %u %u\n", n, t, (double)n / t,
	       (unsigned)load_lat_at(&lat, 0.5), (unsigned)load_lat_at(&lat, 0.99));
	free(lat.us);
	return 0;
}

#include "hold.c"

int main(int argc, char **argv)
{
	int fd, rc;

	if (argc == 8 && !strcmp(argv[1], "hold"))
		return hold_main(argv + 2);

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "serve"))
		return load_serve(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc != 5 || (strcmp(argv[1], "bulk") && strcmp(argv[1], "rr"))) {
		fprintf(stderr, "usage: cthbench-load serve PORT [ADDR] | bulk|rr HOST PORT SECONDS |\n"
				"       hold HOST PORT STEPS SECONDS XFER_PER_MILLE FILE\n");
		return 2;
	}
	/* a firewall that drops the connection must not hang the benchmark */
	alarm((unsigned int)atoi(argv[4]) + 30);
	if ((fd = load_connect(argv[2], argv[3])) < 0)
		return 1;
	rc = !strcmp(argv[1], "bulk") ? load_bulk(fd, atof(argv[4])) : load_rr(fd, atof(argv[4]));
	close(fd);
	return rc;
}
