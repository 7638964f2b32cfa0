/* SPDX-License-Identifier: MIT */
/*
 * Declared configuration keys (keys.h).  One parser per type serves the
 * config file's values and the declared defaults alike, so a default the
 * loader accepted is one a section could have written.  Values are
 * stored with memcpy(): the offset is the plugin's, its alignment too.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_helper.h"
#include "keys.h"
#include "loader.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

static int keys_decl_one(const struct cth_plugin_desc *d, uint32_t fns,
			 const struct cth_key *k, unsigned int i, char *err, size_t errlen);
static int keys_decl_size(uint32_t fns, const struct cth_key *k,
			  size_t *size, char *err, size_t errlen);
static int keys_choices_check(const struct cth_key *k, char *err, size_t errlen);
static bool keys_choice_ok(const char *s);
static int keys_def_check(const struct cth_plugin_desc *d, const struct cth_key *k,
			  char *err, size_t errlen);
static unsigned int keys_ports_max(const struct cth_key *k);
static int keys_string_parse(const struct cth_key *k, const char *v, uint8_t *at);
static int keys_default_apply(const struct cfg *cfg, const struct cfg_helper *h,
			      const struct cth_plugin_desc *d, const struct cth_key *k,
			      void *config, struct keys_defer *defer);
static int keys_opt_apply(const struct cfg *cfg, const struct cfg_helper *h,
			  const struct cth_plugin_desc *d, const struct cfg_opt *o,
			  void *config, struct keys_defer *defer);
static int keys_call_do(const struct cfg *cfg, const struct cfg_helper *h,
			const struct cth_plugin_desc *d, void *config,
			const struct keys_call *c, struct keys_defer *defer);
static void keys_list(const struct cth_plugin_desc *d, char *buf, size_t len);

bool keys_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < CTH_KEY_NAME_LEN &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* The key flags, each allowed on one type and on at most one key. */
static const struct keys_flag {
	unsigned int bit;
	unsigned int type;
	const char *name;
} keys_flags[] = {
	{ .bit = CTH_KEY_RULE_PORTS, .type = CTH_KEY_PORTS, .name = "CTH_KEY_RULE_PORTS" },
	{ .bit = CTH_KEY_RULE_OUTPUT, .type = CTH_KEY_BOOL, .name = "CTH_KEY_RULE_OUTPUT" },
	{ .bit = CTH_KEY_RULE_PREROUTING, .type = CTH_KEY_BOOL,
	  .name = "CTH_KEY_RULE_PREROUTING" },
};
#define KEYS_N_FLAGS (sizeof(keys_flags) / sizeof(keys_flags[0]))
#define KEYS_FLAGS_ALL (CTH_KEY_RULE_PORTS | CTH_KEY_RULE_OUTPUT | CTH_KEY_RULE_PREROUTING)

int keys_decl_check(const struct cth_plugin_desc *d, char *err, size_t errlen)
{
	return keys_decl_check_fns(d, d->configure ? PLUGIN_FN_CONFIGURE : 0u, err, errlen);
}

int keys_decl_check_fns(const struct cth_plugin_desc *d, uint32_t fns, char *err,
			size_t errlen)
{
	unsigned int flagged[KEYS_N_FLAGS] = { 0 };
	int rc;

	if (d->n_keys > CTH_KEY_MAX)
		return ERR("plugin declares %u configuration keys; at most %u", d->n_keys,
			   CTH_KEY_MAX);
	if (d->n_keys && !d->keys)
		return ERR("plugin declares %u configuration keys but no key table (keys is NULL)",
			   d->n_keys);
	for (unsigned int i = 0; i < d->n_keys; i++) {
		const struct cth_key *k = &d->keys[i];

		if ((rc = keys_decl_one(d, fns, k, i, err, errlen)))
			return rc;
		for (unsigned int j = 0; j < i; j++)
			if (strcmp(k->name, d->keys[j].name) == 0)
				return ERR("key '%s' declared twice", k->name);
		for (unsigned int f = 0; f < KEYS_N_FLAGS; f++)
			flagged[f] += (k->flags & keys_flags[f].bit) != 0;
	}
	for (unsigned int f = 0; f < KEYS_N_FLAGS; f++)
		if (flagged[f] > 1)
			return ERR("%u keys have %s; at most one may", flagged[f],
				   keys_flags[f].name);
	return 0;
}

