/* SPDX-License-Identifier: MIT */
/*
 * Plugin loader and runtime building: plugins built wrong in every way the
 * loader guards against are refused with a message that says what is wrong;
 * the shipped ftp.so and a good test plugin load and configure.
 * $CTH_BUILD (set by tests/run.sh) is the build directory under test.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sdk3_plugin.h"
#include "base/log.h"
#include "runtime/config_load.h"
#include "runtime/loader.h"
#include "runtime/runtime.h"

static char bad_dir[1024], plugin_dir[1024], sdk3_dir[1024], abi2_dir[1024];

static void expect_refused_in(const char *dir, const char *name, const char *plugin,
			      const char *words)
{
	char err[1024] = "", test[128];
	struct plugin *pl = NULL;
	int rc = loader_load(dir, plugin, &pl, err, sizeof(err));

	snprintf(test, sizeof(test), "loader/refuses-%s", name);
	CHECK(test, rc < 0 && !pl && strstr(err, words),
	      "rc=%d, wanted '%s' in: %s", rc, words, err);
	loader_unload(pl);
}

static void expect_refused(const char *name, const char *plugin, const char *words)
{
	expect_refused_in(bad_dir, name, plugin, words);
}

static void test_loader(void)
{
	char err[1024] = "";
	struct plugin *pl = NULL;
	int rc;

	/* the messages name the program that loads: log.c's program name,
	 * the daemon's unless set */
	expect_refused("abi", "bad_abi", "ABI version 99, cthelperd speaks");
	expect_refused("size", "bad_size", "descriptor is 8 bytes, cthelperd expects");
	log_program_set("cthelper-replay");
	expect_refused("abi-named-by-replay", "bad_abi", "ABI version 99, cthelper-replay speaks");
	log_program_set("cthelperd");
	expect_refused("big-state", "big_priv", "64 bytes of private state");
	expect_refused("no-packet", "no_packet", "no packet callback");
	expect_refused("zero-classes", "zero_classes", "0 expectation classes");
	expect_refused("five-classes", "five_classes", "5 expectation classes");
	expect_refused("duplicate-class", "dup_class", "declared twice");
	expect_refused("name-clash", "wrong_name", "declares the name 'other'");
	expect_refused("no-symbol", "no_symbol", "no 'cth_plugin' symbol");
	expect_refused("missing-symbol", "missing_dep", "cth_no_such_function");
	expect_refused("missing-file", "does_not_exist", "does_not_exist.so");
	expect_refused("long-timeout", "long_timeout",
		       "default timeout 604801 s is not in 1..604800");
	/* names are copied into bounded buffers, and still checked whole */
	expect_refused("long-class-name", "long_class", "class 1: name must be 1..15");
	expect_refused("long-plugin-name", "long_name", "declares the name 'long_name_000");

	rc = loader_load(plugin_dir, "ftp", &pl, err, sizeof(err));
	CHECK("loader/loads-ftp", rc == 0 && pl && strcmp(pl->desc->name, "ftp") == 0 &&
	      pl->desc->priv_size <= CTH_PRIV_MAX, "rc=%d: %s", rc, err);
	loader_unload(pl);
}

/*
 * The file-name rule says what to do about it, and ABI 2 descriptors (the
 * ABI 3 layout cut after packet) load with their size, and nothing past
 * it read: their copy has the SDK 3 fields zeroed.
 */
