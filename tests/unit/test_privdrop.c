/* SPDX-License-Identifier: MIT */
/*
 * Least privilege: the `user` key, the switch itself (in forked children,
 * read back from /proc: the main thread and a thread created after it),
 * the control socket a dropped daemon may not remove, and the loader's
 * refusal of plugins others could have written.  Needs root (chown, the
 * switch); without it those checks are skipped.  $CTH_BUILD (tests/run.sh)
 * is the build directory under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "runtime/config.h"
#include "control/control.h"
#include "runtime/loader.h"
#include "base/log.h"
#include "daemon/privdrop.h"

#define SKIP(name, why) printf("SKIP %s: %s\n", name, why)

static char tmp[] = "/tmp/cth-test-privdrop-XXXXXX";
static char good_so[1024];
static uid_t nobody_uid;
static gid_t nobody_gid;

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A command of the test's own making; its failure shows in the checks. */
static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		printf("# '%s' failed\n", cmd);
}

/* ---- the user key ---- */

static char conf_path[CFGLOAD_PATH];  /* of the last conf_load() */

static int conf_load(const char *text, struct cfg **cfg, char *err, size_t errlen)
{
	return cfgload_text(text, strlen(text), conf_path, cfg, err, errlen);
}

static void test_config(void)
{
	char err[1024], want[1200];
	struct cfg *cfg;
	int rc;

	rc = conf_load("[server]\nuser = nobody\n[helper a]\n", &cfg, err, sizeof(err));
	CHECK("privdrop/config-user", rc == 0 && cfg && strcmp(cfg->user, "nobody") == 0 &&
	      cfg->uid == (long)nobody_uid && cfg->gid == (long)nobody_gid,
	      "rc=%d: %s", rc, err);
	cfg_free(cfg);
	rc = conf_load("[helper a]\n", &cfg, err, sizeof(err));
	CHECK("privdrop/config-no-user", rc == 0 && cfg && !cfg->user && cfg->uid == -1 &&
	      cfg->gid == -1, "rc=%d: %s", rc, err);
	cfg_free(cfg);
	rc = conf_load("[server]\nlog_level = info\nuser = nosuchuser\n[helper a]\n",
		       &cfg, err, sizeof(err));
	snprintf(want, sizeof(want), "%s:3: user: no user 'nosuchuser'", conf_path);
	CHECK("privdrop/config-unknown-user", rc == -EINVAL && !cfg && strstr(err, want),
	      "rc=%d, wanted '%s' in: %s", rc, want, err);
}

/* ---- the switch, in children ---- */

/* The value of "Name:" in a /proc status file, tabs made spaces. */
static bool status_field(const char *file, const char *name, char *out, size_t len)
{
	char line[512];
	size_t n = strlen(name);
	FILE *f = fopen(file, "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, name, n) != 0 || line[n] != ':')
			continue;
		snprintf(out, len, "%s", line + n + 1 + strspn(line + n + 1, " \t"));
		out[strcspn(out, "\n")] = '\0';
		for (char *p = out; *p; p++)
			if (*p == '\t')
				*p = ' ';
		/* "Groups:\t65534 \n": the kernel ends the list with a blank */
		for (size_t e = strlen(out); e && out[e - 1] == ' '; e--)
			out[e - 1] = '\0';
		found = true;
	}
	if (f)
		fclose(f);
	return found;
}

/* What a dropped thread must show (CAP_NET_ADMIN is bit 12: 0x1000). */
static void check_status(const char *who, const char *file)
{
	static const struct { const char *field, *want; } expect[] = {
		{ "Uid", "65534 65534 65534 65534" },
		{ "Gid", "65534 65534 65534 65534" },
		{ "Groups", "65534" },
		{ "CapInh", "0000000000000000" },
		{ "CapPrm", "0000000000001000" },
		{ "CapEff", "0000000000001000" },
		{ "CapBnd", "0000000000000000" },
		{ "CapAmb", "0000000000000000" },
	};
	char name[128], got[256];

	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
		bool ok = status_field(file, expect[i].field, got, sizeof(got));

		snprintf(name, sizeof(name), "privdrop/%s-%s", who, expect[i].field);
		CHECK(name, ok && strcmp(got, expect[i].want) == 0, "%s: %s is '%s', wanted '%s'",
		      file, expect[i].field, ok ? got : "(missing)", expect[i].want);
	}
}