const struct cth_key *keys_find(const struct cth_plugin_desc *d, const char *name)
{
	for (unsigned int i = 0; i < d->n_keys; i++)
		if (strcmp(d->keys[i].name, name) == 0)
			return &d->keys[i];
	return NULL;
}

int keys_parse(const struct cth_key *k, const char *v, void *config)
{
	uint8_t *at = (uint8_t *)config + k->offset;

	switch (k->type) {
	case CTH_KEY_BOOL: {
		bool b;

		if (cfg_bool_parse(v, &b))
			return -EINVAL;
		memcpy(at, &b, sizeof(b));
		return 0;
	}
	case CTH_KEY_UINT: {
		uint32_t n;

		if (cfg_u32_parse(v, k->min, k->max, &n))
			return -EINVAL;
		memcpy(at, &n, sizeof(n));
		return 0;
	}
	case CTH_KEY_PORTS: {
		struct cth_ports p = { 0 };
		size_t n;

		if (cfg_ports_parse(v, p.port, keys_ports_max(k), &n))
			return -EINVAL;
		p.n = (uint16_t)n;
		memcpy(at, &p, sizeof(p));
		return 0;
	}
	case CTH_KEY_CHOICE:
		for (unsigned int i = 0; k->choices[i]; i++)
			if (strcasecmp(v, k->choices[i]) == 0) {
				memcpy(at, &i, sizeof(i));
				return 0;
			}
		return -EINVAL;
	case CTH_KEY_STRING:
		return keys_string_parse(k, v, at);
	case CTH_KEY_CUSTOM:
		return -EOPNOTSUPP;
	}
	return -EINVAL;
}

void keys_describe(const struct cth_key *k, char *buf, size_t len)
{
	size_t o;

	switch (k->type) {
	case CTH_KEY_BOOL:
		snprintf(buf, len, "yes or no (also true/false, on/off, 1/0)");
		return;
	case CTH_KEY_UINT:
		snprintf(buf, len, "a number in %u..%u", k->min, k->max);
		return;
	case CTH_KEY_PORTS:
		snprintf(buf, len, "a port list of 1..%u ports 1..65535", keys_ports_max(k));
		return;
	case CTH_KEY_CHOICE:
		o = (size_t)snprintf(buf, len, "one of");
		for (unsigned int i = 0; k->choices[i] && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s %s", i ? "," : "",
					      k->choices[i]);
		return;
	case CTH_KEY_STRING:
		snprintf(buf, len, "text of at most %u bytes, no control characters", k->max);
		return;
	default:
		snprintf(buf, len, "the plugin refused it");
	}
}

const char *keys_type_name(const struct cth_key *k)
{
	static const char *const names[] = {
		[CTH_KEY_BOOL] = "bool", [CTH_KEY_UINT] = "uint", [CTH_KEY_PORTS] = "ports",
		[CTH_KEY_CHOICE] = "choice", [CTH_KEY_STRING] = "string",
		[CTH_KEY_CUSTOM] = "custom",
	};

	return k->type < sizeof(names) / sizeof(names[0]) && names[k->type] ?
	       names[k->type] : "?";
}

void keys_format(const struct cth_key *k, const void *config, char *buf, size_t len)
{
	const uint8_t *at = (const uint8_t *)config + k->offset;
	struct cth_ports p;
	unsigned int idx;
	uint32_t n;
	bool b;
	size_t o = 0;

	buf[0] = '\0';
	switch (k->type) {
	case CTH_KEY_BOOL:
		memcpy(&b, at, sizeof(b));
		snprintf(buf, len, "%s", b ? "yes" : "no");
		break;
	case CTH_KEY_UINT:
		memcpy(&n, at, sizeof(n));
		snprintf(buf, len, "%u", n);
		break;
	case CTH_KEY_PORTS:
		memcpy(&p, at, sizeof(p));
		for (unsigned int i = 0; i < p.n && i < CTH_PORTS_MAX && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? "," : "", p.port[i]);
		break;
	case CTH_KEY_CHOICE:
		memcpy(&idx, at, sizeof(idx));
		for (unsigned int i = 0; k->choices[i]; i++)
			if (i == idx)
				snprintf(buf, len, "%s", k->choices[i]);
		break;
	case CTH_KEY_STRING:
		snprintf(buf, len, "%.*s", (int)k->max, (const char *)at);
		break;
	}
}