static void test_abi_and_name(void)
{
	char err[1024] = "", want[1400];
	struct plugin *pl = NULL;
	int rc;

	snprintf(want, sizeof(want), "plugin file %s/wrong_name.so declares the name 'other': "
		 "a plugin is loaded as NAME.so with NAME its descriptor's name; rename the "
		 "file to other.so or declare .name = \"wrong_name\"", bad_dir);
	rc = loader_load(bad_dir, "wrong_name", &pl, err, sizeof(err));
	CHECK("loader/name-rule-says-what-to-do", rc == -EINVAL && !pl && strcmp(err, want) == 0,
	      "rc=%d: %s", rc, err);
	rc = loader_load(bad_dir, "abi2_prefix", &pl, err, sizeof(err));
	CHECK("loader/abi2-loads", rc == 0 && pl && pl->desc->abi_version == 2 &&
	      pl->desc->size == offsetof(struct cth_plugin_desc, keys), "rc=%d: %s", rc, err);
	CHECK("loader/abi2-sdk3-fields-zero", pl && !pl->desc->keys && !pl->desc->n_keys &&
	      !pl->desc->n_counters && !pl->desc->counters && !pl->desc->priv_version &&
	      !pl->desc->priv_version_at && !pl->desc->init && !pl->desc->check,
	      "n_keys %u n_counters %u", pl ? pl->desc->n_keys : 0, pl ? pl->desc->n_counters : 0);
	loader_unload(pl);
	pl = NULL;
	snprintf(want, sizeof(want), "descriptor is %zu bytes, cthelperd expects %zu for ABI 2",
		 sizeof(struct cth_plugin_desc), offsetof(struct cth_plugin_desc, keys));
	expect_refused("abi2-with-abi3-size", "abi2_size", want);
	snprintf(want, sizeof(want), "descriptor is %zu bytes, cthelperd expects %zu for ABI 3",
		 offsetof(struct cth_plugin_desc, keys), sizeof(struct cth_plugin_desc));
	expect_refused("abi3-with-abi2-size", "abi3_short", want);
	expect_refused("abi-names-both", "bad_abi", "speaks 3 (and loads 2..3)");
}

/* Every declaration of SDK 3 the loader refuses, each with its reason. */
static void test_sdk3_refused(void)
{
	static const char *const cases[][2] = {
		{ "k_dup", "key 'level' declared twice" },
		{ "k_daemon", "key 'queue_len': a daemon key of [helper] sections has that name" },
		{ "k_type", "key 'odd': unknown type 9" },
		{ "k_name", "key 0: name 'Flag' must be 1..31 characters of a-z, 0-9 and _" },
		{ "k_long", "key 6: name 'a_key_name_of_thirty_two_chars_x' must be 1..31" },
		{ "k_ports_max", "key 'ports': max 17 ports; a port list holds at most 16" },
		{ "k_uint_range", "key 'level': min 101 is above max 100" },
		{ "k_no_choice", "key 'mode': CTH_KEY_CHOICE needs at least one choice" },
		{ "k_many_choices", "key 'many': more than 16 choices" },
		{ "k_string_max", "key 'label': max 256 bytes; a string key holds 1..255" },
		{ "k_offset", "key 'label': its 17 bytes at offset" },
		{ "k_rule_twice", "2 keys have CTH_KEY_RULE_PORTS; at most one may" },
		{ "k_rule_type", "key 'label': CTH_KEY_RULE_PORTS is for a CTH_KEY_PORTS key only" },
		{ "k_custom", "key 'custom': CTH_KEY_CUSTOM needs the plugin's configure()" },
		{ "k_default", "key 'level': default '1000' is not a number in 1..100" },
		{ "k_too_many", "plugin declares 33 configuration keys; at most 32" },
		{ "c_too_many", "plugin declares 17 counters; at most 16" },
		{ "c_dup", "counter 'packets' declared twice" },
		{ "c_name", "counter 1: name 'Bytes' must be 1..31 characters" },
		{ "p_at", "priv_version_at 8 is not inside the 8 bytes of private state" },
		{ "p_valid", "priv_valid needs a priv_version" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "sdk3-%s", cases[i][0]);
		expect_refused_in(sdk3_dir, name, cases[i][0], cases[i][1]);
	}
}

