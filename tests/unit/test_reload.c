/* SPDX-License-Identifier: MIT */
/*
 * The parts of a live reload that need no kernel: which [server] keys
 * refuse a reload, counter slots across a reload, the summary line, and
 * dlfresh_open(), which must load a plugin file replaced on disk although
 * glibc would hand back the loaded object of the same name (checked here
 * too, since the whole file exists because of it).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfgload.h"
#include "check.h"
#include "runtime/dlfresh.h"
#include "daemon/reload_plan.h"

static struct plugin pl_ftp1 = { .name = "ftp", .version = "1.0" };
static struct plugin pl_ftp2 = { .name = "ftp", .version = "1.1" };
static struct plugin pl_sip = { .name = "sip", .version = "1.0" };

static void inst_set(struct instance *in, const char *name, struct plugin *pl,
		     uint16_t queue, unsigned int slot)
{
	snprintf(in->name, sizeof(in->name), "%s", name);
	in->pl = pl;
	in->queue = queue;
	in->slot = slot;
}

static void test_server_keys(void)
{
	struct cfg a = { .file = (char *)"/etc/c.conf", .control_socket = (char *)"/run/a.sock",
			 .control_mode = 0600, .control_gid = -1 };
	struct cfg b = a;
	char msg[512] = "";

	CHECK("reload/server-same", reload_plan_server_check(&a, &b, msg, sizeof(msg)) == 0, "%s", msg);
	b.log_level = 7;
	b.plugin_dir = (char *)"/elsewhere";
	CHECK("reload/server-log-level-and-plugin-dir-may-change",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == 0, "%s", msg);
	b.control_socket = (char *)"/run/b.sock";
	CHECK("reload/server-socket-refused",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "/etc/c.conf: [server] control_socket changed (/run/a.sock, now /run/b.sock)") &&
	      strstr(msg, "restart"), "%s", msg);
	b.control_socket = NULL;
	CHECK("reload/server-socket-removed-refused",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "now (unset)"), "%s", msg);
	b = a;
	b.control_mode = 0660;
	CHECK("reload/server-mode-refused",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "control_mode changed (0600, now 0660)"), "%s", msg);
	b = a;
	b.metrics = (char *)"127.0.0.1:9469";
	CHECK("reload/server-metrics-refused",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "metrics changed ((unset), now 127.0.0.1:9469)"), "%s", msg);
	b = a;
	b.user = (char *)"nobody";
	CHECK("reload/server-user-refused",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "user changed ((unset), now nobody)"), "%s", msg);
	b = a;
	b.control_gid = 4;
	CHECK("reload/server-group-refused",
	      reload_plan_server_check(&a, &b, msg, sizeof(msg)) == -EINVAL &&
	      strstr(msg, "control_group"), "%s", msg);
}

static void test_slots(void)
{
	static struct runtime old, nrt;
	unsigned int fresh[CFG_MAX_HELPERS];
	size_t n;

	old.n_inst = 2;
	inst_set(&old.inst[0], "a", &pl_ftp1, 0, 0);
	inst_set(&old.inst[1], "b", &pl_sip, 0, 1);
	nrt.n_inst = 3;
	inst_set(&nrt.inst[0], "b", &pl_sip, 0, 0);
	inst_set(&nrt.inst[1], "c", &pl_ftp1, 1, 1);
	inst_set(&nrt.inst[2], "a", &pl_ftp1, 0, 2);
	n = reload_plan_slots_assign(&old, &nrt, fresh);
	CHECK("reload/slots-kept-by-name", nrt.inst[0].slot == 1 && nrt.inst[2].slot == 0,
	      "b %u a %u", nrt.inst[0].slot, nrt.inst[2].slot);
	CHECK("reload/slots-new-one-fresh", n == 1 && fresh[0] == nrt.inst[1].slot &&
	      nrt.inst[1].slot > 1 && nrt.inst[1].slot < STATS_SLOTS,
	      "n %zu slot %u", n, nrt.inst[1].slot);

	/* a full runtime replaced by another full one of new names: every
	 * new slot differs from every old one */
	old.n_inst = nrt.n_inst = CFG_MAX_HELPERS;
	for (unsigned int i = 0; i < CFG_MAX_HELPERS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "o%u", i);
		inst_set(&old.inst[i], name, &pl_ftp1, 0, i * 2);
		snprintf(name, sizeof(name), "n%u", i);
		inst_set(&nrt.inst[i], name, &pl_ftp1, 0, i);
	}
	n = reload_plan_slots_assign(&old, &nrt, fresh);
	{
		bool ok = n == CFG_MAX_HELPERS;

		for (unsigned int i = 0; i < CFG_MAX_HELPERS && ok; i++)
			ok = nrt.inst[i].slot % 2 == 1 && nrt.inst[i].slot < STATS_SLOTS;
		CHECK("reload/slots-full-swap-disjoint", ok, "n %zu first %u", n, nrt.inst[0].slot);
	}
}

/*
 * Plugin counters across a reload: carried where the helper stays, its
 * plugin is the same by name and declares the same counter at the same
 * index; reset otherwise, and in full for a new helper.
 */
