/* SPDX-License-Identifier: MIT */
/*
 * cthelperctl: one request to cthelperd's control socket, its answer on
 * stdout.  The protocol (server/control/control.h) is a line each way plus a
 * body, so this stays independent of the daemon's internals.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* the build's RUNSTATEDIR (Makefile), as the daemon's runtime_dir */
#ifndef CTH_RUNSTATEDIR
#define CTH_RUNSTATEDIR "/run"
#endif
/* the systemd unit's RuntimeDirectory: ProtectSystem=strict leaves only
 * it writable under /run */
#define CTL_SOCKET_DEFAULT CTH_RUNSTATEDIR "/cthelperd/cthelperd.sock"
#define CTL_TIMEOUT_S 10
#define CTL_ANSWER_MAX (16u * 1024u * 1024u)

enum { CTL_OK = 0, CTL_DAEMON_ERROR = 1, CTL_USAGE = 2, CTL_UNREACHABLE = 3 };

static void ctl_usage(FILE *out)
{
	fprintf(out,
		"Usage: cthelperctl [-s SOCKET] [-j] status|stats|reload\n"
		"       cthelperctl [-s SOCKET] stats --prometheus\n"
		"Ask a running cthelperd over its control socket.\n"
		"\n"
		"  status            version, configuration file, pid, uptime, helpers, queues\n"
		"  stats             counters per helper and per queue (daemon and kernel)\n"
		"  reload            read the configuration file again and apply it\n"
		"                    (exit 1 and the errors when it is refused; the\n"
		"                    running configuration then stays)\n"
		"  -s, --socket PATH the daemon's control_socket (default %s)\n"
		"  -j, --json        answer in JSON (status, stats)\n"
		"  -p, --prometheus  stats in the Prometheus text format\n"
		"  -h, --help        this text\n"
		"\n"
		"Exit status: 0 success, 1 the daemon refused the request, 2 usage,\n"
		"3 the daemon cannot be reached.  See cthelperctl(8).\n",
		CTL_SOCKET_DEFAULT);
}

static int ctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CTL_TIMEOUT_S };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The whole answer (the daemon closes after it), NUL-terminated. */
static char *ctl_read_all(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t r;

		if (n + 1 == cap) {
			char *p = cap < CTL_ANSWER_MAX ? realloc(buf, cap * 2) : NULL;

			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

static int ctl_request(const char *path, const char *req)
{
	char line[300], *ans, *body;
	size_t len, n = (size_t)snprintf(line, sizeof(line), "%s\n", req);
	int fd = ctl_connect(path);

	if (fd < 0) {
		fprintf(stderr, "cthelperctl: cannot reach cthelperd at %s: %s\n"
			"(is it running, with control_socket = %s in its [server] section?)\n",
			path, strerror(errno), path);
		return CTL_UNREACHABLE;
	}
	if (write(fd, line, n) != (ssize_t)n) {
		fprintf(stderr, "cthelperctl: %s: cannot send: %s\n", path, strerror(errno));
		close(fd);
		return CTL_UNREACHABLE;
	}
	shutdown(fd, SHUT_WR);
	ans = ctl_read_all(fd, &len);
	close(fd);
	if (!ans || len == 0 || !(body = strchr(ans, '\n'))) {
		fprintf(stderr, "cthelperctl: %s: no answer from cthelperd%s%s\n", path,
			ans ? "" : ": ", ans ? "" : strerror(errno));
		free(ans);
		return CTL_UNREACHABLE;
	}
	*body++ = '\0';
	if (strcmp(ans, "OK") == 0) {
		fputs(body, stdout);
		free(ans);
		return fflush(stdout) == 0 ? CTL_OK : CTL_DAEMON_ERROR;
	}
	fprintf(stderr, "cthelperctl: %s\n%s",
		strncmp(ans, "ERROR ", 6) == 0 ? ans + 6 : ans, body);
	free(ans);
	return CTL_DAEMON_ERROR;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = CTL_SOCKET_DEFAULT, *verb;
	bool json = false, prom = false;
	char req[300];
	int c;

	while ((c = getopt_long(argc, argv, "s:jph", opts, NULL)) != -1) {
		switch (c) {
		case 's': path = optarg; break;
		case 'j': json = true; break;
		case 'p': prom = true; break;
		case 'h': ctl_usage(stdout); return CTL_OK;
		default: ctl_usage(stderr); return CTL_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "cthelperctl: %s\n", optind == argc ? "no command" : "one command only");
		ctl_usage(stderr);
		return CTL_USAGE;
	}
	verb = argv[optind];
	if ((strcmp(verb, "status") && strcmp(verb, "stats") && strcmp(verb, "reload")) ||
	    (json && prom) || (prom && strcmp(verb, "stats")) ||
	    (json && strcmp(verb, "reload") == 0)) {
		fprintf(stderr, "cthelperctl: '%s'%s%s: not a request\n", verb,
			json ? " with -j" : "", prom ? " with --prometheus" : "");
		ctl_usage(stderr);
		return CTL_USAGE;
	}
	snprintf(req, sizeof(req), "%s%s", verb, json ? " json" : prom ? " prometheus" : "");
	return ctl_request(path, req);
}