static void *thread_main(void *arg)
{
	char file[128];

	(void)arg;
	snprintf(file, sizeof(file), "/proc/self/task/%ld/status", (long)gettid());
	check_status("thread", file);
	return NULL;
}

static struct cfg *cfg_user(const char *name)
{
	struct cfg *cfg = calloc(1, sizeof(*cfg));
	struct passwd *pw = getpwnam(name);

	cfg->user = strdup(name);
	cfg->uid = pw ? (long)pw->pw_uid : 4242;
	cfg->gid = pw ? (long)pw->pw_gid : 4242;
	return cfg;
}

/* Run fn in a child; its own PASS/FAIL lines count through its status. */
static void in_child(const char *name, void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		fn();
		fflush(stdout);
		_exit(check_exit());
	}
	CHECK(name, pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the child failed (see above)");
}

static void child_drop(void)
{
	struct cfg *cfg = cfg_user("nobody");
	pthread_t t;
	int rc = privdrop_apply(cfg);

	CHECK("privdrop/applies", rc == 0, "rc=%d", rc);
	check_status("main", "/proc/self/status");
	CHECK("privdrop/thread-created", pthread_create(&t, NULL, thread_main, NULL) == 0 &&
	      pthread_join(t, NULL) == 0, "pthread_create");
	/* now unprivileged: the same user is fine, another one is an error */
	CHECK("privdrop/again-same-user", privdrop_apply(cfg) == 0, "not 0");
	cfg_free(cfg);
	cfg = cfg_user("root");
	cfg->uid = 1;
	CHECK("privdrop/unprivileged-other-user", privdrop_apply(cfg) == -EPERM &&
	      geteuid() == nobody_uid, "not -EPERM");
	cfg_free(cfg);
}

static void child_root_user(void)
{
	struct cfg *cfg = cfg_user("root");

	CHECK("privdrop/user-root-keeps-all", privdrop_apply(cfg) == 0 && geteuid() == 0 &&
	      getuid() == 0, "rc or uid changed");
	cfg_free(cfg);
	cfg = calloc(1, sizeof(*cfg));
	cfg->uid = cfg->gid = -1;
	CHECK("privdrop/no-user-no-change", privdrop_apply(cfg) == 0 && geteuid() == 0,
	      "rc or uid changed");
	cfg_free(cfg);
}

/* After the drop, the root-owned socket in a root-only directory stays,
 * and saying so is not louder than info. */
static void child_control_close(void)
{
	char dir[1100], sock[1200], err_path[1200], text[2048] = "";
	struct control c;
	struct cfg *cfg = cfg_user("nobody");
	int saved, efd;
	ssize_t n;

	snprintf(dir, sizeof(dir), "%s/run", tmp);
	snprintf(sock, sizeof(sock), "%s/ctl.sock", dir);
	snprintf(err_path, sizeof(err_path), "%s/ctl-err.txt", tmp);
	mkdir(dir, 0755);
	close(open(sock, O_WRONLY | O_CREAT, 0600));
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.path = strdup(sock);
	log_init(LOG_L_INFO, 0);
	efd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0666);
	privdrop_apply(cfg);
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	control_close(&c);
	fflush(stderr);
	dup2(saved, 2);
	lseek(efd, 0, SEEK_SET);
	n = read(efd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	CHECK("privdrop/control-socket-left-info", access(sock, F_OK) == 0 &&
	      strstr(text, "[info]") && strstr(text, "left in place") &&
	      !strstr(text, "[error]") && !strstr(text, "[warning]"), "logged: %s", text);
	cfg_free(cfg);
}

