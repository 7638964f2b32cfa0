/* SPDX-License-Identifier: MIT */
/*
 * Describe mode (server/sandbox/describe.h): a sandboxed helper's plugin
 * is read by the daemon through a sandbox, never loaded in it.
 *
 * The wire form, no process: what the sandbox puts (describe_wire_put()
 * of a loaded plugin) taken back by the daemon (describe_wire_take())
 * equals what the loader gives for the same plugin (sdk3: every key
 * type, counters, the lifecycle; tftp; an ABI 2 one), and hostile forms
 * are refused without a crash: bogus sizes, another file, unterminated
 * strings, counts above their maxima, random bytes.
 *
 * The daemon, as an operator runs it (the build's cthelperd -n and
 * --print-rules on configurations in a plugin_dir of their own): the
 * ctor test plugin's constructor never runs in the daemon for a
 * sandboxed helper and does for a sandbox = no one; what a sandboxed
 * plugin's configure(), check() and init() refuse is reported at its
 * line, in the in-process path's words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "runtime/loader.h"
#include "sandbox/describe_wire.h"

static const char *build_dir;
static char cwd[1024];

/* ---- the wire form ---- */

static struct plugin *load(const char *dir, const char *name)
{
	char path[2048], err[1024];
	struct plugin *pl = NULL;

	snprintf(path, sizeof(path), "%s/%s/%s", cwd, build_dir, dir);
	if (loader_load(path, name, &pl, err, sizeof(err)) < 0) {
		printf("# load %s/%s: %s\n", dir, name, err);
		return NULL;
	}
	return pl;
}

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Inside pl: a pointer of the adopted copy never leads elsewhere. */
static bool inside(const struct plugin *pl, const void *p)
{
	return !p || ((const char *)p >= (const char *)pl &&
		      (const char *)p < (const char *)(pl + 1));
}

/* The described copy says what the loaded one says, with no code. */
static void same_check(const char *name, const struct plugin *a, const struct plugin *b)
{
	const struct cth_plugin_desc *x = a->desc, *y = b->desc;
	struct check c;

	check_start(&c, "describe/same-%s", name);
	check_that(&c, b->described && !b->dl && !a->described, "described %d dl %p",
		   b->described, b->dl);
	check_that(&c, !y->configure && !y->packet && !y->check && !y->init && !y->fini &&
		   !y->priv_valid, "a function pointer survived");
	check_that(&c, b->fns == loader_desc_fns(x), "fns 0x%x, loaded 0x%x", b->fns,
		   loader_desc_fns(x));
	check_that(&c, y == &b->copy && inside(b, y->name) && inside(b, y->keys) &&
		   inside(b, y->counters), "a pointer leads out of the copy");
	check_that(&c, x->abi_version == y->abi_version && x->size == y->size &&
		   str_eq(x->name, y->name) && str_eq(x->version, y->version) &&
		   str_eq(x->description, y->description), "header or texts differ");
	check_that(&c, x->protocols == y->protocols && x->families == y->families &&
		   x->priv_size == y->priv_size && x->config_size == y->config_size &&
		   x->priv_version == y->priv_version && x->priv_version_at == y->priv_version_at,
		   "sizes or sets differ");
	check_that(&c, x->n_classes == y->n_classes, "n_classes %u / %u", x->n_classes,
		   y->n_classes);
	for (unsigned int i = 0; i < CTH_CLASS_MAX; i++)
		check_that(&c, str_eq(x->classes[i].name, y->classes[i].name) &&
			   x->classes[i].max == y->classes[i].max &&
			   x->classes[i].timeout == y->classes[i].timeout, "class %u differs", i);
	check_that(&c, x->n_keys == y->n_keys && !x->keys == !y->keys, "n_keys %u / %u",
		   x->n_keys, y->n_keys);
	for (unsigned int i = 0; x->keys && y->keys && i < x->n_keys; i++) {
		const struct cth_key *k = &x->keys[i], *l = &y->keys[i];

		check_that(&c, str_eq(k->name, l->name) && str_eq(k->doc, l->doc) &&
			   str_eq(k->def, l->def) && k->type == l->type && k->flags == l->flags &&
			   k->offset == l->offset && k->min == l->min && k->max == l->max &&
			   !k->choices == !l->choices, "key %u differs", i);
		for (unsigned int j = 0; k->choices && l->choices && (k->choices[j] ||
		     l->choices[j]); j++)
			check_that(&c, str_eq(k->choices[j], l->choices[j]),
				   "key %u choice %u differs", i, j);
	}
	check_that(&c, x->n_counters == y->n_counters && !x->counters == !y->counters,
		   "n_counters %u / %u", x->n_counters, y->n_counters);
	for (unsigned int i = 0; x->counters && y->counters && i < x->n_counters; i++)
		check_that(&c, str_eq(x->counters[i].name, y->counters[i].name) &&
			   str_eq(x->counters[i].help, y->counters[i].help),
			   "counter %u differs", i);
	check_end(&c);
}