/* The keys and counters are the daemon's copies, strings included. */
static void test_sdk3_copy(void)
{
	char err[1024] = "";
	struct plugin *pl = NULL;
	const struct cth_plugin_desc *raw, *d;
	int rc = loader_load(sdk3_dir, "sdk3", &pl, err, sizeof(err));

	CHECK("loader/sdk3-loads", rc == 0 && pl, "rc=%d: %s", rc, err);
	if (!pl)
		return;
	d = pl->desc;
	raw = dlsym(pl->dl, CTH_PLUGIN_SYMBOL);
	CHECK("loader/sdk3-keys-copied", raw && d->n_keys == 6 && d->keys == pl->keys &&
	      d->keys != raw->keys && d->keys[0].name != raw->keys[0].name &&
	      strcmp(d->keys[3].name, "mode") == 0 && d->keys[3].choices != raw->keys[3].choices &&
	      strcmp(d->keys[3].choices[1], "safe") == 0 && !d->keys[3].choices[2] &&
	      d->keys[3].choices[0] != raw->keys[3].choices[0] &&
	      strcmp(d->keys[1].def, "10") == 0 && d->keys[1].def != raw->keys[1].def &&
	      strcmp(d->keys[2].doc, "where the server listens") == 0 &&
	      !d->keys[0].choices && d->keys[2].flags == CTH_KEY_RULE_PORTS,
	      "n_keys %u", d->n_keys);
	CHECK("loader/sdk3-counters-copied", raw && d->n_counters == 2 &&
	      d->counters == pl->counters && d->counters[1].name != raw->counters[1].name &&
	      strcmp(d->counters[1].name, "bytes") == 0 &&
	      strcmp(d->counters[0].help, "Packets seen.") == 0, "n_counters %u", d->n_counters);
	CHECK("loader/sdk3-lifecycle-kept", d->check && d->init && d->fini && d->priv_valid &&
	      d->priv_version == 3 && d->priv_version_at == 0, "missing");
	loader_unload(pl);
}

/*
 * A plugin that rewrites its descriptor (strings and fields) after it was
 * loaded: the daemon keeps seeing what it checked.  The plugin's own
 * descriptor is looked at too, so the test proves the change happened.
 */
static void test_mutating(void)
{
	char err[1024] = "", cfg[8] = "";
	const struct cth_plugin_desc *raw;
	struct plugin *pl = NULL;
	const struct cth_plugin_desc *d;
	int rc = loader_load(bad_dir, "mutating", &pl, err, sizeof(err));

	CHECK("loader/mutating-loads", rc == 0 && pl, "rc=%d: %s", rc, err);
	if (!pl)
		return;
	d = pl->desc;
	raw = dlsym(pl->dl, CTH_PLUGIN_SYMBOL);
	CHECK("loader/desc-is-a-copy", raw && d != raw && d->name != raw->name &&
	      d->classes[0].name != raw->classes[0].name, "desc points into the plugin");
	rc = d->configure(cfg, "mutate", "now");
	CHECK("loader/plugin-did-mutate", rc == 0 && raw && raw->name[0] == 'X' &&
	      raw->classes[0].name[0] == 'z' && raw->priv_size == 64 && raw->n_classes == 7,
	      "the test plugin could not change its descriptor (rc=%d)", rc);
	CHECK("loader/mutation-not-seen", strcmp(d->name, "mutating") == 0 &&
	      strcmp(d->classes[0].name, "a") == 0 && d->priv_size == 4 &&
	      d->n_classes == 2 && d->classes[1].timeout == 10 &&
	      loader_desc_check(d, err, sizeof(err)) == 0,
	      "daemon copy changed: name=%s class=%s priv=%zu n=%u", d->name,
	      d->classes[0].name, d->priv_size, d->n_classes);
	loader_unload(pl);
}

static char conf_path[] = "/tmp/cth-test-runtime-XXXXXX";
static char err_text[8192];

/* Build a runtime from a config text; what went to stderr is kept in
 * err_text. */
