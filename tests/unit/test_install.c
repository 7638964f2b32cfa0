/* SPDX-License-Identifier: MIT */
/*
 * make install / make uninstall into a temporary DESTDIR, from the build
 * under test ($CTH_BUILD, set by tests/run.sh, which runs tests from the
 * repository root).  install builds nothing, so this is safe for the
 * sanitizer build too.  The installed daemon must accept the installed
 * config once its plugin_dir is moved under DESTDIR, and systemd must
 * accept the installed unit (check_unit()).
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#include <cthelperd/plugin.h>

#define PREFIX "/usr/local"

static const char *build;
static char dest[] = "/tmp/cth-test-install-XXXXXX";

static char *path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A few formatted paths at a time, for building arguments inline. */
static char *path(const char *fmt, ...)
{
	static char buf[4][1024];
	static unsigned int next;
	char *p = buf[next++ % 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof(buf[0]), fmt, ap);
	va_end(ap);
	return p;
}

/* A make run must not see the make that may have started the tests. */
static int run(const char *cmd)
{
	char full[2048];

	/* braces: the whole of a compound command, not its last part */
	snprintf(full, sizeof(full),
		 "{ unset MAKEFLAGS MAKELEVEL MFLAGS; %s; } >%s/out.txt 2>&1", cmd, dest);
	return system(full);
}

static int make(const char *target)
{
	return run(path("make -s %s DESTDIR=%s PREFIX=" PREFIX " B=%s", target, dest, build));
}

static void print_out(void)
{
	char line[512];
	FILE *f = fopen(path("%s/out.txt", dest), "r");

	while (f && fgets(line, sizeof(line), f))
		printf("#   %s", line);
	if (f)
		fclose(f);
}

static bool is_file(const char *p, bool exec)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	       (!exec || access(p, X_OK) == 0);
}

static bool file_has_line(const char *p, const char *want)
{
	char line[1024];
	FILE *f = fopen(p, "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strcmp(line, want) == 0;
	if (f)
		fclose(f);
	return found;
}

static void check_installed(const char *name, const char *p, bool exec)
{
	CHECK(path("install/%s", name), is_file(p, exec), "%s missing%s", p,
	      exec ? " or not executable" : "");
}

static void check_plugins(void)
{
	DIR *d = opendir(path("%s/plugins", build));
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);

		if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
			continue;
		n++;
		check_installed(path("plugin-%s", e->d_name),
				path("%s" PREFIX "/lib/cthelperd/%s", dest, e->d_name), false);
	}
	if (d)
		closedir(d);
	CHECK("install/plugins-found", n > 0, "no plugin in %s/plugins", build);
}

/* The daemon checks the installed config against the installed plugins. */
static void check_config_runs(void)
{
	char conf[1024], sbin[1024];
	int rc;

	/* copies: path()'s buffers are reused */
	snprintf(conf, sizeof(conf), "%s" PREFIX "/etc/cthelperd.conf", dest);
	snprintf(sbin, sizeof(sbin), "%s" PREFIX "/sbin/cthelperd", dest);

	CHECK("install/config-plugin-dir",
	      file_has_line(conf, "plugin_dir = " PREFIX "/lib/cthelperd\n"),
	      "%s does not point at the installed plugins", conf);
	rc = run(path("sed -i 's|^plugin_dir = .*|plugin_dir = %s" PREFIX "/lib/cthelperd|' %s",
		      dest, conf));
	CHECK("install/config-moved", rc == 0, "sed: %d", rc);
	/* sandboxed helpers' plugins are described by sandboxes: the daemon
	 * finds the sandbox program next to itself before the installed path
	 * (which a DESTDIR install is not at); removed before uninstall */
	rc = run(path("ln -s %s" PREFIX "/lib/cthelperd/cthelperd-sandbox %s-sandbox", dest,
		      sbin));
	CHECK("install/sandbox-program", rc == 0, "ln: %d", rc);
	rc = run(path("%s -n -c %s", sbin, conf));
	CHECK("install/config-checks", rc == 0, "cthelperd -n: %d", rc);
	if (rc)
		print_out();
	rc = run(path("%s --print-rules nft -c %s", sbin, conf));
	CHECK("install/print-rules", rc == 0 &&
	      file_has_line(path("%s/out.txt", dest), "\tct helper cth-ftp-tcp {\n"),
	      "cthelperd --print-rules nft: %d", rc);
	unlink(path("%s-sandbox", sbin));
}

static bool file_empty(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && st.st_size == 0;
}

