/* SPDX-License-Identifier: MIT */
/*
 * sd_notify: a datagram socket in a temporary directory stands in for
 * systemd's NOTIFY_SOCKET; each notify_* call must deliver exactly the
 * fields systemd acts on.  Without NOTIFY_SOCKET every call is a no-op
 * returning 0.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "daemon/notify.h"

static char dir[] = "/tmp/cth-test-notify-XXXXXX";
static int sock = -1;

static int notify_listen(char *path, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 2 };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	snprintf(path, len, "%s/notify", dir);
	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		return -1;
	return fd;
}

/* The next datagram, "" if none came within the timeout (or, with
 * MSG_DONTWAIT, if none is queued: a send is done when sendmsg returns). */
static const char *next_msg(int flags)
{
	static char buf[1024];
	ssize_t n = recv(sock, buf, sizeof(buf) - 1, flags);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static unsigned long long mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ull +
	       (unsigned long long)ts.tv_nsec / 1000ull;
}

static void test_messages(void)
{
	unsigned long long before, after, usec = 0;
	const char *m, *p;
	int rc;

	rc = notify_ready("serving 2 helpers");
	m = next_msg(0);
	CHECK("notify/ready", rc > 0 && strcmp(m, "READY=1\nSTATUS=serving 2 helpers") == 0,
	      "rc=%d msg='%s'", rc, m);
	rc = notify_ready(NULL);
	m = next_msg(0);
	CHECK("notify/ready-no-status", rc > 0 && strcmp(m, "READY=1") == 0, "rc=%d msg='%s'", rc, m);

	before = mono_usec();
	rc = notify_reloading();
	after = mono_usec();
	m = next_msg(0);
	p = strstr(m, "\nMONOTONIC_USEC=");
	if (p)
		usec = strtoull(p + strlen("\nMONOTONIC_USEC="), NULL, 10);
	CHECK("notify/reloading", rc > 0 && strncmp(m, "RELOADING=1\n", 12) == 0 && p &&
	      usec >= before && usec <= after && !strchr(p + 1, '\n'),
	      "rc=%d msg='%s' (clock %llu..%llu)", rc, m, before, after);

	rc = notify_stopping();
	m = next_msg(0);
	CHECK("notify/stopping", rc > 0 && strcmp(m, "STOPPING=1") == 0, "rc=%d msg='%s'", rc, m);

	rc = notify_status("reload failed:\nsee the log");
	m = next_msg(0);
	CHECK("notify/status-one-line", rc > 0 && strcmp(m, "STATUS=reload failed: see the log") == 0,
	      "rc=%d msg='%s'", rc, m);
}

static void test_unset(void)
{
	const char *m;

	unsetenv("NOTIFY_SOCKET");
	CHECK("notify/unset-noop", notify_ready("x") == 0 && notify_reloading() == 0 &&
	      notify_stopping() == 0 && notify_status("y") == 0, "not 0");
	/* nothing may have gone to the old socket either */
	m = next_msg(MSG_DONTWAIT);
	CHECK("notify/unset-sends-nothing", *m == '\0', "got '%s'", m);
}

int main(void)
{
	char path[256];

	if (!mkdtemp(dir) || (sock = notify_listen(path, sizeof(path))) < 0) {
		printf("FAIL notify/setup: cannot bind a datagram socket in %s\n", dir);
		return 1;
	}
	setenv("NOTIFY_SOCKET", path, 1);
	test_messages();
	/* an unreachable socket: an error, not a crash or a hang */
	setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
	CHECK("notify/unreachable-is-error", notify_stopping() < 0, "not < 0");
	test_unset();
	close(sock);
	unlink(path);
	rmdir(dir);
	return check_exit();
}