static int build(const char *text, struct runtime **rt)
{
	char err_path[] = "/tmp/cth-test-rterr-XXXXXX";
	int fd = open(conf_path, O_WRONLY | O_TRUNC), saved, efd;
	struct cfg *cfg;
	ssize_t n;
	int rc;

	if (write(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
	*rt = NULL;
	fflush(stderr);
	saved = dup(2);
	efd = mkstemp(err_path);
	dup2(efd, 2);
	rc = cfg_load(conf_path, &cfg);
	if (rc == 0)
		rc = runtime_build(cfg, rt);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(efd, 0, SEEK_SET);
	n = read(efd, err_text, sizeof(err_text) - 1);
	err_text[n > 0 ? n : 0] = '\0';
	close(efd);
	unlink(err_path);
	return rc;
}

/* The runtime is refused with "FILE:LINE: ...words..." */
static void expect_build_error(const char *name, const char *text, int line,
			       const char *words)
{
	struct runtime *rt;
	char want[512];
	int rc = build(text, &rt);

	snprintf(want, sizeof(want), "%s:%d: ", conf_path, line);
	CHECK(name, rc == -EINVAL && !rt && strstr(err_text, want) &&
	      strstr(err_text, words), "rc=%d, wanted '%s...%s', got: %s",
	      rc, want, words, err_text);
	runtime_free(rt);
}

/*
 * The descriptor's protocols (like its families) are the set the plugin
 * supports: the default is all of it, a part of it may be chosen, and
 * anything else is an error at the key's line.
 */
static void test_protocols(void)
{
	char text[4096];
	struct runtime *rt;
	int rc;

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper t]\nplugin = tcp_udp\n"
		 "[helper u]\nplugin = tcp_udp\nprotocol = udp\n"
		 "[helper g]\nplugin = good\nprotocol = tcp\n", bad_dir);
	rc = build(text, &rt);
	CHECK("runtime/protocol-default-is-plugin-set", rc == 0 && rt &&
	      rt->inst[0].protocols == (CTH_PROTO_TCP | CTH_PROTO_UDP),
	      "rc=%d protocols=%u: %s", rc, rt ? rt->inst[0].protocols : 0, err_text);
	CHECK("runtime/protocol-subset", rt && rt->inst[1].protocols == CTH_PROTO_UDP &&
	      rt->inst[2].protocols == CTH_PROTO_TCP, "protocols wrong");
	runtime_free(rt);

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\n"
		 "queue = 1\nprotocol = udp\n", bad_dir);
	expect_build_error("runtime/protocol-unsupported", text, 6,
			   "helper 'g': protocol = udp: plugin 'good' supports tcp only");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\n"
		 "protocol = both\n", bad_dir);
	expect_build_error("runtime/protocol-both-unsupported", text, 5,
			   "protocol = both: plugin 'good' supports tcp only");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\n"
		 "family = ipv6\n", bad_dir);
	expect_build_error("runtime/family-unsupported", text, 5,
			   "family = ipv6: plugin 'good' supports ipv4 only");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper ftp]\n"
		 "protocol = udp\n", plugin_dir);
	expect_build_error("runtime/ftp-has-no-udp", text, 4,
			   "helper 'ftp': protocol = udp: plugin 'ftp' supports tcp only");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper ftp]\n"
		 "protocol = tcp\n", plugin_dir);
	rc = build(text, &rt);
	CHECK("runtime/ftp-tcp", rc == 0 && rt && rt->inst[0].protocols == CTH_PROTO_TCP,
	      "rc=%d: %s", rc, err_text);
	runtime_free(rt);
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
		CHECK("runtime/find", runtime_find(rt, "g2", 2, 6) == &rt->inst[1] &&
		      !runtime_find(rt, "g3", 10, 6) && !runtime_find(rt, "g4", 2, 6) &&
		      !runtime_find(rt, "g1", 2, 17),
		      "runtime_find wrong");
		runtime_free(rt);
	}

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\ncolor = green\n", bad_dir);
	CHECK("runtime/plugin-rejects-value", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\nshade = dark\n", bad_dir);
	CHECK("runtime/plugin-unknown-key", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = good\npolicy.zz.max = 2\n", bad_dir);
	CHECK("runtime/unknown-class", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper g]\nplugin = bad_abi\n", bad_dir);
	CHECK("runtime/bad-plugin", build(text, &rt) == -EINVAL && !rt, "accepted");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper ftp]\nloose = yes\n", plugin_dir);
	rc = build(text, &rt);
	CHECK("runtime/ftp-loose", rc == 0 && rt, "rc=%d", rc);
	runtime_free(rt);
}

/* ---- SDK 3 keys, check, init and fini through the runtime ---- */

static void *sdk3_dl;
static unsigned int *sdk3_inits, *sdk3_finis;
static const char *sdk3_last_helper;

static void sdk3_hold(void)
{
	char path[1100];

	/* kept open, so that the plugin's counts outlive each runtime */
	snprintf(path, sizeof(path), "%s/sdk3.so", sdk3_dir);
	sdk3_dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	sdk3_inits = sdk3_dl ? dlsym(sdk3_dl, "sdk3_inits") : NULL;
	sdk3_finis = sdk3_dl ? dlsym(sdk3_dl, "sdk3_finis") : NULL;
	sdk3_last_helper = sdk3_dl ? dlsym(sdk3_dl, "sdk3_last_helper") : NULL;
	if (!sdk3_inits || !sdk3_finis || !sdk3_last_helper) {
		printf("FAIL runtime/sdk3-open: %s\n", dlerror());
		abort();
	}
}

