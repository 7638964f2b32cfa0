/* SPDX-License-Identifier: MIT */
/*
 * cthelperd.conf parsing with inih.  inih does not report line numbers to
 * the handler, so lines are counted in our own reader callback: inih reads
 * exactly one line per call, which makes the count exact.
 */
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "loader.h"
#include "log.h"

struct cfg_parse {
	struct cfg *cfg;
	FILE *fp;
	int line;
	struct cfg_helper *cur;   /* current [helper X] section or NULL */
	bool in_server;
	bool bad_section;         /* unknown section: errors reported once */
};

void cfg_error(const struct cfg *cfg, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", cfg->file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	((struct cfg *)cfg)->n_errors++;
}

/*
 * Section headers are noticed here rather than in the handler: inih only
 * reports a section together with its first key, so an empty [helper X]
 * would vanish and its errors would carry the wrong line.
 */
static void cfg_section_start(struct cfg_parse *p, const char *section);

static char *cfg_reader(char *str, int num, void *stream)
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
		cfg_section_start(p, name);
	}
	return str;
}

static int cfg_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(v, no[i]) == 0)
			return *out = false, 0;
	}
	return -EINVAL;
}

static int cfg_parse_u32(const char *v, uint32_t min, uint32_t max,
			 uint32_t *out)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return -ERANGE;
	*out = (uint32_t)n;
	return 0;
}

/* A name for the kernel or a file: [A-Za-z0-9_-], 1..maxlen-1 bytes. */
static bool cfg_name_ok(const char *s, size_t maxlen)
{
	size_t n = strlen(s);

	if (n == 0 || n >= maxlen)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-") == n;
}

static int cfg_set_str(char **dst, const char *v)
{
	char *s = strdup(v);

	if (!s)
		return -ENOMEM;
	free(*dst);
	*dst = s;
	return 0;
}

/* A relative plugin_dir is relative to the config file's directory, so a
 * config works whatever the daemon's working directory is. */
static int cfg_set_plugin_dir(struct cfg *cfg, const char *v)
{
	const char *slash = strrchr(cfg->file, '/');
	char *dir;

	if (v[0] == '/' || !slash)
		return cfg_set_str(&cfg->plugin_dir, v) ? -ENOMEM : 0;
	if (asprintf(&dir, "%.*s/%s", (int)(slash - cfg->file), cfg->file, v) < 0)
		return -ENOMEM;
	free(cfg->plugin_dir);
	cfg->plugin_dir = dir;
	return 0;
}

const struct cfg_bits cfg_families = {
	.key = "family",
	.names = { [CTH_FAMILY_IPV4] = "ipv4", [CTH_FAMILY_IPV6] = "ipv6",
		   [CTH_FAMILY_IPV4 | CTH_FAMILY_IPV6] = "both" },
}, cfg_protocols = {
	.key = "protocol",
	.names = { [CTH_PROTO_TCP] = "tcp", [CTH_PROTO_UDP] = "udp",
		   [CTH_PROTO_TCP | CTH_PROTO_UDP] = "both" },
};

static int cfg_server_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg *cfg = p->cfg;

	if (strcmp(k, "plugin_dir") == 0)
		return cfg_set_plugin_dir(cfg, v);
	if (strcmp(k, "log_level") == 0) {
		int l = log_level_parse(v);

		if (l < 0) {
			cfg_error(cfg, p->line, "log_level: '%s' is not one of error, warning, notice, info, debug", v);
			return 0;
		}
		cfg->log_level = l;
		return 0;
	}
	if (strcmp(k, "control_socket") == 0 || strcmp(k, "user") == 0) {
		cfg_error(cfg, p->line, "'%s' is not supported by this version of cthelperd", k);
		return 0;
	}
	cfg_error(cfg, p->line, "unknown key '%s' in [server]", k);
	return 0;
}

static struct cfg_policy *cfg_policy_get(struct cfg_parse *p, const char *cls)
{
	struct cfg_helper *h = p->cur;

	for (size_t i = 0; i < h->n_policies; i++)
		if (strcmp(h->policies[i].cls, cls) == 0)
			return &h->policies[i];
	if (h->n_policies == CFG_MAX_POLICIES)
		return NULL;
	struct cfg_policy *pol = &h->policies[h->n_policies++];
	snprintf(pol->cls, sizeof(pol->cls), "%s", cls);
	pol->line = p->line;
	return pol;
}

/* policy.CLASS.max = N / policy.CLASS.timeout = SECONDS */
static void cfg_policy_key(struct cfg_parse *p, const char *k, const char *v)
{
	const char *cls = k + strlen("policy.");
	const char *dot = strrchr(cls, '.');
	char name[CTH_NAME_LEN];
	struct cfg_policy *pol;
	uint32_t n;

	if (!dot || dot == cls || (size_t)(dot - cls) >= sizeof(name)) {
		cfg_error(p->cfg, p->line, "'%s': expected policy.CLASS.max or policy.CLASS.timeout", k);
		return;
	}
	memcpy(name, cls, (size_t)(dot - cls));
	name[dot - cls] = '\0';
	pol = cfg_policy_get(p, name);
	if (!pol) {
		cfg_error(p->cfg, p->line, "too many policy classes");
		return;
	}
	if (strcmp(dot + 1, "max") == 0) {
		if (cfg_parse_u32(v, 1, PLUGIN_EXPECT_MAX, &n)) {
			cfg_error(p->cfg, p->line, "%s: '%s' is not a number in 1..%u", k, v,
				  PLUGIN_EXPECT_MAX);
			return;
		}
		pol->has_max = true;
		pol->max = n;
	} else if (strcmp(dot + 1, "timeout") == 0) {
		/* PLUGIN_TIMEOUT_MAX: the kernel's 32-bit jiffies (loader.h) */
		if (cfg_parse_u32(v, 1, PLUGIN_TIMEOUT_MAX, &n)) {
			cfg_error(p->cfg, p->line, "%s: '%s' is not a number of seconds in 1..%u",
				  k, v, PLUGIN_TIMEOUT_MAX);
			return;
		}
		pol->has_timeout = true;
		pol->timeout = n;
	} else {
		cfg_error(p->cfg, p->line, "'%s': expected policy.CLASS.max or policy.CLASS.timeout", k);
	}
}