size_t keys_rule_ports(const struct cth_plugin_desc *d, const void *config,
		       uint16_t *ports, size_t max)
{
	struct cth_ports p;
	size_t n = 0;

	for (unsigned int i = 0; i < d->n_keys; i++) {
		const struct cth_key *k = &d->keys[i];

		if (!(k->flags & CTH_KEY_RULE_PORTS))
			continue;
		memcpy(&p, (const uint8_t *)config + k->offset, sizeof(p));
		for (; n < p.n && n < CTH_PORTS_MAX && n < max; n++)
			ports[n] = p.port[n];
		break;
	}
	return n;
}

bool keys_rule_hook(const struct cth_plugin_desc *d, const void *config,
		    unsigned int flag, bool def)
{
	for (unsigned int i = 0; i < d->n_keys; i++) {
		const struct cth_key *k = &d->keys[i];
		bool on;

		if (!(k->flags & flag) || k->type != CTH_KEY_BOOL)
			continue;
		memcpy(&on, (const uint8_t *)config + k->offset, sizeof(on));
		return on;
	}
	return def;
}

int keys_apply(const struct cfg *cfg, const struct cfg_helper *h,
	       const struct cth_plugin_desc *d, void *config)
{
	return keys_apply_defer(cfg, h, d, config, NULL);
}

int keys_apply_defer(const struct cfg *cfg, const struct cfg_helper *h,
		     const struct cth_plugin_desc *d, void *config,
		     struct keys_defer *defer)
{
	int bad = 0;

	/* no declared keys: the plugin's configure() is asked about each
	 * (its messages are the ones of cthelperd before SDK 3) */
	if (!d->n_keys) {
		for (size_t i = 0; i < h->n_opts; i++) {
			const struct cfg_opt *o = &h->opts[i];
			struct keys_call c = { .kind = KEYS_CALL_LEGACY, .line = o->line,
					       .key = o->key, .value = o->value };

			bad |= keys_call_do(cfg, h, d, config, &c, defer);
		}
		return bad ? -EINVAL : 0;
	}
	for (unsigned int i = 0; i < d->n_keys; i++)
		bad |= keys_default_apply(cfg, h, d, &d->keys[i], config, defer);
	/* in file order: a key given twice ends with its last value */
	for (size_t i = 0; i < h->n_opts; i++)
		bad |= keys_opt_apply(cfg, h, d, &h->opts[i], config, defer);
	return bad ? -EINVAL : 0;
}

int keys_call_run(const struct cth_plugin_desc *d, const char *helper, void *config,
		  const struct keys_call *c, char *msg, size_t len)
{
	int rc = d->configure ? d->configure(config, c->key, c->value) : -ENOENT;

	/* a default is taken on 0 only, a key on any rc >= 0 (as ever) */
	if (rc == 0 || (rc > 0 && c->kind != KEYS_CALL_DEFAULT))
		return 0;
	switch (c->kind) {
	case KEYS_CALL_LEGACY:
		if (rc == -ENOENT)
			snprintf(msg, len, "unknown key '%s' (not a daemon key, and plugin "
				 "'%s' does not know it)", c->key, d->name);
		else
			snprintf(msg, len, "%s: invalid value '%s' for plugin '%s'", c->key,
				 c->value, d->name);
		break;
	case KEYS_CALL_DEFAULT:
		snprintf(msg, len, "helper '%s': plugin '%s' refused the default of its key "
			 "'%s' ('%s'): %s", helper, d->name, c->key, c->value, strerror(-rc));
		break;
	default:
		if (rc == -EINVAL)
			snprintf(msg, len, "%s: invalid value '%s' (plugin '%s' refused it)",
				 c->key, c->value, d->name);
		else
			snprintf(msg, len, "%s = %s: plugin '%s' failed: %s", c->key, c->value,
				 d->name, strerror(-rc));
	}
	return rc < 0 ? rc : -EINVAL;
}

/* ---- declarations ---- */

