// SPDX-License-Identifier: MIT
/*
 * The whole configuration path (issue 27): the input is two config
 * files, old and new, split at the first "\n%%\n" (no split: the same
 * text twice).  Each is parsed (cfg_load_fp: keys, shards expansion,
 * checks); when both parse, the reload's plan runs on them: the [server]
 * keys a reload may not change, counter slots and the summary, with
 * runtimes made from the parsed helpers as runtime_build() would name
 * them (no plugin is loaded: a plugin's name is the config's).
 * Checks: what parses holds at most CFG_MAX_HELPERS helpers, each with
 * shards/queue consistent; slots stay inside the table.
 */
#include "fuzz_common.h"
#include "runtime/config_load.h"
#include "daemon/reload_plan.h"
#include "runtime/stats.h"
#include "base/strbuf.h"

static struct plugin fz_plugins[CFG_MAX_HELPERS];

/* config errors go to the capture, not stderr (what a reload does) */
static void fz_capture(void *arg, int level, const char *line)
{
	(void)arg;
	(void)level;
	(void)line;
}

static struct cfg *fz_parse(const uint8_t *data, size_t size)
{
	FILE *fp = fmemopen((void *)data, size, "r");
	struct cfg *cfg = NULL;

	if (!fp)
		return NULL;
	if (size == 0 || cfg_load_fp("fuzz.conf", fp, &cfg) < 0)
		cfg = NULL;
	fclose(fp);
	return cfg;
}

static void fz_check(const struct cfg *cfg)
{
	FZ_CHECK(cfg->n_helpers <= CFG_MAX_HELPERS);
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		const struct cfg_helper *h = &cfg->helpers[i];

		FZ_ASSERT(h->shard < h->shards && h->shards <= CFG_MAX_SHARDS && h->name[0] &&
			  strnlen(h->name, CTH_NAME_LEN) < CTH_NAME_LEN &&
			  h->n_opts <= CFG_MAX_OPTS && h->guard.n_nets <= GUARD_MAX_NETS,
			  "helper %zu: shard %u of %u, %zu options, %u nets", i, h->shard,
			  h->shards, h->n_opts, h->guard.n_nets);
	}
}

static void fz_runtime(const struct cfg *cfg, struct runtime *rt, unsigned int first_slot)
{
	memset(rt, 0, sizeof(*rt));
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		struct instance *in = &rt->inst[rt->n_inst++];
		struct plugin *pl = &fz_plugins[i];

		snprintf(pl->name, sizeof(pl->name), "%s", cfg->helpers[i].plugin ? cfg->helpers[i].plugin : "");
		snprintf(pl->version, sizeof(pl->version), "0");
		in->pl = pl;
		snprintf(in->name, sizeof(in->name), "%s", cfg->helpers[i].name);
		in->queue = cfg->helpers[i].queue;
		in->slot = (first_slot + (unsigned int)i) % STATS_SLOTS;
		in->guard = cfg->helpers[i].guard;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct runtime old_rt, new_rt;
	const uint8_t *sep = memmem(data, size, "\n%%\n", 4);
	size_t n1 = sep ? (size_t)(sep - data) + 1 : size;
	const uint8_t *d2 = sep ? sep + 4 : data;
	size_t n2 = sep ? size - (size_t)(d2 - data) : size;
	struct cfg *old, *nc;

	log_level_set(-1);
	log_capture_set(fz_capture, NULL);
	old = fz_parse(data, n1);
	nc = fz_parse(d2, n2);
	if (old)
		fz_check(old);
	if (nc)
		fz_check(nc);
	if (old && nc) {
		unsigned int fresh[CFG_MAX_HELPERS];
		char msg[512];
		struct strbuf b = { 0 };
		size_t n;

		reload_plan_server_check(old, nc, msg, sizeof(msg));
		fz_runtime(old, &old_rt, 0);
		fz_runtime(nc, &new_rt, 0);
		n = reload_plan_slots_assign(&old_rt, &new_rt, fresh);
		FZ_CHECK(n <= CFG_MAX_HELPERS);
		for (size_t i = 0; i < new_rt.n_inst; i++)
			FZ_CHECK(new_rt.inst[i].slot < STATS_SLOTS);
		reload_plan_summary(&old_rt, &new_rt, &b);
		strbuf_free(&b);
	}
	cfg_free(old);
	cfg_free(nc);
	return 0;
}
