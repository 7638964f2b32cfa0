/* SPDX-License-Identifier: MIT */
/*
 * A helper instance's configuration block from "key=value" settings, as
 * a [helper] section gives it: the settings become such a section and
 * the daemon's own keys_apply() (server/runtime/keys.c) configures the
 * instance from it, so that a test and the daemon take and refuse a
 * value alike, in the same words.  Then the plugin's check().
 *
 * keys_apply() reports through cfg_error(), which logs while a capture
 * is set (base/log.h): the first line caught is the error handed back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugtest_keys.h"
#include "base/log.h"
#include "runtime/config_helper.h"
#include "runtime/keys.h"

/* cfg_error() prefixes "FILE:LINE: ", FILE this */
#define PLUGTEST_KEYS_FILE "settings"

struct plugtest_keys_err {
	char *err;
	size_t errlen;
	bool caught;
};

static int plugtest_keys_section(struct cfg *cfg, const struct cth_plugin_desc *d,
				 const char *const *settings, char *err, size_t errlen);
static int plugtest_keys_opt(struct cfg_opt *o, const char *setting, char *err,
			     size_t errlen);
static void plugtest_keys_catch(void *arg, int level, const char *line);

int plugtest_keys_apply(const struct cth_plugin_desc *d, void *config,
			const char *const *settings, char *err, size_t errlen)
{
	struct plugtest_keys_err caught = { .err = err, .errlen = errlen };
	struct cfg *cfg = calloc(1, sizeof(*cfg));
	char why[256] = "";
	int rc;

	if (!cfg || !(cfg->file = strdup(PLUGTEST_KEYS_FILE))) {
		free(cfg);
		return snprintf(err, errlen, "out of memory"), -ENOMEM;
	}
	rc = plugtest_keys_section(cfg, d, settings, err, errlen);
	if (rc == 0) {
		log_capture_set(plugtest_keys_catch, &caught);
		rc = keys_apply(cfg, &cfg->helpers[0], d, config);
		log_capture_set(NULL, NULL);
		if (rc < 0 && !caught.caught)
			snprintf(err, errlen, "the settings are refused: %s", strerror(-rc));
	}
	cfg_free(cfg);
	if (rc < 0)
		return rc;
	/* as the daemon's runtime_inst_start() (server/runtime/runtime.c) */
	if (d->check && (rc = d->check(config, why, sizeof(why))) != 0) {
		why[sizeof(why) - 1] = '\0';
		return snprintf(err, errlen, "plugin '%s' refuses the configuration: %s",
				d->name, why[0] ? why : strerror(rc < 0 ? -rc : EINVAL)), -EINVAL;
	}
	return 0;
}

/* The settings as the section [helper NAME] that holds them: setting N
 * (from 1) is its line N, an error of the whole section's is at line 0
 * (they show so on standard error, where cfg_error() logs them too). */
static int plugtest_keys_section(struct cfg *cfg, const struct cth_plugin_desc *d,
				 const char *const *settings, char *err, size_t errlen)
{
	struct cfg_helper *h = &cfg->helpers[0];
	int rc;

	cfg->n_helpers = 1;
	snprintf(h->name, sizeof(h->name), "%s", d->name);
	h->line = 0;
	for (size_t i = 0; settings && settings[i]; i++) {
		if (h->n_opts == CFG_MAX_OPTS)
			return snprintf(err, errlen, "more than %u settings: a [helper] section "
					"holds at most %u plugin keys", CFG_MAX_OPTS,
					CFG_MAX_OPTS), -E2BIG;
		/* counted first: cfg_free() frees what it holds, refused or not */
		h->opts[h->n_opts].line = (int)i + 1;
		rc = plugtest_keys_opt(&h->opts[h->n_opts++], settings[i], err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int plugtest_keys_opt(struct cfg_opt *o, const char *setting, char *err,
			     size_t errlen)
{
	const char *eq = strchr(setting, '=');

	if (!eq || eq == setting)
		return snprintf(err, errlen, "'%s': not key=value", setting), -EINVAL;
	o->key = strndup(setting, (size_t)(eq - setting));
	o->value = strdup(eq + 1);
	if (!o->key || !o->value)
		return snprintf(err, errlen, "out of memory"), -ENOMEM;
	/* the daemon reads these itself (config_helper.c): no plugin sees them */
	if (cfg_key_find(cfg_helper_keys, o->key))
		return snprintf(err, errlen, "'%s' is a key of the daemon's [helper] section, "
				"not the plugin's: the harness does not set it", o->key), -EINVAL;
	return 0;
}

/* The first error keys_apply() reports, without its "FILE:LINE: ". */
static void plugtest_keys_catch(void *arg, int level, const char *line)
{
	struct plugtest_keys_err *c = arg;
	const char *msg = line;

	(void)level;
	if (c->caught)
		return;
	c->caught = true;
	if (strncmp(msg, PLUGTEST_KEYS_FILE ":", sizeof(PLUGTEST_KEYS_FILE)) == 0) {
		msg += sizeof(PLUGTEST_KEYS_FILE);
		msg += strspn(msg, "0123456789");
		if (msg[0] == ':' && msg[1] == ' ')
			msg += 2;
	}
	snprintf(c->err, c->errlen, "%s", msg);
}