static int keys_decl_one(const struct cth_plugin_desc *d, uint32_t fns,
			 const struct cth_key *k, unsigned int i, char *err, size_t errlen)
{
	size_t size;
	int rc;

	if (!k->name || !keys_name_ok(k->name))
		return ERR("key %u: name '%s' must be 1..%u characters of a-z, 0-9 and _",
			   i, k->name ? k->name : "(null)", CTH_KEY_NAME_LEN - 1);
	/* the daemon's keys are read first (config_helper.c): the plugin's
	 * key would never be reached */
	if (cfg_key_find(cfg_helper_keys, k->name))
		return ERR("key '%s': a daemon key of [helper] sections has that name",
			   k->name);
	if (k->flags & ~(unsigned int)KEYS_FLAGS_ALL)
		return ERR("key '%s': unknown flags 0x%x", k->name,
			   k->flags & ~(unsigned int)KEYS_FLAGS_ALL);
	for (unsigned int f = 0; f < KEYS_N_FLAGS; f++)
		if ((k->flags & keys_flags[f].bit) && k->type != keys_flags[f].type)
			return ERR("key '%s': %s is for a CTH_KEY_%s key only", k->name,
				   keys_flags[f].name,
				   keys_flags[f].type == CTH_KEY_PORTS ? "PORTS" : "BOOL");
	if (k->def && strlen(k->def) > KEYS_DEF_MAX)
		return ERR("key '%s': default longer than %u bytes", k->name, KEYS_DEF_MAX);
	if ((rc = keys_decl_size(fns, k, &size, err, errlen)) || k->type == CTH_KEY_CUSTOM)
		return rc;
	if (k->offset > d->config_size || size > d->config_size - k->offset)
		return ERR("key '%s': its %zu bytes at offset %zu do not fit the "
			   "%zu-byte configuration block (config_size)", k->name, size,
			   k->offset, d->config_size);
	return keys_def_check(d, k, err, errlen);
}

/* The type's own rules, and how many bytes it stores. */
static int keys_decl_size(uint32_t fns, const struct cth_key *k,
			  size_t *size, char *err, size_t errlen)
{
	switch (k->type) {
	case CTH_KEY_BOOL:
		*size = sizeof(bool);
		return 0;
	case CTH_KEY_UINT:
		if (k->min > k->max)
			return ERR("key '%s': min %u is above max %u", k->name, k->min, k->max);
		*size = sizeof(uint32_t);
		return 0;
	case CTH_KEY_PORTS:
		if (k->max > CTH_PORTS_MAX)
			return ERR("key '%s': max %u ports; a port list holds at most %u",
				   k->name, k->max, CTH_PORTS_MAX);
		*size = sizeof(struct cth_ports);
		return 0;
	case CTH_KEY_CHOICE:
		*size = sizeof(unsigned int);
		return keys_choices_check(k, err, errlen);
	case CTH_KEY_STRING:
		if (k->max < 1 || k->max > KEYS_STRING_MAX)
			return ERR("key '%s': max %u bytes; a string key holds 1..%u",
				   k->name, k->max, KEYS_STRING_MAX);
		*size = (size_t)k->max + 1;
		return 0;
	case CTH_KEY_CUSTOM:
		if (!(fns & PLUGIN_FN_CONFIGURE))
			return ERR("key '%s': CTH_KEY_CUSTOM needs the plugin's configure()",
				   k->name);
		*size = 0;
		return 0;
	}
	return ERR("key '%s': unknown type %u", k->name, k->type);
}

static int keys_choices_check(const struct cth_key *k, char *err, size_t errlen)
{
	unsigned int n;

	if (!k->choices || !k->choices[0])
		return ERR("key '%s': CTH_KEY_CHOICE needs at least one choice", k->name);
	for (n = 0; k->choices[n]; n++) {
		if (n == KEYS_CHOICES_MAX)
			return ERR("key '%s': more than %u choices", k->name, KEYS_CHOICES_MAX);
		if (!keys_choice_ok(k->choices[n]))
			return ERR("key '%s': choice '%s' must be 1..%u characters of "
				   "A-Z, a-z, 0-9 and _.+-", k->name, k->choices[n],
				   CTH_KEY_NAME_LEN - 1);
		/* matched without regard to case */
		for (unsigned int j = 0; j < n; j++)
			if (strcasecmp(k->choices[n], k->choices[j]) == 0)
				return ERR("key '%s': choice '%s' given twice", k->name,
					   k->choices[n]);
	}
	return 0;
}

/* No blank or comma: "one of a, b" must read back unambiguously. */
static bool keys_choice_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < CTH_KEY_NAME_LEN &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.+-") == n;
}