static int sdk3_build(const char *sections, struct runtime **rt)
{
	char text[4096];

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n%s", sdk3_dir, sections);
	return build(text, rt);
}

static const struct sdk3_config *sdk3_cfg(const struct runtime *rt, size_t i)
{
	return rt->inst[i].config;
}

static void test_sdk3_defaults(void)
{
	struct runtime *rt;
	const struct sdk3_config *c;
	int rc = sdk3_build("[helper s]\nplugin = sdk3\n", &rt);

	CHECK("keys/defaults-build", rc == 0 && rt, "rc=%d: %s", rc, err_text);
	if (!rt)
		return;
	c = sdk3_cfg(rt, 0);
	CHECK("keys/defaults-applied", c->flag && c->level == 10 && c->ports.n == 2 &&
	      c->ports.port[0] == 7000 && c->ports.port[1] == 7001 &&
	      c->mode == SDK3_MODE_SAFE && c->label[0] == '\0',
	      "flag %d level %u ports %u mode %u", c->flag, c->level, c->ports.n, c->mode);
	CHECK("keys/custom-default-through-configure", c->custom == 'x', "custom '%c'", c->custom);
	CHECK("lifecycle/init-ran", c->inited && *sdk3_inits == 1 && *sdk3_finis == 0 &&
	      strcmp(sdk3_last_helper, "s") == 0, "inits %u finis %u helper '%s'",
	      *sdk3_inits, *sdk3_finis, sdk3_last_helper);
	runtime_free(rt);
	CHECK("lifecycle/fini-at-free", *sdk3_inits == 1 && *sdk3_finis == 1,
	      "inits %u finis %u", *sdk3_inits, *sdk3_finis);
}

static void test_sdk3_values(void)
{
	struct runtime *rt;
	const struct sdk3_config *c;
	int rc = sdk3_build("[helper s]\nplugin = sdk3\nflag = off\nlevel = 100\n"
			    "ports = 1 2,65535, 4\nmode = SAFE\nlabel = hello world 123\n"
			    "custom = q\nlevel = 42\n", &rt);

	CHECK("keys/values-build", rc == 0 && rt, "rc=%d: %s", rc, err_text);
	if (!rt)
		return;
	c = sdk3_cfg(rt, 0);
	CHECK("keys/values-parsed", !c->flag && c->ports.n == 4 && c->ports.port[2] == 65535 &&
	      c->ports.port[3] == 4 && c->mode == SDK3_MODE_SAFE &&
	      strcmp(c->label, "hello world 123") == 0 && c->custom == 'q',
	      "flag %d ports %u mode %u label '%s' custom '%c'", c->flag, c->ports.n,
	      c->mode, c->label, c->custom);
	CHECK("keys/last-value-wins", c->level == 42, "level %u", c->level);
	runtime_free(rt);
}

static void test_sdk3_errors(void)
{
	static const char *const bad[][3] = {
		{ "level = 0", "level: invalid value '0' (a number in 1..100)" },
		{ "level = 101", "level: invalid value '101' (a number in 1..100)" },
		{ "level = ten", "level: invalid value 'ten' (a number in 1..100)" },
		{ "ports = 1,2,3,4,5",
		  "ports: invalid value '1,2,3,4,5' (a port list of 1..4 ports 1..65535)" },
		{ "ports = 0", "ports: invalid value '0' (a port list of 1..4 ports 1..65535)" },
		{ "ports = 70000", "ports: invalid value '70000' (a port list of 1..4 ports" },
		{ "mode = slow", "mode: invalid value 'slow' (one of fast, safe)" },
		{ "flag = maybe", "flag: invalid value 'maybe' (yes or no (also true/false, on/off, 1/0))" },
		{ "label = seventeen_bytes_x", "label: invalid value 'seventeen_bytes_x' (text of at most 16 bytes" },
		{ "custom = 1", "custom: invalid value '1' (plugin 'sdk3' refused it)" },
		{ "colour = red", "unknown key 'colour' for plugin 'sdk3' (its keys: flag, level, ports, mode, label, custom)" },
	};
	char text[2048], name[96];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper s]\nplugin = sdk3\n"
			 "%s\n", sdk3_dir, bad[i][0]);
		snprintf(name, sizeof(name), "keys/refused-%zu-%.40s", i, bad[i][0]);
		expect_build_error(name, text, 5, bad[i][1]);
	}
	/* every bad key is reported, each at its line, in one run */
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper s]\nplugin = sdk3\n"
		 "level = 0\nflag = yes\nmode = slow\n", sdk3_dir);
	expect_build_error("keys/errors-all-reported", text, 7, "mode: invalid value 'slow'");
	CHECK("keys/errors-all-reported-first", strstr(err_text, ":5: level: invalid value '0'") != NULL,
	      "%s", err_text);
	/* an ABI 2 style key on a plugin that declares keys: not handed over */
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper s]\nplugin = custom_def\n",
		 sdk3_dir);
	expect_build_error("keys/custom-default-refused", text, 3,
			   "helper 's': plugin 'custom_def' refused the default of its key 'custom' ('X')");
}