/* The "Overall exposure level" line of systemd-analyze security, shown. */
static void print_exposure(void)
{
	char line[512];
	FILE *f = fopen(path("%s/out.txt", dest), "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "Overall exposure level"))
			printf("# %s", line);
	if (f)
		fclose(f);
}

/*
 * The installed unit as systemd reads it, offline (no running systemd
 * needed): systemd-analyze verify without manual pages and generators
 * says nothing, and the hardening's exposure score stays at most 3.0 of
 * 10 (security --threshold counts in tenths).  verify also wants each
 * Exec path to exist: a copy names the DESTDIR ones.
 */
static void check_unit(void)
{
	char unit[1024], copy[1024];
	int rc;

	snprintf(unit, sizeof(unit), "%s" PREFIX "/lib/systemd/system/cthelperd.service", dest);
	snprintf(copy, sizeof(copy), "%s/verify/cthelperd.service", dest);
	if (!is_file("conf/cthelperd.service", false))
		return;
	if (run("systemd-analyze --version") != 0) {
		printf("SKIP install/unit-verify: no systemd-analyze\n");
		return;
	}
	rc = run(path("mkdir -p %s/verify && cp %s %s && sed -i 's|" PREFIX "/|%s" PREFIX "/|g' %s",
		      dest, unit, copy, dest, copy));
	CHECK("install/unit-copy", rc == 0, "sed: %d", rc);
	rc = run(path("systemd-analyze verify --man=no --generators=no %s", copy));
	CHECK("install/unit-verify", rc == 0 && file_empty(path("%s/out.txt", dest)),
	      "systemd-analyze verify: %d, or warnings", rc);
	if (rc || !file_empty(path("%s/out.txt", dest)))
		print_out();
	rc = run(path("systemd-analyze security --offline=yes --threshold=30 %s", copy));
	print_exposure();
	CHECK("install/unit-exposure", rc == 0, "systemd-analyze security: %d "
	      "(exposure above 3.0, or it failed)", rc);
	CHECK("install/unit-paths", file_has_line(unit, "ExecStart=" PREFIX "/sbin/cthelperd -c "
						    PREFIX "/etc/cthelperd.conf\n"),
	      "%s: ExecStart does not name the installed daemon and config", unit);
}

/* A second install keeps the operator's config and adds the example. */
static void check_reinstall(void)
{
	char conf[1024];
	int rc = make("install");

	snprintf(conf, sizeof(conf), "%s" PREFIX "/etc/cthelperd.conf", dest);

	CHECK("install/reinstall", rc == 0, "make install again: %d", rc);
	CHECK("install/config-kept", !file_has_line(conf, "plugin_dir = " PREFIX "/lib/cthelperd\n"),
	      "%s was overwritten", conf);
	check_installed("config-example", path("%s.example", conf), false);
}

/*
 * The SDK kit (issue 16): headers, libcthsdk.a and cthelperd-sdk.pc are
 * installed; sdk/examples/toydata, copied out of the tree, builds with
 * pkg-config alone against the DESTDIR install and loads in the daemon
 * (cthelperd -n); built for another ABI, the daemon and the replay tool
 * refuse it naming both versions, each naming itself.
 */
static void check_sdk(void)
{
	char cwd[1024], env[4096], flags[256] = "", toy[256], replay[512];
	int rc;

	/* path() reuses its buffers: this one is needed throughout */
	snprintf(toy, sizeof(toy), "%s/toy", dest);
	check_installed("sdk-header", path("%s" PREFIX "/include/cthelperd/plugin.h", dest), false);
	check_installed("sdk-util-header", path("%s" PREFIX "/include/cthelperd/util.h", dest), false);
	check_installed("sdk-lib", path("%s" PREFIX "/lib/libcthsdk.a", dest), false);
	check_installed("sdk-pc", path("%s" PREFIX "/lib/pkgconfig/cthelperd-sdk.pc", dest), false);
	if (!getcwd(cwd, sizeof(cwd)))
		return;
	/* a sanitizer build's library needs the sanitizer's flags, and its
	 * runtime comes with the (sanitized) daemon only */
	if (run(path("nm %s/libcthsdk.a | grep -q __asan_", build)) == 0)
		snprintf(flags, sizeof(flags), "CFLAGS='-O1 -g -fsanitize=address,undefined' ZDEFS=");
	snprintf(replay, sizeof(replay), "%s" PREFIX "/bin/cthelper-replay", dest);
	/* the example finds the replay tool through cthelperd-sdk.pc (pkgconf
	 * puts the sysroot in front of a path variable) */
	snprintf(env, sizeof(env), "PKG_CONFIG_PATH=%s" PREFIX "/lib/pkgconfig "
		 "PKG_CONFIG_SYSROOT_DIR=%s CTHELPERD=%s/%s/cthelperd", dest, dest, cwd, build);
	rc = run(path("env %s pkg-config --variable=replay cthelperd-sdk | grep -qx %s",
		      env, replay));
	CHECK("install/sdk-pc-replay", rc == 0, "cthelperd-sdk.pc does not name the replay tool");
	rc = run(path("env %s pkg-config --variable=abi cthelperd-sdk | grep -qx %u",
		      env, CTH_ABI_VERSION));
	CHECK("install/sdk-pc-abi", rc == 0, "cthelperd-sdk.pc does not say abi=%u", CTH_ABI_VERSION);
	rc = run(path("cp -r sdk/examples/toydata %s && env %s make -C %s %s toydata.so check",
		      toy, env, toy, flags));
	CHECK("install/sdk-example-out-of-tree", rc == 0 && is_file(path("%s/toydata.so", toy), true),
	      "building, loading or replaying the example against the installed SDK: %d", rc);
	if (rc)
		print_out();
	rc = run(path("make -C %s clean && sed -i 's/abi_version = CTH_ABI_VERSION/abi_version = 99/' "
		      "%s/toydata.c && env %s make -C %s %s toydata.so && "
		      "! env %s make -C %s check >%s/check.txt 2>&1 && "
		      "grep -q 'plugin ABI version 99, cthelperd speaks %u' %s/check.txt",
		      toy, toy, env, toy, flags, env, toy, toy, CTH_ABI_VERSION, toy));
	CHECK("install/sdk-wrong-abi-refused", rc == 0,
	      "the daemon did not refuse the ABI 99 build naming both versions: %d", rc);
	if (rc)
		print_out();
	rc = run(path("cd %s && %s toydata.so toydata.pcap >replay.txt 2>&1; test $? = 2 && "
		      "grep -q 'plugin ABI version 99, cthelper-replay speaks %u' replay.txt",
		      toy, replay, CTH_ABI_VERSION));
	CHECK("install/sdk-wrong-abi-refused-by-replay", rc == 0,
	      "cthelper-replay did not refuse the ABI 99 build (exit 2) naming both versions "
	      "and itself: %d", rc);
	if (rc)
		print_out();
}

static void check_uninstall(void)
{
	int rc = make("uninstall");

	CHECK("install/uninstall", rc == 0 &&
	      access(path("%s" PREFIX "/sbin/cthelperd", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/bin/cthelper-replay", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/share/man/man1/cthelper-replay.1", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/lib/cthelperd/ftp.so", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/share/man/man8/cthelperd.8", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/etc/cthelperd.conf.example", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/include/cthelperd/plugin.h", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/lib/libcthsdk.a", dest), F_OK) < 0 &&
	      access(path("%s" PREFIX "/lib/pkgconfig/cthelperd-sdk.pc", dest), F_OK) < 0,
	      "make uninstall: %d, or files left", rc);
	CHECK("install/uninstall-keeps-config",
	      is_file(path("%s" PREFIX "/etc/cthelperd.conf", dest), false),
	      "the operator's config was removed");
}

int main(void)
{
	int rc;

	build = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	/* readable by the sandboxes' user: they load the plugins there */
	if (!mkdtemp(dest) || chmod(dest, 0755) < 0) {
		printf("FAIL install/mkdtemp\n");
		return 1;
	}
	rc = make("install");
	CHECK("install/make-install", rc == 0, "make install: %d", rc);
	if (rc)
		print_out();
	check_installed("sbin-cthelperd", path("%s" PREFIX "/sbin/cthelperd", dest), true);
	if (is_file(path("%s/cthelperctl", build), true))
		check_installed("sbin-cthelperctl", path("%s" PREFIX "/sbin/cthelperctl", dest), true);
	check_plugins();
	check_installed("man8", path("%s" PREFIX "/share/man/man8/cthelperd.8", dest), false);
	check_installed("man5", path("%s" PREFIX "/share/man/man5/cthelperd.conf.5", dest), false);
	check_installed("bin-cthelper-replay", path("%s" PREFIX "/bin/cthelper-replay", dest), true);
	check_installed("man1", path("%s" PREFIX "/share/man/man1/cthelper-replay.1", dest), false);
	if (is_file("conf/cthelperd.service", false))
		check_installed("systemd-unit",
				path("%s" PREFIX "/lib/systemd/system/cthelperd.service", dest), false);
	check_installed("config", path("%s" PREFIX "/etc/cthelperd.conf", dest), false);
	check_unit();
	check_config_runs();
	check_sdk();
	check_reinstall();
	check_uninstall();
	run(path("rm -rf %s", dest));
	return check_exit();
}
