/* SPDX-License-Identifier: MIT */
/*
 * Plugin loader and runtime building: plugins built wrong in every way the
 * loader guards against are refused with a message that says what is wrong;
 * the shipped ftp.so and a good test plugin load and configure.
 * $CTH_BUILD (set by tests/run.sh) is the build directory under test.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "loader.h"
#include "runtime.h"

static char bad_dir[1024], plugin_dir[1024];

static void expect_refused(const char *name, const char *plugin,
			   const char *words)
{
	char err[1024] = "", test[128];
	struct plugin *pl = NULL;
	int rc = plugin_load(bad_dir, plugin, &pl, err, sizeof(err));

	snprintf(test, sizeof(test), "loader/refuses-%s", name);
	CHECK(test, rc < 0 && !pl && strstr(err, words),
	      "rc=%d, wanted '%s' in: %s", rc, words, err);
	plugin_unload(pl);
}

static void test_loader(void)
{
	char err[1024] = "";
	struct plugin *pl = NULL;
	int rc;

	expect_refused("abi", "bad_abi", "ABI version 99");
	expect_refused("size", "bad_size", "descriptor is 8 bytes");
	expect_refused("big-state", "big_priv", "64 bytes of private state");
	expect_refused("no-packet", "no_packet", "no packet callback");
	expect_refused("zero-classes", "zero_classes", "0 expectation classes");
	expect_refused("five-classes", "five_classes", "5 expectation classes");
	expect_refused("duplicate-class", "dup_class", "declared twice");
	expect_refused("name-clash", "wrong_name", "declares the name 'other'");
	expect_refused("no-symbol", "no_symbol", "no 'cth_plugin' symbol");
	expect_refused("missing-symbol", "missing_dep", "cth_no_such_function");
	expect_refused("missing-file", "does_not_exist", "does_not_exist.so");

	rc = plugin_load(plugin_dir, "ftp", &pl, err, sizeof(err));
	CHECK("loader/loads-ftp", rc == 0 && pl && strcmp(pl->desc->name, "ftp") == 0 &&
	      pl->desc->priv_size <= CTH_PRIV_MAX, "rc=%d: %s", rc, err);
	plugin_unload(pl);
}

static char conf_path[] = "/tmp/cth-test-runtime-XXXXXX";

/* Build a runtime from a config text; stderr is silenced. */
static int build(const char *text, struct runtime **rt)
{
	int fd = open(conf_path, O_WRONLY | O_TRUNC), saved, null;
	struct cfg *cfg;
	int rc;

	if (write(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
	*rt = NULL;
	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY);
	dup2(null, 2);
	rc = cfg_load(conf_path, &cfg);
	if (rc == 0)
		rc = runtime_build(cfg, rt);
	dup2(saved, 2);
	close(saved);
	close(null);
	return rc;
}

static void test_runtime(void)
{
	char text[4096];
	struct runtime *rt;
	int rc;

	snprintf(text, sizeof(text),
		 "[server]\nplugin_dir = %s\n"
		 "[helper g1]\nplugin = good\ncolor = blue\npolicy.b.max = 9\nqueue = 3\n"
		 "[helper g2]\nplugin = good\nqueue = 3\n"
		 "[helper g3]\nplugin = good\nqueue = 4\nfamily = ipv4\n", bad_dir);
	rc = build(text, &rt);
	CHECK("runtime/builds", rc == 0 && rt, "rc=%d", rc);
	if (rt) {
		CHECK("runtime/plugin-loaded-once", rt->n_plugins == 1, "%zu plugins", rt->n_plugins);
		CHECK("runtime/queues", rt->n_queues == 2, "%zu queues", rt->n_queues);
		CHECK("runtime/policy-override", rt->inst[0].classes[1].max == 9 &&
		      rt->inst[0].classes[0].max == 1 && rt->inst[1].classes[1].max == 1,
		      "class max %u", rt->inst[0].classes[1].max);
		CHECK("runtime/plugin-configured", *(char *)rt->inst[0].config == 'b' &&
		      *(char *)rt->inst[1].config == 0, "config not applied");
		CHECK("runtime/find", runtime_find(rt, 3, "g2", 2, 6) == &rt->inst[1] &&
		      !runtime_find(rt, 4, "g2", 2, 6) && !runtime_find(rt, 3, "g1", 2, 17),
		      "runtime_find wrong");
		runtime_free(rt);
	}

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\ncolor = green\n", bad_dir);
	CHECK("runtime/plugin-rejects-value", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\nshade = dark\n", bad_dir);
	CHECK("runtime/plugin-unknown-key", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\npolicy.zz.max = 2\n", bad_dir);
	CHECK("runtime/unknown-class", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\nfamily = ipv6\n", bad_dir);
	CHECK("runtime/unsupported-family", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = bad_abi\n", bad_dir);
	CHECK("runtime/bad-plugin", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper ftp]\nloose = yes\n", plugin_dir);
	rc = build(text, &rt);
	CHECK("runtime/ftp-loose", rc == 0 && rt, "rc=%d", rc);
	runtime_free(rt);
}

int main(void)
{
	const char *b = getenv("CTH_BUILD");
	int fd;

	char cwd[512];

	if (!b)
		b = "build";
	/* absolute: the test configs live in /tmp, and a relative plugin_dir
	 * is relative to the config file */
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(bad_dir, sizeof(bad_dir), "%s/%s/tests/bad", cwd, b);
	snprintf(plugin_dir, sizeof(plugin_dir), "%s/%s/plugins", cwd, b);
	fd = mkstemp(conf_path);
	if (fd < 0)
		return 1;
	close(fd);
	test_loader();
	test_runtime();
	unlink(conf_path);
	return check_exit();
}
