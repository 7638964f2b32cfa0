/* SPDX-License-Identifier: MIT */
/* The [server] section's keys, each with its setter. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "config_server.h"

static int cfg_server_plugin_dir(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_log_level(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_control_socket(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_control_mode(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_control_group(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_metrics(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_user(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_share_dir(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_runtime_dir(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_sandbox_user(struct cfg_parse *p, const char *k, const char *v);
static int cfg_server_inflight_entries(struct cfg_parse *p, const char *k, const char *v);

/* One list for the parser and the manual's check: neither can drift. */
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
	{ .name = "sandbox_user", .set = cfg_server_sandbox_user },
	{ .name = "inflight_entries", .set = cfg_server_inflight_entries },
	{ .name = NULL },
};

int cfg_server_key(struct cfg_parse *p, const char *k, const char *v)
{
	const struct cfg_key *key = cfg_key_find(cfg_server_keys, k);

	if (key)
		return key->set(p, k, v);
	cfg_error(p->cfg, p->line, "unknown key '%s' in [server]", k);
	return 0;
}

/* A relative plugin_dir is relative to the config file's directory, so a
 * config works whatever the daemon's working directory is. */
static int cfg_server_plugin_dir(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg *cfg = p->cfg;
	const char *slash = strrchr(cfg->file, '/');
	char *dir;

	(void)k;
	if (v[0] == '/' || !slash)
		return cfg_str_set(&cfg->plugin_dir, v) ? -ENOMEM : 0;
	if (asprintf(&dir, "%.*s/%s", (int)(slash - cfg->file), cfg->file, v) < 0)
		return -ENOMEM;
	free(cfg->plugin_dir);
	cfg->plugin_dir = dir;
	return 0;
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
	return cfg_str_set(&p->cfg->control_socket, v);
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
	return cfg_str_set(&p->cfg->metrics, v);
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
	return cfg_str_set(&p->cfg->user, v);
}

/* The sandboxes' user (docs/security.md): resolved now, as user is.  Root
 * would hand the plugins the firewall back. */
static int cfg_server_sandbox_user(struct cfg_parse *p, const char *k, const char *v)
{
	struct passwd *pw = getpwnam(v);

	(void)k;
	if (!pw) {
		cfg_error(p->cfg, p->line, "sandbox_user: no user '%s'", v);
		return 0;
	}
	if (pw->pw_uid == 0) {
		cfg_error(p->cfg, p->line, "sandbox_user: '%s' is root: a sandbox must not "
			  "run as root", v);
		return 0;
	}
	p->cfg->sandbox_uid = (long)pw->pw_uid;
	p->cfg->sandbox_gid = (long)pw->pw_gid;
	return cfg_str_set(&p->cfg->sandbox_user, v);
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
	return cfg_str_set(&p->cfg->share_dir, v);
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
	return cfg_str_set(&p->cfg->runtime_dir, v);
}

/* A power of two: the table is sets of INFLIGHT_WAYS chosen by the top
 * bits of a hash (host/inflight.c). */
static int cfg_server_inflight_entries(struct cfg_parse *p, const char *k, const char *v)
{
	uint32_t n;

	if (cfg_u32_parse(v, CFG_INFLIGHT_ENTRIES_MIN, CFG_INFLIGHT_ENTRIES_MAX, &n) ||
	    (n & (n - 1))) {
		cfg_error(p->cfg, p->line, "%s: '%s' is not a power of two in %u..%u", k, v,
			  CFG_INFLIGHT_ENTRIES_MIN, CFG_INFLIGHT_ENTRIES_MAX);
		return 0;
	}
	p->cfg->inflight_entries = n;
	return 0;
}
