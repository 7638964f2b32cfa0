/* SPDX-License-Identifier: MIT */
/*
 * cthelperd.conf parsing with inih.  inih does not report line numbers to
 * the handler, so lines are counted in our own reader callback: inih reads
 * exactly one line per call, which makes the count exact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <ini.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "base/log.h"
#include "loader.h"

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
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a running daemon (reload) logs them: stderr may be /dev/null */
	if (log_capturing())
		log_err("%s:%d: %s", cfg->file, line, msg);
	else
		fprintf(stderr, "%s:%d: %s\n", cfg->file, line, msg);
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

static int cfg_server_plugin_dir(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	return cfg_set_plugin_dir(p->cfg, v);
}

static int cfg_server_log_level(struct cfg_parse *p, const char *k, const char *v)
{
	int l = log_level_parse(v);

	(void)k;
	if (l < 0) {
		cfg_error(p->cfg, p->line, "log_level: '%s' is not one of error, warning, notice, info, debug", v);
		return 0;
	}
	p->cfg->log_level = l;
	return 0;
}

static int cfg_server_control_socket(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (v[0] != '/' || strlen(v) >= CFG_SOCKET_PATH_MAX) {
		cfg_error(p->cfg, p->line, "control_socket: '%s' is not an absolute path shorter than %d bytes",
			  v, CFG_SOCKET_PATH_MAX);
		return 0;
	}
	return cfg_set_str(&p->cfg->control_socket, v);
}

/* "none" keeps helpers unshared (share.h). */
static int cfg_server_share_dir(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (strcmp(v, "none") == 0) {
		free(p->cfg->share_dir);
		p->cfg->share_dir = NULL;
		return 0;
	}
	if (v[0] != '/' || strlen(v) >= CFG_SHARE_DIR_MAX) {
		cfg_error(p->cfg, p->line, "share_dir: '%s' is neither none nor an absolute path shorter than %d bytes",
			  v, CFG_SHARE_DIR_MAX);
		return 0;
	}
	return cfg_set_str(&p->cfg->share_dir, v);
}

/* "none" keeps no record of registered helpers (record.h). */
static int cfg_server_runtime_dir(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (strcmp(v, "none") == 0) {
		free(p->cfg->runtime_dir);
		p->cfg->runtime_dir = NULL;
		return 0;
	}
	if (v[0] != '/' || strlen(v) >= CFG_SHARE_DIR_MAX) {
		cfg_error(p->cfg, p->line, "runtime_dir: '%s' is neither none nor an absolute path shorter than %d bytes",
			  v, CFG_SHARE_DIR_MAX);
		return 0;
	}
	return cfg_set_str(&p->cfg->runtime_dir, v);
}

static int cfg_server_control_mode(struct cfg_parse *p, const char *k, const char *v)
{
	char *end;
	unsigned long m;

	(void)k;
	errno = 0;
	m = strtoul(v, &end, 8);
	if (*v < '0' || *v > '7' || errno || *end || m > 0777) {
		cfg_error(p->cfg, p->line, "control_mode: '%s' is not an octal mode from 0 to 0777", v);
		return 0;
	}
	p->cfg->control_mode = (uint32_t)m;
	return 0;
}

static int cfg_server_control_group(struct cfg_parse *p, const char *k, const char *v)
{
	struct group *g = getgrnam(v);

	(void)k;
	if (!g) {
		cfg_error(p->cfg, p->line, "control_group: no group '%s'", v);
		return 0;
	}
	p->cfg->control_gid = (long)g->gr_gid;
	return 0;
}