static void test_counters_carried(void)
{
	static const struct cth_counter c1[] = { { .name = "req" }, { .name = "err" }, { .name = "x" } };
	static const struct cth_counter c2[] = { { .name = "req" }, { .name = "bad" } };
	static const struct cth_plugin_desc d1 = { .name = "ftp", .counters = c1, .n_counters = 3 };
	static const struct cth_plugin_desc d2 = { .name = "ftp", .counters = c2, .n_counters = 2 };
	static const struct cth_plugin_desc d3 = { .name = "sip", .counters = c1, .n_counters = 3 };
	static struct plugin p1 = { .name = "ftp", .desc = &d1 }, p2 = { .name = "ftp", .desc = &d2 },
			     p3 = { .name = "sip", .desc = &d3 };
	static struct runtime old, nrt;
	static uint32_t reset[STATS_SLOTS];

	old.n_inst = 3;
	inst_set(&old.inst[0], "a", &p1, 0, 0);
	inst_set(&old.inst[1], "b", &p1, 0, 1);
	inst_set(&old.inst[2], "c", &p1, 0, 2);
	nrt.n_inst = 4;
	inst_set(&nrt.inst[0], "a", &p1, 0, 0);    /* the same plugin */
	inst_set(&nrt.inst[1], "b", &p2, 0, 1);    /* a new build: req kept, err became bad */
	inst_set(&nrt.inst[2], "c", &p3, 0, 2);    /* another plugin, same names */
	inst_set(&nrt.inst[3], "d", &p1, 0, 3);    /* a new helper */
	memset(reset, 0xa5, sizeof(reset));
	reload_plan_counters_reset(&old, &nrt, reset);
	CHECK("reload/counters-same-plugin-carried", (reset[0] & 7u) == 0, "reset %#x", reset[0]);
	CHECK("reload/counters-same-name-same-index-only", (reset[1] & 7u) == 6u,
	      "reset %#x", reset[1]);
	CHECK("reload/counters-other-plugin-reset", (reset[2] & 7u) == 7u, "reset %#x", reset[2]);
	CHECK("reload/counters-new-helper-reset", reset[3] == UINT32_MAX, "reset %#x", reset[3]);
	CHECK("reload/counters-other-slots-untouched", reset[4] == 0 && reset[STATS_SLOTS - 1] == 0,
	      "reset %#x", reset[4]);
}

static void test_summary(void)
{
	static struct runtime old, nrt;
	struct strbuf b = { 0 };

	old.n_inst = 2;
	inst_set(&old.inst[0], "ftp", &pl_ftp1, 0, 0);
	inst_set(&old.inst[1], "tns", &pl_sip, 0, 1);
	nrt.n_inst = 2;
	nrt.n_queues = 2;
	inst_set(&nrt.inst[0], "ftp", &pl_ftp2, 1, 0);
	inst_set(&nrt.inst[1], "sip", &pl_sip, 0, 2);
	reload_plan_summary(&old, &nrt, &b);
	CHECK("reload/summary", b.p && strcmp(b.p, "2 helper(s) on 2 queue(s); ftp moved from "
		"queue 0 to 1; ftp plugin ftp 1.1, was ftp 1.0; added sip; removed tns") == 0,
	      "%s", b.p ? b.p : "(null)");
	strbuf_free(&b);
}

/* What runtime_build() makes of a config, without plugins: one instance
 * per (expanded) helper, its queue listed once. */
static bool rt_from_text(struct runtime *rt, const char *text)
{
	char path[CFGLOAD_PATH], err[2048];
	struct cfg *cfg;

	memset(rt, 0, sizeof(*rt));
	if (cfgload_text(text, strlen(text), path, &cfg, err, sizeof(err)) < 0) {
		CHECK("reload/shards-config", 0, "%s", err);
		return false;
	}
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		size_t q;

		inst_set(&rt->inst[rt->n_inst++], cfg->helpers[i].name, &pl_ftp1,
			 cfg->helpers[i].queue, (unsigned int)i);
		for (q = 0; q < rt->n_queues && rt->queues[q] != cfg->helpers[i].queue; q++)
			;
		if (q == rt->n_queues)
			rt->queues[rt->n_queues++] = cfg->helpers[i].queue;
	}
	rt->cfg = cfg;
	return true;
}

/* Changing shards adds or removes NAME.k like sections: the shards that
 * stay keep their counters, new ones get fresh slots, the summary names
 * each one. */
