/* SPDX-License-Identifier: MIT */
/*
 * A helper instance's configuration block from "key=value" settings, as
 * a [helper] section gives it (plugin.h, struct cth_key): an SDK 3
 * plugin's declared keys, their defaults first, CTH_KEY_CUSTOM keys
 * through configure(); an ABI 2 plugin's keys all through configure();
 * then the plugin's check().
 *
 * Stand-in until the daemon's own key parser (server/runtime, SDK 3) is
 * merged: this file then calls it instead, so that a test and the daemon
 * parse a value alike.  Its rules are the ones plugin.h states.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugtest_keys.h"

static const struct cth_key *plugtest_keys_find(const struct cth_plugin_desc *d,
						const char *name);
static int plugtest_keys_set(const struct cth_plugin_desc *d, void *config,
			     const struct cth_key *k, const char *key, const char *value,
			     char *err, size_t errlen);
static int plugtest_keys_value(const struct cth_key *k, void *at, const char *v);
static int plugtest_keys_uint(const char *v, uint32_t min, uint32_t max, uint32_t *out);
static int plugtest_keys_ports(const char *v, uint32_t max, struct cth_ports *out);

bool plugtest_keys_declared(const struct cth_plugin_desc *d)
{
	return d->abi_version >= 3 && d->size >= sizeof(struct cth_plugin_desc) &&
	       d->keys && d->n_keys;
}

int plugtest_keys_apply(const struct cth_plugin_desc *d, void *config,
			const char *const *settings, char *err, size_t errlen)
{
	char key[CTH_KEY_NAME_LEN];
	int rc;

	if (plugtest_keys_declared(d)) {
		if (d->n_keys > CTH_KEY_MAX)
			return snprintf(err, errlen, "%u keys declared, at most %u",
					d->n_keys, CTH_KEY_MAX), -EINVAL;
		for (unsigned int i = 0; i < d->n_keys; i++) {
			const struct cth_key *k = &d->keys[i];

			if (k->def && (rc = plugtest_keys_set(d, config, k, k->name, k->def,
							      err, errlen)) < 0)
				return rc;
		}
	}
	for (size_t i = 0; settings && settings[i]; i++) {
		const char *eq = strchr(settings[i], '=');

		if (!eq || eq == settings[i] || (size_t)(eq - settings[i]) >= sizeof(key))
			return snprintf(err, errlen, "'%s': not key=value", settings[i]), -EINVAL;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - settings[i]), settings[i]);
		rc = plugtest_keys_set(d, config, plugtest_keys_find(d, key), key, eq + 1, err,
				       errlen);
		if (rc < 0)
			return rc;
	}
	if (d->abi_version >= 3 && d->size >= sizeof(struct cth_plugin_desc) && d->check) {
		char why[256] = "";

		if (d->check(config, why, sizeof(why)) < 0)
			return snprintf(err, errlen, "the plugin's check refuses the configuration: %s",
					why[0] ? why : "(no reason given)"), -EINVAL;
	}
	return 0;
}

static const struct cth_key *plugtest_keys_find(const struct cth_plugin_desc *d,
						const char *name)
{
	if (!plugtest_keys_declared(d))
		return NULL;
	for (unsigned int i = 0; i < d->n_keys; i++)
		if (d->keys[i].name && strcmp(d->keys[i].name, name) == 0)
			return &d->keys[i];
	return NULL;
}

/* One key: a declared one by its type, a custom or undeclared one (ABI 2)
 * through configure(). */
static int plugtest_keys_set(const struct cth_plugin_desc *d, void *config,
			     const struct cth_key *k, const char *key, const char *value,
			     char *err, size_t errlen)
{
	int rc;

	if (!k && plugtest_keys_declared(d))
		return snprintf(err, errlen, "unknown key '%s'", key), -ENOENT;
	if (!k || k->type == CTH_KEY_CUSTOM) {
		rc = d->configure ? d->configure(config, key, value) : -ENOENT;
		if (rc == -ENOENT)
			return snprintf(err, errlen, "unknown key '%s'", key), rc;
		if (rc < 0)
			return snprintf(err, errlen, "%s = %s: refused by the plugin (%d)", key,
					value, rc), rc;
		return 0;
	}
	if (k->offset >= d->config_size)
		return snprintf(err, errlen, "key '%s' is stored past the configuration block",
				key), -EINVAL;
	rc = plugtest_keys_value(k, (char *)config + k->offset, value);
	if (rc < 0)
		return snprintf(err, errlen, "%s = %s: not a valid value (type %u)", key, value,
				k->type), rc;
	return 0;
}

static int plugtest_keys_value(const struct cth_key *k, void *at, const char *v)
{
	uint32_t n;
	int rc;

	switch (k->type) {
	case CTH_KEY_BOOL:
		if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on") ||
		    !strcmp(v, "1"))
			*(bool *)at = true;
		else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") ||
			 !strcasecmp(v, "off") || !strcmp(v, "0"))
			*(bool *)at = false;
		else
			return -EINVAL;
		return 0;
	case CTH_KEY_UINT:
		rc = plugtest_keys_uint(v, k->min, k->max, &n);
		if (rc == 0)
			memcpy(at, &n, sizeof(n));
		return rc;
	case CTH_KEY_PORTS:
		return plugtest_keys_ports(v, k->max, at);
	case CTH_KEY_CHOICE:
		for (unsigned int i = 0; k->choices && k->choices[i]; i++)
			if (strcmp(k->choices[i], v) == 0) {
				*(unsigned int *)at = i;
				return 0;
			}
		return -EINVAL;
	case CTH_KEY_STRING:
		if (strlen(v) > k->max)
			return -EINVAL;
		for (const char *p = v; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return -EINVAL;
		memcpy(at, v, strlen(v) + 1);
		return 0;
	default:
		return -EINVAL;
	}
}

static int plugtest_keys_uint(const char *v, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long n = 0;

	if (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 10)
		return -EINVAL;
	n = strtoull(v, NULL, 10);
	if (n < min || n > max)
		return -ERANGE;
	*out = (uint32_t)n;
	return 0;
}

/* "P[,P...]": commas or blanks between ports 1..65535, at most max
 * (0: CTH_PORTS_MAX). */
static int plugtest_keys_ports(const char *v, uint32_t max, struct cth_ports *out)
{
	struct cth_ports p = { .n = 0 };
	uint32_t n;
	char word[8];

	if (!max || max > CTH_PORTS_MAX)
		max = CTH_PORTS_MAX;
	while (*v) {
		size_t len = strcspn(v, ", \t");

		if (len) {
			if (len >= sizeof(word) || p.n == max)
				return -EINVAL;
			snprintf(word, sizeof(word), "%.*s", (int)len, v);
			if (plugtest_keys_uint(word, 1, 65535, &n) < 0)
				return -EINVAL;
			p.port[p.n++] = (uint16_t)n;
		}
		v += len;
		v += strspn(v, ", \t");
	}
	if (!p.n)
		return -EINVAL;
	memcpy(out, &p, sizeof(p));
	return 0;
}