int cfg_addr_port_parse(const char *v, struct sockaddr_storage *sa, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN];
	const char *colon, *end;
	uint32_t port;
	size_t n;

	/* the last colon: an IPv6 literal has its own, hence the brackets */
	colon = strrchr(v, ':');
	if (!colon || cfg_parse_u32(colon + 1, 0, 65535, &port))
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	if (v[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		end = colon - 1;          /* >= v: v[0] is '[', not ':' */
		if (end == v || *end != ']' ||
		    (n = (size_t)(end - v - 1)) >= sizeof(host))
			return -EINVAL;
		memcpy(host, v + 1, n);
		host[n] = '\0';
		if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1)
			return -EINVAL;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		n = (size_t)(colon - v);
		if (n >= sizeof(host))
			return -EINVAL;
		memcpy(host, v, n);
		host[n] = '\0';
		/* inet_pton() takes only the dotted quad, no "127.1" or names */
		if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -EINVAL;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
	}
	return 0;
}

/* Only checked here; server/control/metrics.c parses it again when it listens,
 * so the config keeps the text, as written, for logs and reload. */
static int cfg_server_metrics(struct cfg_parse *p, const char *k, const char *v)
{
	struct sockaddr_storage sa;
	socklen_t len;

	(void)k;
	if (cfg_addr_port_parse(v, &sa, &len) < 0) {
		cfg_error(p->cfg, p->line, "metrics: '%s' is not ADDR:PORT (an IPv4 address, "
			  "or an IPv6 one in brackets, and a port in 0..65535)", v);
		return 0;
	}
	p->cfg->metrics_line = p->line;
	return cfg_set_str(&p->cfg->metrics, v);
}

/* Resolved now, so a typo is a FILE:LINE error of -n rather than a
 * failure at start, and the drop itself reads no user database. */
static int cfg_server_user(struct cfg_parse *p, const char *k, const char *v)
{
	struct passwd *pw = getpwnam(v);

	(void)k;
	if (!pw) {
		cfg_error(p->cfg, p->line, "user: no user '%s'", v);
		return 0;
	}
	p->cfg->uid = (long)pw->pw_uid;
	p->cfg->gid = (long)pw->pw_gid;
	return cfg_set_str(&p->cfg->user, v);
}

/* The parser looks keys up here and tests/unit/test_docs.c checks that
 * cthelperd.conf(5) documents each: one list, so neither can drift. */
const struct cfg_key cfg_server_keys[] = {
	{ .name = "plugin_dir", .set = cfg_server_plugin_dir },
	{ .name = "log_level", .set = cfg_server_log_level },
	{ .name = "control_socket", .set = cfg_server_control_socket },
	{ .name = "control_mode", .set = cfg_server_control_mode },
	{ .name = "control_group", .set = cfg_server_control_group },
	{ .name = "metrics", .set = cfg_server_metrics },
	{ .name = "user", .set = cfg_server_user },
	{ .name = "share_dir", .set = cfg_server_share_dir },
	{ .name = "runtime_dir", .set = cfg_server_runtime_dir },
	{ .name = NULL },
};

static const struct cfg_key *cfg_key_find(const struct cfg_key *keys, const char *k)
{
	for (; keys->name; keys++)
		if (strcmp(keys->name, k) == 0)
			return keys;
	return NULL;
}

static int cfg_server_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg *cfg = p->cfg;
	const struct cfg_key *key = cfg_key_find(cfg_server_keys, k);

	if (key)
		return key->set(p, k, v);
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
	const char *cls = k + strlen(CFG_POLICY_PREFIX);
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

static int cfg_helper_plugin(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (!cfg_name_ok(v, 64)) {
		cfg_error(p->cfg, p->line, "plugin: '%s' is not a plugin name ([A-Za-z0-9_-])", v);
		return 0;
	}
	return cfg_set_str(&p->cur->plugin, v) ? -ENOMEM : 0;
}

/* whether the plugin supports the choice is checked once it is loaded */
static int cfg_helper_family(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	p->cur->family_line = p->line;
	return cfg_bits_key(p, v, &cfg_families, &p->cur->families);
}

static int cfg_helper_protocol(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	p->cur->protocol_line = p->line;
	return cfg_bits_key(p, v, &cfg_protocols, &p->cur->protocols);
}