static void test_shards(void)
{
	static struct runtime a, b, c;
	unsigned int fresh[CFG_MAX_HELPERS];
	struct strbuf sum = { 0 };
	size_t n;

	if (!rt_from_text(&a, "[helper ftp]\nshards = 2\n[helper sip]\nqueue = 9\n") ||
	    !rt_from_text(&b, "[helper ftp]\nshards = 4\n[helper sip]\nqueue = 9\n") ||
	    !rt_from_text(&c, "[helper ftp]\n[helper sip]\nqueue = 9\n"))
		goto out;
	/* a: ftp ftp.1 sip in slots 0 1 2; b: ftp ftp.1 ftp.2 ftp.3 sip */
	n = reload_plan_slots_assign(&a, &b, fresh);
	CHECK("reload/shards-grow-slots", n == 2 && b.inst[0].slot == 0 && b.inst[1].slot == 1 &&
	      b.inst[4].slot == 2 && fresh[0] == b.inst[2].slot && fresh[1] == b.inst[3].slot &&
	      b.inst[2].slot > 2 && b.inst[3].slot > 2 && b.inst[2].slot != b.inst[3].slot,
	      "n %zu slots %u %u %u %u %u", n, b.inst[0].slot, b.inst[1].slot, b.inst[2].slot,
	      b.inst[3].slot, b.inst[4].slot);
	reload_plan_summary(&a, &b, &sum);
	CHECK("reload/shards-grow-summary", sum.p &&
	      strcmp(sum.p, "5 helper(s) on 5 queue(s); added ftp.2; added ftp.3") == 0,
	      "%s", sum.p ? sum.p : "(null)");
	strbuf_free(&sum);
	n = reload_plan_slots_assign(&b, &c, fresh);
	CHECK("reload/shards-shrink-slots", n == 0 && c.inst[0].slot == 0 && c.inst[1].slot == 2,
	      "n %zu slots %u %u", n, c.inst[0].slot, c.inst[1].slot);
	reload_plan_summary(&b, &c, &sum);
	CHECK("reload/shards-shrink-summary", sum.p &&
	      strcmp(sum.p, "2 helper(s) on 2 queue(s); removed ftp.1; removed ftp.2; removed ftp.3") == 0,
	      "%s", sum.p ? sum.p : "(null)");
	strbuf_free(&sum);
out:
	cfg_free(a.cfg);
	cfg_free(b.cfg);
	cfg_free(c.cfg);
}

static int file_copy(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;
	int rc = in >= 0 && out >= 0 ? 0 : -1;

	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		rc = write(out, buf, (size_t)n) == n ? 0 : -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc;
}

static unsigned int abi_of(void *dl)
{
	const struct cth_plugin_desc *d = dl ? dlsym(dl, CTH_PLUGIN_SYMBOL) : NULL;

	return d ? d->abi_version : 0;
}

/* What an install(1) or a package manager does: a new file renamed over
 * the old name (the old inode stays mapped where it is loaded). */
static void test_dlfresh(const char *bad)
{
	char dir[] = "/tmp/cth-test-dlfresh-XXXXXX", path[128], tmp[128], src[1100];
	void *h1, *h2, *h3, *raw;

	if (!mkdtemp(dir)) {
		CHECK("dlfresh/tmpdir", 0, "mkdtemp failed");
		return;
	}
	snprintf(path, sizeof(path), "%s/p.so", dir);
	snprintf(tmp, sizeof(tmp), "%s/p.so.new", dir);
	snprintf(src, sizeof(src), "%s/good.so", bad);
	CHECK("dlfresh/copy", file_copy(src, path) == 0, "%s", src);
	h1 = dlfresh_open(path);
	CHECK("dlfresh/loads", h1 && abi_of(h1) == CTH_ABI_VERSION, "%s", dlerror());

	snprintf(src, sizeof(src), "%s/bad_abi.so", bad);
	CHECK("dlfresh/replace", file_copy(src, tmp) == 0 && rename(tmp, path) == 0, "%s", src);
	raw = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK("dlfresh/glibc-returns-the-old-object-by-name", raw == h1,
	      "glibc loaded the new file: dlfresh is not needed any more");
	if (raw)
		dlclose(raw);
	h2 = dlfresh_open(path);
	CHECK("dlfresh/replaced-file-loaded", h2 && h2 != h1 && abi_of(h2) == 99,
	      "h2 %p h1 %p abi %u", h2, h1, abi_of(h2));
	h3 = dlfresh_open(path);
	CHECK("dlfresh/same-file-shared", h3 == h2, "h3 %p h2 %p", h3, h2);
	CHECK("dlfresh/old-still-mapped", abi_of(h1) == CTH_ABI_VERSION, "old object gone");
	if (h3)
		dlfresh_close(h3);
	if (h2)
		dlfresh_close(h2);
	if (h1)
		dlfresh_close(h1);
	/* every handle closed: a plain name load is fresh again */
	h1 = dlfresh_open(path);
	CHECK("dlfresh/after-close", h1 && abi_of(h1) == 99, "abi %u", abi_of(h1));
	if (h1)
		dlfresh_close(h1);
	CHECK("dlfresh/missing-file", !dlfresh_open("/nonexistent/x.so"), "loaded");
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const char *b = getenv("CTH_BUILD");
	char cwd[512], bad[1024];

	if (!b)
		b = "build";
	if (!getcwd(cwd, sizeof(cwd)))
		return 1;
	snprintf(bad, sizeof(bad), "%s/%s/tests/bad", cwd, b);
	test_server_keys();
	test_slots();
	test_summary();
	test_counters_carried();
	test_shards();
	test_dlfresh(bad);
	return check_exit();
}
