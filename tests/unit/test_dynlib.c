/* SPDX-License-Identifier: MIT */
/*
 * Libraries loaded when needed (issue 17): linked, libmicrohttpd (with
 * gnutls) and libsystemd cost ~3.8 MB of RSS at every start.  The built
 * daemon and replay tool (next to this test's directory) must not name
 * them in DT_NEEDED (objdump -p); dynlib_load() resolves a table typed
 * from each library's header, and a missing library or function is a
 * negative errno and a message, with nothing of the table set.
 */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "check.h"
#include "base/dynlib.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct mhd_fns {
	typeof(&MHD_get_version) MHD_get_version;
	typeof(&MHD_start_daemon) MHD_start_daemon;
};
static const struct dynlib_sym mhd_fns_syms[] = {
	DYNLIB_SYM(struct mhd_fns, MHD_get_version),
	DYNLIB_SYM(struct mhd_fns, MHD_start_daemon),
};
DYNLIB_TABLE_CHECK(struct mhd_fns, mhd_fns_syms);

struct sd_fns {
	typeof(&sd_notify) sd_notify;
};
static const struct dynlib_sym sd_fns_syms[] = {
	DYNLIB_SYM(struct sd_fns, sd_notify),
};
DYNLIB_TABLE_CHECK(struct sd_fns, sd_fns_syms);

/* ---- DT_NEEDED of the built programs ---- */

/* The build directory: this test is BUILD/tests/test_dynlib. */
static const char *build_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);

	if (n <= 0)
		return "build";
	dir[n] = '\0';
	return dirname(dirname(dir));
}

/* objdump -p's NEEDED names of file, space-separated; false if none
 * could be read (no objdump, no file). */
static bool elf_needed(const char *file, char *out, size_t max)
{
	char cmd[PATH_MAX + 64], line[512], name[256];
	size_t n = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -p '%s' 2>/dev/null", file);
	if (!(p = popen(cmd, "r")))
		return false;
	*out = '\0';
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, " NEEDED %255s", name) == 1 && n + strlen(name) + 2 < max)
			n += (size_t)snprintf(out + n, max - n, "%s ", name);
	return pclose(p) == 0 && n > 0;
}

static void test_needed(const char *prog)
{
	char file[PATH_MAX + 32], needed[2048], name[96];
	bool ok;

	snprintf(file, sizeof(file), "%s/%s", build_dir(), prog);
	ok = elf_needed(file, needed, sizeof(needed));
	snprintf(name, sizeof(name), "dynlib/%s-needed-read", prog);
	CHECK(name, ok && strstr(needed, "libc.so.6"), "objdump -p %s: '%s'", file, needed);
	snprintf(name, sizeof(name), "dynlib/%s-no-libmicrohttpd", prog);
	CHECK(name, ok && !strstr(needed, "libmicrohttpd"), "NEEDED: %s", needed);
	snprintf(name, sizeof(name), "dynlib/%s-no-libsystemd", prog);
	CHECK(name, ok && !strstr(needed, "libsystemd"), "NEEDED: %s", needed);
}

/* ---- the loader ---- */

static void test_load(void)
{
	struct mhd_fns mhd;
	struct sd_fns sd;
	char why[512] = "";
	const char *v;
	int rc;

	rc = dynlib_load("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL, mhd_fns_syms,
			 N(mhd_fns_syms), &mhd, sizeof(mhd), why, sizeof(why));
	CHECK("dynlib/mhd-resolved", rc == 0 && mhd.MHD_get_version && mhd.MHD_start_daemon,
	      "rc=%d: %s", rc, why);
	v = rc == 0 ? mhd.MHD_get_version() : NULL;
	CHECK("dynlib/mhd-callable", v && strncmp(v, "0.9.", 4) == 0, "version '%s'",
	      v ? v : "(none)");

	rc = dynlib_load("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL, sd_fns_syms,
			 N(sd_fns_syms), &sd, sizeof(sd), why, sizeof(why));
	CHECK("dynlib/sd-resolved", rc == 0 && sd.sd_notify, "rc=%d: %s", rc, why);
	/* without NOTIFY_SOCKET sd_notify() sends nothing and says 0 */
	unsetenv("NOTIFY_SOCKET");
	CHECK("dynlib/sd-callable", rc == 0 && sd.sd_notify(0, "READY=1") == 0, "rc=%d", rc);
}

static void test_missing_library(void)
{
	struct mhd_fns mhd;
	char why[512] = "";
	int rc;

	memset(&mhd, 0xff, sizeof(mhd));
	rc = dynlib_load("libcth-no-such-library.so.1", RTLD_NOW | RTLD_LOCAL, mhd_fns_syms,
			 N(mhd_fns_syms), &mhd, sizeof(mhd), why, sizeof(why));
	CHECK("dynlib/missing-library-errno", rc == -ELIBACC, "rc=%d", rc);
	CHECK("dynlib/missing-library-message",
	      strncmp(why, "cannot load libcth-no-such-library.so.1: ", 41) == 0 &&
	      strstr(why, "cannot open shared object file"), "'%s'", why);
	CHECK("dynlib/missing-library-table-empty", !mhd.MHD_get_version && !mhd.MHD_start_daemon,
	      "a pointer left set");
}

static void test_missing_function(void)
{
	/* the first one resolves, the second does not: all or nothing */
	static const struct dynlib_sym syms[] = {
		DYNLIB_SYM(struct mhd_fns, MHD_get_version),
		{ "MHD_cth_no_such_function", offsetof(struct mhd_fns, MHD_start_daemon) },
	};
	struct mhd_fns mhd;
	char why[512] = "";
	int rc;

	rc = dynlib_load("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL, syms, N(syms),
			 &mhd, sizeof(mhd), why, sizeof(why));
	CHECK("dynlib/missing-function-errno", rc == -ELIBBAD, "rc=%d", rc);
	CHECK("dynlib/missing-function-message",
	      strstr(why, "libmicrohttpd.so.12") && strstr(why, "MHD_cth_no_such_function"),
	      "'%s'", why);
	CHECK("dynlib/missing-function-table-empty",
	      !mhd.MHD_get_version && !mhd.MHD_start_daemon, "a pointer left set");
}

static void test_bad_table(void)
{
	static const struct dynlib_sym syms[] = {
		{ "sd_notify", sizeof(struct sd_fns) },
	};
	struct sd_fns sd;
	char why[512] = "";
	int rc;

	rc = dynlib_load("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL, syms, N(syms),
			 &sd, sizeof(sd), why, sizeof(why));
	CHECK("dynlib/outside-table", rc == -EINVAL && strstr(why, "sd_notify") && !sd.sd_notify,
	      "rc=%d '%s'", rc, why);
}

int main(void)
{
	test_needed("cthelperd");
	test_needed("cthelper-replay");
	test_load();
	test_missing_library();
	test_missing_function();
	test_bad_table();
	return check_exit();
}