static int cfg_helper_queue(struct cfg_parse *p, const char *k, const char *v)
{
	uint32_t n;

	(void)k;
	if (cfg_parse_u32(v, 0, 65535, &n))
		cfg_error(p->cfg, p->line, "queue: '%s' is not a number in 0..65535", v);
	else
		p->cur->queue = (uint16_t)n;
	return 0;
}

static int cfg_helper_queue_len(struct cfg_parse *p, const char *k, const char *v)
{
	uint32_t n;

	(void)k;
	if (cfg_parse_u32(v, 1, 1u << 24, &n))
		cfg_error(p->cfg, p->line, "queue_len: '%s' is not a number in 1..16777216", v);
	else
		p->cur->queue_len = n;
	return 0;
}

static int cfg_helper_fail_open(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (cfg_parse_bool(v, &p->cur->fail_open))
		cfg_error(p->cfg, p->line, "fail_open: '%s' is not yes or no", v);
	return 0;
}

static int cfg_helper_mark_mask(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (guard_mark_mask_parse(&p->cur->guard, v))
		cfg_error(p->cfg, p->line, "mark_mask: '%s' is not a 32-bit number (0x... or decimal)", v);
	return 0;
}

static int cfg_helper_expect_networks(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (guard_networks_parse(&p->cur->guard, v))
		cfg_error(p->cfg, p->line, "expect_networks: '%s' is not a list of 1..%d "
			  "ADDRESS[/PREFIX] (IPv4 or IPv6)", v, GUARD_MAX_NETS);
	return 0;
}

int cfg_ports_parse(const char *v, uint16_t *ports, size_t max, size_t *n)
{
	size_t got = 0;

	while (*v) {
		char *end;
		unsigned long port;

		v += strspn(v, " \t,");
		if (!*v)
			break;
		if (*v < '0' || *v > '9' || got == max)
			return -EINVAL;
		errno = 0;
		port = strtoul(v, &end, 10);
		if (errno || port == 0 || port > 65535 ||
		    (*end && !strchr(" \t,", *end)))
			return -EINVAL;
		ports[got++] = (uint16_t)port;
		v = end;
	}
	if (got == 0)
		return -EINVAL;
	*n = got;
	return 0;
}

/* Only --print-rules reads it: the daemon never filters by port (the
 * firewall rules decide which connections are helped). */
static int cfg_helper_rule_ports(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg_helper *h = p->cur;

	(void)k;
	if (cfg_ports_parse(v, h->rule_ports, CFG_MAX_RULE_PORTS, &h->n_rule_ports))
		cfg_error(p->cfg, p->line, "rule_ports: '%s' is not a list of 1..%d ports in 1..65535",
			  v, CFG_MAX_RULE_PORTS);
	return 0;
}

/* "NAME.k": the kernel name of shard k (k >= 1) of section NAME.  The
 * dot keeps it apart from every section name (cfg_name_ok() refuses a
 * dot in one), so only its length and its queue can clash.  Returns the
 * length it needs, as snprintf() does. */
static int cfg_shard_name(char *out, size_t len, const char *base, unsigned int k)
{
	return snprintf(out, len, "%s.%u", base, k);
}

/* shards = N: the name of the last shard must fit the kernel's
 * NF_CT_HELPER_NAME_LEN (nfnl_cthelper_policy refuses a longer NFCTH_NAME),
 * which is known here; the queues are checked once the whole file is read
 * (cfg_shards_check()), since queue and other sections may come later. */