/* check() after every key, at the section's line; init() and fini()
 * paired, per instance, also when the build fails half-way. */
static void test_sdk3_lifecycle(void)
{
	unsigned int inits = *sdk3_inits, finis = *sdk3_finis;
	struct runtime *rt;
	char text[2048];
	int rc;

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper s]\nplugin = sdk3\n"
		 "mode = fast\nflag = no\n", sdk3_dir);
	expect_build_error("lifecycle/check-refuses", text, 3,
			   "helper 's': plugin 'sdk3' refuses the configuration: flag = no needs mode = safe");
	CHECK("lifecycle/no-init-after-check-failed", *sdk3_inits == inits && *sdk3_finis == finis,
	      "inits %u finis %u", *sdk3_inits, *sdk3_finis);
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper a]\nplugin = sdk3\nqueue = 1\n"
		 "[helper b]\nplugin = sdk3\nqueue = 2\nlabel = fail-init\n"
		 "[helper c]\nplugin = sdk3\nqueue = 3\n", sdk3_dir);
	expect_build_error("lifecycle/init-failure-fails", text, 6,
			   "helper 'b': plugin 'sdk3' could not set it up (init): Input/output error");
	CHECK("lifecycle/fini-once-per-init", *sdk3_inits - inits == 2 && *sdk3_finis - finis == 2,
	      "inits +%u finis +%u", *sdk3_inits - inits, *sdk3_finis - finis);
	inits = *sdk3_inits;
	finis = *sdk3_finis;
	rc = sdk3_build("[helper sh]\nplugin = sdk3\nshards = 3\nqueue = 4\n", &rt);
	CHECK("lifecycle/init-per-shard", rc == 0 && rt && *sdk3_inits - inits == 3 &&
	      strcmp(sdk3_last_helper, "sh.2") == 0, "rc=%d inits +%u last '%s': %s", rc,
	      *sdk3_inits - inits, sdk3_last_helper, err_text);
	runtime_free(rt);
	CHECK("lifecycle/fini-per-shard", *sdk3_finis - finis == 3, "finis +%u",
	      *sdk3_finis - finis);
}

/* An ABI 2 plugin keeps its configure() for every key, and its words. */
static void test_abi2_runtime(void)
{
	char text[2048];
	struct runtime *rt;
	int rc;

	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper o]\nplugin = abi2_prefix\n"
		 "color = red\n", bad_dir);
	rc = build(text, &rt);
	CHECK("runtime/abi2-configured", rc == 0 && rt && *(char *)rt->inst[0].config == 'r',
	      "rc=%d: %s", rc, err_text);
	runtime_free(rt);
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper o]\nplugin = abi2_prefix\n"
		 "shade = dark\n", bad_dir);
	expect_build_error("runtime/abi2-unknown-key", text, 5,
			   "unknown key 'shade' (not a daemon key, and plugin 'abi2_prefix' does not know it)");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper o]\nplugin = abi2_prefix\n"
		 "color = green\n", bad_dir);
	expect_build_error("runtime/abi2-bad-value", text, 5,
			   "color: invalid value 'green' for plugin 'abi2_prefix'");
}

/*
 * The SDK example as it was built against the ABI 2 headers
 * (tests/abi2/): loaded with its own descriptor size, and configured
 * through its configure() (min_port) with the words of before.
 */