/* ---- plugins others could have written ---- */

static void expect_plugin(const char *name, const char *dir, bool ok, const char *words)
{
	char err[2048] = "", test[128];
	struct plugin *pl = NULL;
	int rc = loader_load(dir, "good", &pl, err, sizeof(err));

	snprintf(test, sizeof(test), "privdrop/plugin-%s", name);
	if (ok)
		CHECK(test, rc == 0 && pl, "rc=%d: %s", rc, err);
	else
		CHECK(test, rc < 0 && !pl && strstr(err, words) && strstr(err, "refused") &&
		      strstr(err, "plugins must be writable by root or the daemon's user only"),
		      "rc=%d, wanted '%s' in: %s", rc, words, err);
	loader_unload(pl);
}

static void test_plugins(void)
{
	char dir[1100], other[1100];
	bool root = geteuid() == 0;

	snprintf(dir, sizeof(dir), "%s/plugins", tmp);
	snprintf(other, sizeof(other), "%s/other", tmp);
	mkdir(dir, 0755);
	chmod(dir, 0755);
	sh("cp %s %s/good.so && chmod 0644 %s/good.so", good_so, dir, dir);
	expect_plugin("accepted-0644", dir, true, NULL);
	sh("chmod 0666 %s/good.so", dir);
	expect_plugin("world-writable", dir, false, "the file is world-writable (mode 0666)");
	sh("chmod 0664 %s/good.so", dir);
	expect_plugin("group-writable", dir, false, "the file is group-writable (mode 0664)");
	sh("chmod 0644 %s/good.so && chmod 0775 %s", dir, dir);
	expect_plugin("dir-group-writable", dir, false, "is group-writable (mode 0775)");
	sh("chmod 1777 %s", dir);
	expect_plugin("dir-world-writable-sticky", dir, false, "is world-writable (mode 1777)");
	chmod(dir, 0755);
	/* a link from a good directory to a file in a bad one */
	mkdir(other, 0777);
	chmod(other, 0777);
	sh("mv %s/good.so %s/good.so && ln -s %s/good.so %s/good.so", dir, other, other, dir);
	expect_plugin("link-target-dir-writable", dir, false, "is world-writable (mode 0777)");
	sh("rm %s/good.so && mv %s/good.so %s/good.so", dir, other, dir);
	expect_plugin("accepted-again", dir, true, NULL);
	if (!root) {
		SKIP("privdrop/plugin-owned-by-other", "needs root for chown");
		return;
	}
	sh("chown %u %s/good.so", (unsigned)nobody_uid, dir);
	expect_plugin("owned-by-other", dir, false, "the file is owned by uid 65534, neither root");
	sh("chown 0 %s/good.so && chown %u %s", dir, (unsigned)nobody_uid, dir);
	expect_plugin("dir-owned-by-other", dir, false, "is owned by uid 65534");
	sh("chown 0 %s", dir);
}

int main(void)
{
	const char *b = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	struct passwd *pw = getpwnam("nobody");
	char cwd[512];

	if (!mkdtemp(tmp) || !getcwd(cwd, sizeof(cwd)) || !pw) {
		printf("FAIL privdrop/setup: mkdtemp, getcwd or no user nobody\n");
		return 1;
	}
	/* the children's user must reach the files they read */
	chmod(tmp, 0755);
	nobody_uid = pw->pw_uid;
	nobody_gid = pw->pw_gid;
	snprintf(good_so, sizeof(good_so), "%s/%s/tests/bad/good.so", cwd, b);
	test_config();
	test_plugins();
	if (geteuid() == 0 && nobody_uid == 65534 && nobody_gid == 65534) {
		in_child("privdrop/child-drop", child_drop);
		in_child("privdrop/child-root-user", child_root_user);
		in_child("privdrop/child-control-close", child_control_close);
	} else {
		SKIP("privdrop/switch", "needs root and nobody = 65534:65534");
	}
	sh("rm -rf %s", tmp);
	return check_exit();
}