static int cfg_helper_shards(struct cfg_parse *p, const char *k, const char *v)
{
	char name[64];
	uint32_t n;

	(void)k;
	if (cfg_parse_u32(v, 1, CFG_MAX_SHARDS, &n)) {
		cfg_error(p->cfg, p->line, "shards: '%s' is not a number in 1..%d", v,
			  CFG_MAX_SHARDS);
		return 0;
	}
	if (n > 1 && (size_t)cfg_shard_name(name, sizeof(name), p->cur->name, n - 1) >= CTH_NAME_LEN) {
		cfg_error(p->cfg, p->line, "shards = %u: shard %u would be named '%s', longer than %u characters (kernel limit)",
			  n, n - 1, name, CTH_NAME_LEN - 1);
		return 0;
	}
	p->cur->shards = n;
	p->cur->shards_line = p->line;
	return 0;
}

/* Daemon keys of [helper NAME]; policy.CLASS.* and plugin keys are not
 * names but patterns, handled in cfg_helper_key(). */
const struct cfg_key cfg_helper_keys[] = {
	{ .name = "plugin", .set = cfg_helper_plugin },
	{ .name = "family", .set = cfg_helper_family },
	{ .name = "protocol", .set = cfg_helper_protocol },
	{ .name = "queue", .set = cfg_helper_queue },
	{ .name = "queue_len", .set = cfg_helper_queue_len },
	{ .name = "fail_open", .set = cfg_helper_fail_open },
	{ .name = "rule_ports", .set = cfg_helper_rule_ports },
	{ .name = "shards", .set = cfg_helper_shards },
	{ .name = "mark_mask", .set = cfg_helper_mark_mask },
	{ .name = "expect_networks", .set = cfg_helper_expect_networks },
	{ .name = NULL },
};