static void test_abi2_toydata(void)
{
	char err[1024] = "", text[2048];
	struct plugin *pl = NULL;
	struct runtime *rt;
	uint32_t min_port = 0;
	int rc = loader_load(abi2_dir, "toydata", &pl, err, sizeof(err));

	CHECK("abi2/toydata-loads", rc == 0 && pl && pl->desc->abi_version == 2 &&
	      pl->desc->size == offsetof(struct cth_plugin_desc, keys) && pl->desc->configure &&
	      !pl->desc->n_keys && !pl->desc->priv_version, "rc=%d: %s", rc, err);
	loader_unload(pl);
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper toy]\nplugin = toydata\n"
		 "min_port = 2000\n", abi2_dir);
	rc = build(text, &rt);
	if (rt)
		memcpy(&min_port, rt->inst[0].config, sizeof(min_port));
	CHECK("abi2/toydata-configured", rc == 0 && rt && min_port == 2000 &&
	      rt->inst[0].started, "rc=%d min_port %u: %s", rc, min_port, err_text);
	runtime_free(rt);
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper toy]\nplugin = toydata\n"
		 "min_port = 0\n", abi2_dir);
	expect_build_error("abi2/toydata-bad-value", text, 5,
			   "min_port: invalid value '0' for plugin 'toydata'");
	snprintf(text, sizeof(text), "[server]\nplugin_dir = %s\n[helper toy]\nplugin = toydata\n"
		 "max_port = 9\n", abi2_dir);
	expect_build_error("abi2/toydata-unknown-key", text, 5,
			   "unknown key 'max_port' (not a daemon key, and plugin 'toydata' does not know it)");
}

/*
 * conf/cthelperd.conf loads its plugins through its relative plugin_dir
 * (../build/plugins, from the file's directory) wherever it is read from:
 * a copy in a tree of its own whose build/ is the build under test, read
 * from here, another working directory.
 */
static void test_example_conf(const char *build_dir)
{
	char tree[] = "/tmp/cth-test-example-XXXXXX", conf[256], link[256], cmd[768];
	struct runtime *rt = NULL;
	struct cfg *cfg = NULL;
	int rc;

	if (!mkdtemp(tree))
		abort();
	snprintf(conf, sizeof(conf), "%s/conf/cthelperd.conf", tree);
	snprintf(link, sizeof(link), "%s/build", tree);
	snprintf(cmd, sizeof(cmd), "mkdir %s/conf && cp conf/cthelperd.conf %s", tree, conf);
	if (system(cmd) != 0 || symlink(build_dir, link) < 0)
		abort();
	rc = cfg_load(conf, &cfg);
	if (rc == 0)
		rc = runtime_build(cfg, &rt);
	CHECK("loader/example-conf-loads-its-plugins", rc == 0 && rt && rt->n_inst > 0 &&
	      strcmp(rt->inst[0].pl->desc->name, "ftp") == 0, "rc=%d", rc);
	runtime_free(rt);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	if (system(cmd) != 0)
		abort();
}

int main(void)
{
	const char *b = getenv("CTH_BUILD");
	char cwd[512], build_dir[1024];
	int fd;

	if (!b)
		b = "build";
	/* absolute: the test configs live in /tmp, and a relative plugin_dir
	 * is relative to the config file */
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(bad_dir, sizeof(bad_dir), "%s/%s/tests/bad", cwd, b);
	snprintf(plugin_dir, sizeof(plugin_dir), "%s/%s/plugins", cwd, b);
	snprintf(sdk3_dir, sizeof(sdk3_dir), "%s/%s/tests/sdk3", cwd, b);
	snprintf(abi2_dir, sizeof(abi2_dir), "%s/%s/tests/abi2", cwd, b);
	snprintf(build_dir, sizeof(build_dir), "%s/%s", cwd, b);
	fd = mkstemp(conf_path);
	if (fd < 0)
		return 1;
	close(fd);
	test_loader();
	test_abi_and_name();
	test_sdk3_refused();
	test_sdk3_copy();
	test_mutating();
	test_runtime();
	test_protocols();
	sdk3_hold();
	test_sdk3_defaults();
	test_sdk3_values();
	test_sdk3_errors();
	test_sdk3_lifecycle();
	test_abi2_runtime();
	test_abi2_toydata();
	test_example_conf(build_dir);
	unlink(conf_path);
	return check_exit();
}
