/* SPDX-License-Identifier: MIT */
/*
 * cthelperd.conf parsing with inih: the file, its sections, and the
 * checks of the whole once it is read.  inih does not report line
 * numbers to the handler, so lines are counted in our own reader
 * callback: inih reads exactly one line per call, which makes the count
 * exact.  Each key goes to its section's table (config_server.c,
 * config_helper.c); shards become entries at the end (config_shards.c).
 */
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config_helper.h"
#include "config_load.h"
#include "config_server.h"
#include "config_shards.h"

static char *cfg_load_reader(char *str, int num, void *stream);
static void cfg_load_section(struct cfg_parse *p, const char *section);
static int cfg_load_handler(void *user, const char *section, const char *k,
			    const char *v);
static void cfg_load_check(struct cfg *cfg);

int cfg_load(const char *file, struct cfg **out)
{
	FILE *fp = fopen(file, "r");
	int rc;

	if (!fp) {
		rc = -errno;
		if (log_capturing())
			log_err("%s: %s", file, strerror(-rc));
		else
			fprintf(stderr, "%s: %s\n", file, strerror(-rc));
		return rc;
	}
	rc = cfg_load_fp(file, fp, out);
	fclose(fp);
	return rc;
}

int cfg_load_fp(const char *name, FILE *fp, struct cfg **out)
{
	struct cfg_parse p = { 0 };
	struct cfg *cfg;
	int rc;

	cfg = calloc(1, sizeof(*cfg));
	if (!cfg || cfg_str_set(&cfg->file, name) ||
	    cfg_str_set(&cfg->plugin_dir, CTH_PLUGIN_DIR) ||
	    cfg_str_set(&cfg->share_dir, CFG_SHARE_DIR_DEFAULT) ||
	    cfg_str_set(&cfg->runtime_dir, CFG_RUNTIME_DIR_DEFAULT)) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	cfg->log_level = LOG_L_INFO;
	cfg->inflight_entries = CFG_INFLIGHT_ENTRIES;
	cfg->control_mode = 0600;
	cfg->control_gid = -1;
	cfg->uid = cfg->gid = -1;
	cfg->sandbox_uid = cfg->sandbox_gid = -1;
	p.cfg = cfg;
	p.fp = fp;
	rc = ini_parse_stream(cfg_load_reader, &p, cfg_load_handler, &p);
	if (rc == -2) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	if (rc > 0 && cfg->n_errors == 0)
		cfg_error(cfg, rc, "syntax error (expected [section] or key = value)");
	cfg_load_check(cfg);
	cfg_shards_check(cfg);
	/* [server] may come after the helpers */
	for (size_t i = 0; i < cfg->n_helpers; i++)
		cfg->helpers[i].sandbox.inflight_entries = cfg->inflight_entries;
	if (cfg->n_errors) {
		cfg_free(cfg);
		return -EINVAL;
	}
	if (cfg_shards_expand(cfg)) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	*out = cfg;
	return 0;
}

/*
 * Section headers are noticed here rather than in the handler: inih only
 * reports a section together with its first key, so an empty [helper X]
 * would vanish and its errors would carry the wrong line.
 */
static char *cfg_load_reader(char *str, int num, void *stream)
{
	struct cfg_parse *p = stream;
	char *s, *end;

	p->line++;
	if (!fgets(str, num, p->fp))
		return NULL;
	s = str + strspn(str, " \t");
	if (*s == '[' && (end = strchr(s, ']')) != NULL) {
		char name[128];
		size_t n = (size_t)(end - s - 1);

		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, s + 1, n);
		name[n] = '\0';
		cfg_load_section(p, name);
	}
	return str;
}

static void cfg_load_section(struct cfg_parse *p, const char *section)
{
	struct cfg *cfg = p->cfg;
	const char *name;

	p->cur = NULL;
	p->in_server = false;
	p->bad_section = false;
	if (strcmp(section, "server") == 0) {
		p->in_server = true;
		return;
	}
	if (strncmp(section, "helper ", 7) != 0) {
		cfg_error(cfg, p->line, "unknown section [%s]: expected [server] or [helper NAME]", section);
		p->bad_section = true;
		return;
	}
	name = section + 7;
	while (*name == ' ')
		name++;
	if (!cfg_name_ok(name, CTH_NAME_LEN)) {
		cfg_error(cfg, p->line, "helper name '%s': 1..%u characters of [A-Za-z0-9_-] (kernel limit)", name, CTH_NAME_LEN - 1);
		p->bad_section = true;
		return;
	}
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		if (strcmp(cfg->helpers[i].name, name) == 0) {
			cfg_error(cfg, p->line, "helper '%s' already defined at line %d", name, cfg->helpers[i].line);
			p->bad_section = true;
			return;
		}
	}
	if (cfg->n_helpers == CFG_MAX_HELPERS) {
		cfg_error(cfg, p->line, "too many helpers (max %d)", CFG_MAX_HELPERS);
		p->bad_section = true;
		return;
	}
	p->cur = &cfg->helpers[cfg->n_helpers++];
	memcpy(p->cur->name, name, strlen(name) + 1);  /* length checked by cfg_name_ok() */
	p->cur->line = p->line;
	p->cur->queue_len = CFG_DEFAULT_QUEUE_LEN;
	p->cur->shards = 1;
	p->cur->guard = GUARD_DEFAULT;
	p->cur->sandbox = (struct cfg_sandbox){ .on = true, .timeout_ms = CFG_SANDBOX_TIMEOUT_MS,
						.memory_mb = CFG_SANDBOX_MEMORY_MB };
}

static int cfg_load_handler(void *user, const char *section, const char *k,
			    const char *v)
{
	struct cfg_parse *p = user;

	(void)section;               /* tracked by cfg_load_reader() */
	if (!k)
		return 1;
	if (p->bad_section)
		return 1;
	if (!p->in_server && !p->cur) {
		cfg_error(p->cfg, p->line, "key '%s' outside of a section", k);
		return 1;
	}
	if (!*v) {
		cfg_error(p->cfg, p->line, "key '%s' has no value", k);
		return 1;
	}
	if ((p->in_server ? cfg_server_key(p, k, v) : cfg_helper_key(p, k, v)) < 0)
		return 0;
	return 1;
}

/* What the whole file must have, once it is read. */
static void cfg_load_check(struct cfg *cfg)
{
	if (cfg->n_helpers == 0)
		cfg_error(cfg, 1, "no [helper NAME] section: nothing to do");
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		struct cfg_helper *h = &cfg->helpers[i];

		if (!h->plugin && cfg_str_set(&h->plugin, h->name) == 0 &&
		    !cfg_name_ok(h->plugin, 64))
			cfg_error(cfg, h->line, "helper '%s': no 'plugin' key", h->name);
	}
}