static int keys_def_check(const struct cth_plugin_desc *d, const struct cth_key *k,
			  char *err, size_t errlen)
{
	char what[320];
	void *scratch;
	int rc;

	if (!k->def)
		return 0;
	scratch = calloc(1, d->config_size);
	if (!scratch)
		return snprintf(err, errlen, "out of memory"), -ENOMEM;
	rc = keys_parse(k, k->def, scratch);
	free(scratch);
	if (rc == 0)
		return 0;
	keys_describe(k, what, sizeof(what));
	return ERR("key '%s': default '%s' is not %s", k->name, k->def, what);
}

/* ---- values ---- */

static unsigned int keys_ports_max(const struct cth_key *k)
{
	return k->max ? k->max : CTH_PORTS_MAX;
}

static int keys_string_parse(const struct cth_key *k, const char *v, uint8_t *at)
{
	size_t n = strlen(v);

	if (n > k->max)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return -EINVAL;
	memset(at, 0, (size_t)k->max + 1);
	memcpy(at, v, n);
	return 0;
}

/* ---- a section into an instance ---- */

/* A declared default, at the section's line when it fails: only a
 * CTH_KEY_CUSTOM one can, the others were parsed when the plugin loaded. */
static int keys_default_apply(const struct cfg *cfg, const struct cfg_helper *h,
			      const struct cth_plugin_desc *d, const struct cth_key *k,
			      void *config, struct keys_defer *defer)
{
	struct keys_call c = { .kind = KEYS_CALL_DEFAULT, .line = h->line,
			       .key = k->name, .value = k->def };
	int rc;

	if (!k->def)
		return 0;
	if (k->type == CTH_KEY_CUSTOM)
		return keys_call_do(cfg, h, d, config, &c, defer);
	rc = keys_parse(k, k->def, config);
	if (rc == 0)
		return 0;
	cfg_error(cfg, h->line, "helper '%s': plugin '%s' refused the default of its key "
		  "'%s' ('%s'): %s", h->name, d->name, k->name, k->def, strerror(-rc));
	return 1;
}

static int keys_opt_apply(const struct cfg *cfg, const struct cfg_helper *h,
			  const struct cth_plugin_desc *d, const struct cfg_opt *o,
			  void *config, struct keys_defer *defer)
{
	const struct cth_key *k = keys_find(d, o->key);
	struct keys_call c = { .kind = KEYS_CALL_CUSTOM, .line = o->line,
			       .key = o->key, .value = o->value };
	char what[1100];

	if (!k) {
		keys_list(d, what, sizeof(what));
		cfg_error(cfg, o->line, "unknown key '%s' for plugin '%s' (its keys: %s)",
			  o->key, d->name, what);
		return 1;
	}
	if (k->type == CTH_KEY_CUSTOM)
		return keys_call_do(cfg, h, d, config, &c, defer);
	if (keys_parse(k, o->value, config) == 0)
		return 0;
	keys_describe(k, what, sizeof(what));
	cfg_error(cfg, o->line, "%s: invalid value '%s' (%s)", o->key, o->value, what);
	return 1;
}

/* One configure() call now, or appended to defer: 1 when it failed. */
static int keys_call_do(const struct cfg *cfg, const struct cfg_helper *h,
			const struct cth_plugin_desc *d, void *config,
			const struct keys_call *c, struct keys_defer *defer)
{
	char msg[1536];

	if (!defer) {
		if (keys_call_run(d, h->name, config, c, msg, sizeof(msg)) == 0)
			return 0;
		cfg_error(cfg, c->line, "%s", msg);
		return 1;
	}
	if (strlen(c->key) >= KEYS_DEFER_KEY_MAX || strlen(c->value) >= KEYS_DEFER_VALUE_MAX) {
		cfg_error(cfg, c->line, "helper '%s': %s: a sandboxed plugin's key is at most "
			  "%u bytes and its value %u", h->name, c->key, KEYS_DEFER_KEY_MAX - 1,
			  KEYS_DEFER_VALUE_MAX - 1);
		return 1;
	}
	if (defer->n >= KEYS_DEFER_MAX) {
		cfg_error(cfg, c->line, "helper '%s': more than %u keys for a sandboxed "
			  "plugin's configure()", h->name, KEYS_DEFER_MAX);
		return 1;
	}
	defer->call[defer->n++] = *c;
	return 0;
}

/* "a, b, c": the keys a section may set for d. */
static void keys_list(const struct cth_plugin_desc *d, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < d->n_keys && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", d->keys[i].name);
}