static int cfg_bits_key(struct cfg_parse *p, const char *v,
			const struct cfg_bits *set, unsigned int *out)
{
	for (unsigned int bits = 1; bits <= 3; bits++)
		if (strcasecmp(v, set->names[bits]) == 0)
			return *out = bits, 0;
	cfg_error(p->cfg, p->line, "%s: '%s' is not one of %s, %s, %s", set->key, v,
		  set->names[1], set->names[2], set->names[3]);
	return 0;
}

static int cfg_helper_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg_helper *h = p->cur;
	uint32_t n;

	if (strcmp(k, "plugin") == 0) {
		if (!cfg_name_ok(v, 64)) {
			cfg_error(p->cfg, p->line, "plugin: '%s' is not a plugin name ([A-Za-z0-9_-])", v);
			return 0;
		}
		return cfg_set_str(&h->plugin, v) ? -ENOMEM : 0;
	}
	/* whether the plugin supports the choice is checked once it is loaded */
	if (strcmp(k, "family") == 0) {
		h->family_line = p->line;
		return cfg_bits_key(p, v, &cfg_families, &h->families);
	}
	if (strcmp(k, "protocol") == 0) {
		h->protocol_line = p->line;
		return cfg_bits_key(p, v, &cfg_protocols, &h->protocols);
	}
	if (strcmp(k, "queue") == 0) {
		if (cfg_parse_u32(v, 0, 65535, &n))
			cfg_error(p->cfg, p->line, "queue: '%s' is not a number in 0..65535", v);
		else
			h->queue = (uint16_t)n;
		return 0;
	}
	if (strcmp(k, "queue_len") == 0) {
		if (cfg_parse_u32(v, 1, 1u << 24, &n))
			cfg_error(p->cfg, p->line, "queue_len: '%s' is not a number in 1..16777216", v);
		else
			h->queue_len = n;
		return 0;
	}
	if (strcmp(k, "fail_open") == 0) {
		if (cfg_parse_bool(v, &h->fail_open))
			cfg_error(p->cfg, p->line, "fail_open: '%s' is not yes or no", v);
		return 0;
	}
	if (strncmp(k, "policy.", 7) == 0) {
		cfg_policy_key(p, k, v);
		return 0;
	}
	if (h->n_opts == CFG_MAX_OPTS) {
		cfg_error(p->cfg, p->line, "too many plugin options (max %d)", CFG_MAX_OPTS);
		return 0;
	}
	struct cfg_opt *o = &h->opts[h->n_opts];
	o->key = strdup(k);
	o->value = strdup(v);
	o->line = p->line;
	if (!o->key || !o->value)
		return -ENOMEM;
	h->n_opts++;
	return 0;
}

static void cfg_section_start(struct cfg_parse *p, const char *section)
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
}

static int cfg_handler(void *user, const char *section, const char *k,
		       const char *v)
{
	struct cfg_parse *p = user;

	(void)section;               /* tracked by cfg_reader() */
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

static void cfg_check(struct cfg *cfg)
{
	if (cfg->n_helpers == 0)
		cfg_error(cfg, 1, "no [helper NAME] section: nothing to do");
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		struct cfg_helper *h = &cfg->helpers[i];

		if (!h->plugin && cfg_set_str(&h->plugin, h->name) == 0 &&
		    !cfg_name_ok(h->plugin, 64))
			cfg_error(cfg, h->line, "helper '%s': no 'plugin' key", h->name);
	}
}

int cfg_load(const char *file, struct cfg **out)
{
	struct cfg_parse p = { 0 };
	struct cfg *cfg;
	int rc;

	cfg = calloc(1, sizeof(*cfg));
	if (!cfg || cfg_set_str(&cfg->file, file) ||
	    cfg_set_str(&cfg->plugin_dir, CTH_PLUGIN_DIR)) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	cfg->log_level = LOG_L_INFO;
	p.cfg = cfg;
	p.fp = fopen(file, "r");
	if (!p.fp) {
		rc = -errno;
		fprintf(stderr, "%s: %s\n", file, strerror(errno));
		cfg_free(cfg);
		return rc;
	}
	rc = ini_parse_stream(cfg_reader, &p, cfg_handler, &p);
	fclose(p.fp);
	if (rc == -2) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	if (rc > 0 && cfg->n_errors == 0)
		cfg_error(cfg, rc, "syntax error (expected [section] or key = value)");
	cfg_check(cfg);
	if (cfg->n_errors) {
		cfg_free(cfg);
		return -EINVAL;
	}
	*out = cfg;
	return 0;
}

void cfg_free(struct cfg *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n_helpers; i++) {
		free(cfg->helpers[i].plugin);
		for (size_t j = 0; j < cfg->helpers[i].n_opts; j++) {
			free(cfg->helpers[i].opts[j].key);
			free(cfg->helpers[i].opts[j].value);
		}
	}
	free(cfg->plugin_dir);
	free(cfg->file);
	free(cfg);
}