static int take(const struct chan_describe *w, const struct plugin *pl, struct plugin **out,
		char *err, size_t len)
{
	*out = NULL;
	return describe_wire_take(w, pl->path, pl->desc->name, pl->dev, pl->ino, out, err, len);
}

static void test_same(struct chan_describe *w, const char *dir, const char *name)
{
	struct plugin *pl = load(dir, name), *got = NULL;
	char err[1024] = "", what[128];
	int rc;

	snprintf(what, sizeof(what), "describe/loaded-%s", name);
	CHECK(what, pl != NULL, "not loaded");
	if (!pl)
		return;
	describe_wire_put(w, pl);
	CHECK("describe/put-unpointed", !w->pl.path && !w->pl.dl && !w->pl.desc &&
	      !w->pl.copy.name && !w->pl.copy.packet && !w->pl.copy.keys &&
	      !w->pl.keys[0].name && !w->pl.counters[0].name, "a pointer went along");
	rc = take(w, pl, &got, err, sizeof(err));
	CHECK("describe/taken", rc == 0 && got, "%s: %d: %s", name, rc, err);
	if (got)
		same_check(name, pl, got);
	loader_unload(got);
	loader_unload(pl);
}

/* A hostile form is refused with a reason and nothing allocated. */
static void refused(const char *name, const struct chan_describe *w, const struct plugin *pl,
		    const char *want)
{
	struct plugin *got;
	char err[1024] = "";
	int rc = take(w, pl, &got, err, sizeof(err));

	CHECK(name, rc < 0 && !got && err[0] && (!want || strstr(err, want)),
	      "rc %d, err '%s' (wanted '%s')", rc, err, want ? want : "");
	if (rc == 0)
		loader_unload(got);
}

