/* SPDX-License-Identifier: MIT */
/*
 * server/control/metrics.c and server/daemon/notify.c built with library names that do
 * not exist (tests/unit/dynlib.mk): what a host without libmicrohttpd or
 * libsystemd gets.  A metrics endpoint is refused with the library's name
 * and dlerror()'s reason; with NOTIFY_SOCKET set, the first message warns
 * once (naming the Type=notify timeout to come) and none is sent; without
 * it nothing is tried.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "control/control.h"
#include "base/log.h"
#include "control/metrics.h"
#include "daemon/notify.h"

/* ---- the lines logged at warning and above ---- */

static char logged[4096];
static int n_logged;

static void capture(void *arg, int level, const char *line)
{
	size_t n = strlen(logged);

	(void)arg;
	(void)level;
	n_logged++;
	snprintf(logged + n, sizeof(logged) - n, "%s\n", line);
}

static void capture_reset(void)
{
	logged[0] = '\0';
	n_logged = 0;
}

/* ---- metrics ---- */

static void test_metrics(void)
{
	struct ev_loop *loop = ev_default_loop(0);
	struct control c = { 0 };
	struct metrics m;
	char why[512] = "";
	int rc;

	rc = metrics_lib_load(why, sizeof(why));
	CHECK("nolib/metrics-load-errno", rc == -ELIBACC, "rc=%d", rc);
	CHECK("nolib/metrics-load-message",
	      strncmp(why, "cannot load libcth-test-missing-mhd.so.12: ", 43) == 0 &&
	      strstr(why, "No such file or directory"), "'%s'", why);

	capture_reset();
	rc = metrics_open(&m, loop, &c, "127.0.0.1:0");
	CHECK("nolib/metrics-open-refused", rc == -ELIBACC && metrics_port(&m) == -ENOTCONN,
	      "rc=%d port=%d", rc, metrics_port(&m));
	CHECK("nolib/metrics-open-logged", n_logged == 1 &&
	      strstr(logged, "metrics = 127.0.0.1:0: cannot load libcth-test-missing-mhd.so.12: "),
	      "%d line(s): '%s'", n_logged, logged);
	metrics_close(&m);              /* nothing to close: must not crash */
	/* no endpoint configured: nothing to load, nothing wrong */
	CHECK("nolib/metrics-unset-ok", metrics_open(&m, loop, &c, NULL) == 0, "not 0");
}

/* ---- notify ---- */

static void test_notify(const char *sock_path, int sock)
{
	char buf[256];
	int r1, r2;

	capture_reset();
	unsetenv("NOTIFY_SOCKET");
	CHECK("nolib/notify-unset-quiet", notify_ready("x") == 0 && n_logged == 0,
	      "%d line(s): '%s'", n_logged, logged);

	setenv("NOTIFY_SOCKET", sock_path, 1);
	r1 = notify_ready("serving");
	r2 = notify_stopping();
	CHECK("nolib/notify-errno", r1 == -ELIBACC && r2 == -ELIBACC, "rc %d, %d", r1, r2);
	CHECK("nolib/notify-warned-once", n_logged == 1 &&
	      strstr(logged, "libcth-test-missing-sd.so.0") && strstr(logged, "Type=notify") &&
	      strstr(logged, "time out"), "%d line(s): '%s'", n_logged, logged);
	CHECK("nolib/notify-sent-nothing", recv(sock, buf, sizeof(buf), MSG_DONTWAIT) < 0,
	      "a datagram arrived");
}

int main(void)
{
	char dir[] = "/tmp/cth-test-nolib-XXXXXX";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int sock;

	if (!mkdtemp(dir)) {
		printf("FAIL nolib/setup: mkdtemp\n");
		return 1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		printf("FAIL nolib/setup: cannot bind %s\n", sa.sun_path);
		return 1;
	}
	log_capture_set(capture, NULL);
	test_metrics();
	test_notify(sa.sun_path, sock);
	log_capture_set(NULL, NULL);
	close(sock);
	unlink(sa.sun_path);
	rmdir(dir);
	return check_exit();
}