static int cfg_helper_key(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg_helper *h = p->cur;
	const struct cfg_key *key = cfg_key_find(cfg_helper_keys, k);

	if (key)
		return key->set(p, k, v);
	if (strncmp(k, CFG_POLICY_PREFIX, strlen(CFG_POLICY_PREFIX)) == 0) {
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
	p->cur->shards = 1;
	p->cur->guard = GUARD_DEFAULT;
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

/* The last queue of a section: queue + shards - 1 (may pass 65535). */
static uint32_t cfg_queue_last(const struct cfg_helper *h)
{
	return (uint32_t)h->queue + h->shards - 1;
}

/*
 * A sharded section's queues are its own: a shard exists so that one
 * worker thread (one per queue) serves it alone, and a queue shared with
 * another helper would put two shards' or two helpers' packets on one
 * thread again.  Unsharded sections may still share a queue, as before.
 * Each clash is reported once, at the shards line of the sharded one.
 */
static void cfg_shards_clash(struct cfg *cfg, const struct cfg_helper *a,
			     const struct cfg_helper *b)
{
	const struct cfg_helper *s = b->shards > 1 ? b : a, *o = s == b ? a : b;
	uint32_t first = a->queue > b->queue ? a->queue : b->queue;

	if (s->shards == 1 || first > cfg_queue_last(a) || first > cfg_queue_last(b))
		return;
	cfg_error(cfg, s->shards_line, "shards = %u: helper '%s' takes queues %u..%u, and helper '%s' (line %d) "
		  "also uses queue %u: a sharded helper's queues are its own",
		  s->shards, s->name, s->queue, cfg_queue_last(s), o->name, o->line, first);
}

static void cfg_shards_check(struct cfg *cfg)
{
	size_t total = 0;

	for (size_t i = 0; i < cfg->n_helpers; i++) {
		const struct cfg_helper *h = &cfg->helpers[i];

		total += h->shards;
		/* reported where the total first passes the limit, whichever
		 * section that is: a plain one after a sharded one too
		 * (cfg_shards_expand() writes every entry into helpers[]) */
		if (total > CFG_MAX_HELPERS && total - h->shards <= CFG_MAX_HELPERS)
			cfg_error(cfg, h->shards > 1 ? h->shards_line : h->line,
				  "helper '%s': %zu helpers in all with the shards (max %d)",
				  h->name, total, CFG_MAX_HELPERS);
		if (h->shards == 1)
			continue;
		if (cfg_queue_last(h) > 65535)
			cfg_error(cfg, h->shards_line, "shards = %u: helper '%s' from queue %u needs queues up to %u (the last is 65535)",
				  h->shards, h->name, h->queue, cfg_queue_last(h));
	}
	for (size_t i = 0; i < cfg->n_helpers; i++)
		for (size_t j = 0; j < i; j++)
			cfg_shards_clash(cfg, &cfg->helpers[j], &cfg->helpers[i]);
}

/* A deep copy: the plugin name and options are strdup()ed, so that
 * cfg_free() frees every entry on its own.  On -ENOMEM dst holds only
 * what was copied (nothing of src's is freed twice). */
static int cfg_helper_copy(struct cfg_helper *dst, const struct cfg_helper *src)
{
	*dst = *src;
	dst->plugin = NULL;
	dst->n_opts = 0;
	if (cfg_set_str(&dst->plugin, src->plugin))
		return -ENOMEM;
	for (size_t i = 0; i < src->n_opts; i++) {
		struct cfg_opt *o = &dst->opts[i];

		o->key = strdup(src->opts[i].key);
		o->value = strdup(src->opts[i].value);
		dst->n_opts++;
		if (!o->key || !o->value)
			return -ENOMEM;
	}
	return 0;
}

/*
 * shards = N into N entries, in place and in file order: a section's
 * shards are consecutive (--print-rules reads them so).  Walking from the
 * last section down, each one's destination is at or after where it
 * stands, so nothing is overwritten before it has moved; a moved-from
 * slot is zeroed so that no pointer has two owners.
 */
static int cfg_shards_expand(struct cfg *cfg)
{
	size_t sections = cfg->n_helpers, total = 0, end;

	for (size_t i = 0; i < sections; i++)
		total += cfg->helpers[i].shards;
	/* cfg_shards_check() refused it; never write past helpers[] */
	if (total > CFG_MAX_HELPERS)
		return -E2BIG;
	/* cfg_free() sees every slot; those past the sections are zero
	 * (calloc) until filled */
	cfg->n_helpers = end = total;
	for (size_t i = sections; i-- > 0; ) {
		struct cfg_helper *h = &cfg->helpers[i], *d;
		unsigned int n = h->shards;

		end -= n;
		d = &cfg->helpers[end];
		if (d != h) {
			*d = *h;
			memset(h, 0, sizeof(*h));
		}
		for (unsigned int k = 1; k < n; k++) {
			if (cfg_helper_copy(&d[k], d))
				return -ENOMEM;
			cfg_shard_name(d[k].name, sizeof(d[k].name), d->name, k);
			d[k].queue = (uint16_t)(d->queue + k);
			d[k].shard = k;
		}
	}
	return 0;
}

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
	if (!cfg || cfg_set_str(&cfg->file, name) ||
	    cfg_set_str(&cfg->plugin_dir, CTH_PLUGIN_DIR) ||
	    cfg_set_str(&cfg->share_dir, CFG_SHARE_DIR_DEFAULT) ||
	    cfg_set_str(&cfg->runtime_dir, CFG_RUNTIME_DIR_DEFAULT)) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	cfg->log_level = LOG_L_INFO;
	cfg->control_mode = 0600;
	cfg->control_gid = -1;
	cfg->uid = cfg->gid = -1;
	p.cfg = cfg;
	p.fp = fp;
	rc = ini_parse_stream(cfg_reader, &p, cfg_handler, &p);
	if (rc == -2) {
		cfg_free(cfg);
		return -ENOMEM;
	}
	if (rc > 0 && cfg->n_errors == 0)
		cfg_error(cfg, rc, "syntax error (expected [section] or key = value)");
	cfg_check(cfg);
	cfg_shards_check(cfg);
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
	free(cfg->control_socket);
	free(cfg->share_dir);
	free(cfg->runtime_dir);
	free(cfg->metrics);
	free(cfg->user);
	free(cfg->file);
	free(cfg);
}