static void test_hostile(struct chan_describe *w)
{
	struct plugin *pl = load("tests/sdk3", "sdk3"), *got;
	struct chan_describe *h = malloc(sizeof(*h));
	char err[1024];
	int rc;

	if (!pl || !h) {
		CHECK("describe/hostile-setup", false, "no sdk3 plugin");
		free(h);
		loader_unload(pl);
		return;
	}
	describe_wire_put(w, pl);
#define FRESH() memcpy(h, w, sizeof(*h))
	FRESH();
	h->plugin_size = 12;
	refused("describe/hostile-plugin-size", h, pl, "describes it in 12 bytes");
	FRESH();
	h->ino ^= 1;
	refused("describe/hostile-other-file", h, pl, "replaced while");
	FRESH();
	h->pl.copy.size = 12345;
	refused("describe/hostile-desc-size", h, pl, "descriptor is 12345 bytes");
	FRESH();
	h->pl.copy.abi_version = 77;
	refused("describe/hostile-abi", h, pl, "ABI version 77");
	FRESH();
	h->fns &= ~(uint32_t)PLUGIN_FN_PACKET;
	refused("describe/hostile-no-packet", h, pl, "no packet callback");
	FRESH();
	h->fns &= ~(uint32_t)PLUGIN_FN_CONFIGURE;
	refused("describe/hostile-custom-without-configure", h, pl, "needs the plugin's configure()");
	FRESH();
	memset(h->pl.name, 'a', sizeof(h->pl.name));
	refused("describe/hostile-name-unterminated", h, pl, "longer than");
	FRESH();
	memset(h->pl.class_names[0], 'c', sizeof(h->pl.class_names[0]));
	refused("describe/hostile-class-unterminated", h, pl, "expectation class 0");
	FRESH();
	memset(h->pl.key_text[0].name, 'k', sizeof(h->pl.key_text[0].name));
	refused("describe/hostile-key-unterminated", h, pl, "key 0");
	FRESH();
	h->pl.copy.n_keys = 1000;
	refused("describe/hostile-n-keys", h, pl, "at most 32");
	FRESH();
	h->pl.copy.n_classes = 99;
	refused("describe/hostile-n-classes", h, pl, "99 expectation classes");
	FRESH();
	h->pl.copy.n_counters = 99;
	refused("describe/hostile-n-counters", h, pl, "99 counters");
	FRESH();
	/* key 3 is the choice key: more choices than may be declared */
	h->pl.has.n_choices[3] = 250;
	memset(h->pl.key_text[3].choice, 'z', sizeof(h->pl.key_text[3].choice));
	refused("describe/hostile-n-choices", h, pl, "key 'mode'");
	FRESH();
	h->pl.copy.config_size = 4;
	refused("describe/hostile-key-offset", h, pl, "do not fit");
	/* a doc line that is too long is cut, not refused; terminated */
	FRESH();
	memset(h->pl.key_text[0].doc, 'd', sizeof(h->pl.key_text[0].doc));
	rc = take(h, pl, &got, err, sizeof(err));
	CHECK("describe/hostile-doc-cut", rc == 0 && got &&
	      strlen(got->desc->keys[0].doc) == sizeof(got->key_text[0].doc) - 1,
	      "rc %d: %s", rc, err);
	loader_unload(got);
	/* random bytes: refused or taken, never a crash, never a pointer
	 * that leads out of the copy, never a function pointer */
	srand(32);
	for (unsigned int round = 0; round < 400; round++) {
		FRESH();
		if (round % 2) {
			for (size_t i = 0; i < sizeof(h->pl); i++)
				((unsigned char *)&h->pl)[i] = (unsigned char)rand();
		} else {
			for (unsigned int n = 0; n < 64; n++)
				((unsigned char *)&h->pl)[(size_t)rand() % sizeof(h->pl)] =
					(unsigned char)rand();
		}
		rc = take(h, pl, &got, err, sizeof(err));
		if (rc == 0 && (!got || !inside(got, got->desc->name) ||
				!inside(got, got->desc->keys) || got->desc->packet)) {
			CHECK("describe/hostile-random", false, "round %u: taken unsound", round);
			break;
		}
		loader_unload(got);
		if (round == 399)
			CHECK("describe/hostile-random", true, "%s", "");
	}
#undef FRESH
	free(h);
	loader_unload(pl);
}

/* ---- the daemon ---- */

static char plugdir[] = "/tmp/cth-test-describe-XXXXXX";

static int copy_in(const char *from, const char *to)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "install -m 0755 %s/%s/%s %s/%s", cwd, build_dir, from,
		 plugdir, to);
	return system(cmd);
}

/* cthelperd MODE on text, its exit status and output (stdout, stderr). */
static int daemon_run(const char *mode, const char *text, const char *env, char *out,
		      size_t len)
{
	char conf[1200], cmd[4096];
	FILE *f, *p;
	size_t n;
	int rc;

	snprintf(conf, sizeof(conf), "%s/test.conf", plugdir);
	f = fopen(conf, "w");
	if (!f)
		return -1;
	fprintf(f, "[server]\nplugin_dir = %s\n%s", plugdir, text);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "env %s %s/%s/cthelperd %s -c %s 2>&1", env ? env : "", cwd,
		 build_dir, mode, conf);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, len - 1, p) : 0;
	out[n] = '\0';
	rc = p ? pclose(p) : -1;
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* The constructor's marks: -1 none, else the uid it last wrote. */
static long mark_uid(const char *mark)
{
	FILE *f = fopen(mark, "r");
	long uid = -1, u;

	while (f && fscanf(f, "%ld", &u) == 1)
		uid = u;
	if (f)
		fclose(f);
	return uid;
}

static void test_ctor(void)
{
	char out[16384], mark[1200], env[1300];
	int rc;

	snprintf(mark, sizeof(mark), "%s/ctor-ran", plugdir);
	snprintf(env, sizeof(env), "CTH_CTOR_MARK=%s", mark);
	rc = daemon_run("-n", "[helper ctor]\nplugin = ctor\n", env, out, sizeof(out));
	CHECK("describe/ctor-sandboxed-n", rc == 0 && mark_uid(mark) == -1,
	      "exit %d, mark uid %ld:\n%s", rc, mark_uid(mark), out);
	rc = daemon_run("--print-rules nft", "[helper ctor]\nplugin = ctor\nrule_ports = 7\n", env,
			out, sizeof(out));
	CHECK("describe/ctor-sandboxed-print-rules", rc == 0 && mark_uid(mark) == -1 &&
	      strstr(out, "ct helper"), "exit %d, mark uid %ld:\n%s", rc, mark_uid(mark), out);
	/* the same plugin in process: its constructor runs, as the daemon */
	rc = daemon_run("-n", "[helper ctor]\nplugin = ctor\nsandbox = no\n", env, out, sizeof(out));
	CHECK("describe/ctor-in-process-n", rc == 0 && mark_uid(mark) == (long)geteuid(),
	      "exit %d, mark uid %ld:\n%s", rc, mark_uid(mark), out);
	unlink(mark);
	/* both ways in one configuration: one described, one loaded */
	rc = daemon_run("-n", "[helper a]\nplugin = ctor\n[helper b]\nplugin = ctor\nqueue = 2\n"
			"sandbox = no\n", env, out, sizeof(out));
	CHECK("describe/ctor-both-ways", rc == 0 && mark_uid(mark) == (long)geteuid() &&
	      strstr(out, "2 helper(s), 2 plugin(s)"), "exit %d, mark uid %ld:\n%s", rc,
	      mark_uid(mark), out);
	unlink(mark);
}

/* The line "test.conf:LINE: text" is in out. */
static bool said(const char *out, int line, const char *text)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s/test.conf:%d: %s\n", plugdir, line, text);
	return strstr(out, want) != NULL;
}

/* What the sandbox refuses, at its line, as in process. */
static void refusal(const char *name, const char *section, int line, const char *text)
{
	char out[16384], inproc[16384], sect[1024];
	int rc, rc2;

	rc = daemon_run("-n", section, NULL, out, sizeof(out));
	snprintf(sect, sizeof(sect), "%ssandbox = no\n", section);
	rc2 = daemon_run("-n", sect, NULL, inproc, sizeof(inproc));
	CHECK(name, rc == 1 && said(out, line, text) && rc2 == 1 && said(inproc, line, text),
	      "sandboxed exit %d:\n%sin process exit %d:\n%s", rc, out, rc2, inproc);
}

static void test_refusals(void)
{
	/* lines: 1 [server], 2 plugin_dir, 3 the section */
	refusal("describe/abi2-bad-value", "[helper toy]\nplugin = toydata\nmin_port = abc\n", 5,
		"min_port: invalid value 'abc' for plugin 'toydata'");
	refusal("describe/abi2-unknown-key", "[helper toy]\nplugin = toydata\ncolour = red\n", 5,
		"unknown key 'colour' (not a daemon key, and plugin 'toydata' does not know it)");
	refusal("describe/custom-bad-value", "[helper s]\nplugin = sdk3\nqueue = 3\ncustom = XY\n",
		6, "custom: invalid value 'XY' (plugin 'sdk3' refused it)");
	refusal("describe/check-refuses", "[helper s]\nplugin = sdk3\nflag = no\nmode = fast\n", 3,
		"helper 's': plugin 'sdk3' refuses the configuration: flag = no needs mode = safe");
	refusal("describe/init-fails", "[helper s]\nplugin = sdk3\nlabel = fail-init\n", 3,
		"helper 's': plugin 'sdk3' could not set it up (init): Input/output error");
	/* a declared key's value: the daemon's own parser, as before */
	refusal("describe/declared-bad-value", "[helper s]\nplugin = sdk3\nlevel = 1000\n", 5,
		"level: invalid value '1000' (a number in 1..100)");
}

int main(void)
{
	struct chan_describe *w = malloc(sizeof(*w));

	build_dir = getenv("CTH_BUILD") ? getenv("CTH_BUILD") : "build";
	if (!w || !getcwd(cwd, sizeof(cwd)))
		return 1;
	test_same(w, "tests/sdk3", "sdk3");
	test_same(w, "plugins", "tftp");
	test_same(w, "tests/abi2", "toydata");
	test_hostile(w);
	free(w);
	if (!mkdtemp(plugdir) || chmod(plugdir, 0755) < 0 ||
	    copy_in("tests/plugins/ctor.so", "ctor.so") || copy_in("tests/sdk3/sdk3.so", "sdk3.so") ||
	    copy_in("tests/abi2/toydata.so", "toydata.so")) {
		CHECK("describe/plugin-dir", false, "cannot make %s", plugdir);
		return check_exit();
	}
	test_ctor();
	test_refusals();
	{
		char cmd[1200];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", plugdir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", plugdir);
	}
	return check_exit();
}
