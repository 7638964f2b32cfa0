/* SPDX-License-Identifier: MIT */
/* The [helper NAME] section's keys: the daemon's, each with its setter,
 * the policy.CLASS.* overrides, and the plugin's options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config_helper.h"
#include "config_shards.h"
#include "loader.h"

static int cfg_helper_plugin(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_family(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_protocol(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_queue(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_queue_len(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_fail_open(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_rule_ports(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_shards(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_mark_mask(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_expect_networks(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_sandbox(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_sandbox_timeout(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_sandbox_verdict(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_sandbox_memory(struct cfg_parse *p, const char *k, const char *v);
static void cfg_helper_policy(struct cfg_parse *p, const char *k, const char *v);
static struct cfg_policy *cfg_helper_policy_get(struct cfg_parse *p, const char *cls);
static int cfg_helper_option(struct cfg_parse *p, const char *k, const char *v);
static int cfg_helper_bits(struct cfg_parse *p, const char *v,
			   const struct cfg_bits *set, unsigned int *out);

/* One list for the parser and the manual's check: neither can drift. */
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
	{ .name = "sandbox", .set = cfg_helper_sandbox },
	{ .name = "sandbox_timeout_ms", .set = cfg_helper_sandbox_timeout },
	{ .name = "sandbox_verdict", .set = cfg_helper_sandbox_verdict },
	{ .name = "sandbox_memory", .set = cfg_helper_sandbox_memory },
	{ .name = NULL },
};

int cfg_helper_key(struct cfg_parse *p, const char *k, const char *v)
{
	const struct cfg_key *key = cfg_key_find(cfg_helper_keys, k);

	if (key)
		return key->set(p, k, v);
	if (strncmp(k, CFG_POLICY_PREFIX, strlen(CFG_POLICY_PREFIX)) == 0) {
		cfg_helper_policy(p, k, v);
		return 0;
	}
	return cfg_helper_option(p, k, v);
}

static int cfg_helper_plugin(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (!cfg_name_ok(v, 64)) {
		cfg_error(p->cfg, p->line, "plugin: '%s' is not a plugin name ([A-Za-z0-9_-])", v);
		return 0;
	}
	return cfg_str_set(&p->cur->plugin, v) ? -ENOMEM : 0;
}

/* whether the plugin supports the choice is checked once it is loaded */
static int cfg_helper_family(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	p->cur->family_line = p->line;
	return cfg_helper_bits(p, v, &cfg_families, &p->cur->families);
}

static int cfg_helper_protocol(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	p->cur->protocol_line = p->line;
	return cfg_helper_bits(p, v, &cfg_protocols, &p->cur->protocols);
}

static int cfg_helper_queue(struct cfg_parse *p, const char *k, const char *v)
{
	uint32_t n;

	(void)k;
	if (cfg_u32_parse(v, 0, 65535, &n))
		cfg_error(p->cfg, p->line, "queue: '%s' is not a number in 0..65535", v);
	else
		p->cur->queue = (uint16_t)n;
	return 0;
}

static int cfg_helper_queue_len(struct cfg_parse *p, const char *k, const char *v)
{
	uint32_t n;

	(void)k;
	if (cfg_u32_parse(v, 1, 1u << 24, &n))
		cfg_error(p->cfg, p->line, "queue_len: '%s' is not a number in 1..16777216", v);
	else
		p->cur->queue_len = n;
	return 0;
}

static int cfg_helper_fail_open(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (cfg_bool_parse(v, &p->cur->fail_open))
		cfg_error(p->cfg, p->line, "fail_open: '%s' is not yes or no", v);
	return 0;
}

/* sandbox = no trusts the plugin with the firewall (docs/security.md). */
static int cfg_helper_sandbox(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (cfg_bool_parse(v, &p->cur->sandbox.on))
		cfg_error(p->cfg, p->line, "sandbox: '%s' is not yes or no", v);
	return 0;
}

static int cfg_helper_sandbox_timeout(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (cfg_u32_parse(v, 1, 60000, &p->cur->sandbox.timeout_ms))
		cfg_error(p->cfg, p->line, "sandbox_timeout_ms: '%s' is not a number in 1..60000", v);
	return 0;
}

static int cfg_helper_sandbox_verdict(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (strcmp(v, "accept") == 0 || strcmp(v, "drop") == 0)
		p->cur->sandbox.drop = v[0] == 'd';
	else
		cfg_error(p->cfg, p->line, "sandbox_verdict: '%s' is not accept or drop", v);
	return 0;
}

/* 16 MiB: less does not hold libc, the plugin and the channel. */
static int cfg_helper_sandbox_memory(struct cfg_parse *p, const char *k, const char *v)
{
	(void)k;
	if (cfg_u32_parse(v, 16, 4096, &p->cur->sandbox.memory_mb))
		cfg_error(p->cfg, p->line, "sandbox_memory: '%s' is not a number of MiB in 16..4096", v);
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

/* shards = N: the name of the last shard must fit the kernel's
 * NF_CT_HELPER_NAME_LEN (nfnl_cthelper_policy refuses a longer NFCTH_NAME),
 * which is known here; the queues are checked once the whole file is read
 * (cfg_shards_check()), since queue and other sections may come later. */
static int cfg_helper_shards(struct cfg_parse *p, const char *k, const char *v)
{
	char name[64];
	uint32_t n;

	(void)k;
	if (cfg_u32_parse(v, 1, CFG_MAX_SHARDS, &n)) {
		cfg_error(p->cfg, p->line, "shards: '%s' is not a number in 1..%d", v,
			  CFG_MAX_SHARDS);
		return 0;
	}
	if (n > 1 && (size_t)cfg_shards_name(name, sizeof(name), p->cur->name, n - 1) >= CTH_NAME_LEN) {
		cfg_error(p->cfg, p->line, "shards = %u: shard %u would be named '%s', longer than %u characters (kernel limit)",
			  n, n - 1, name, CTH_NAME_LEN - 1);
		return 0;
	}
	p->cur->shards = n;
	p->cur->shards_line = p->line;
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

/* policy.CLASS.max = N / policy.CLASS.timeout = SECONDS */
static void cfg_helper_policy(struct cfg_parse *p, const char *k, const char *v)
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
	pol = cfg_helper_policy_get(p, name);
	if (!pol) {
		cfg_error(p->cfg, p->line, "too many policy classes");
		return;
	}
	if (strcmp(dot + 1, "max") == 0) {
		if (cfg_u32_parse(v, 1, PLUGIN_EXPECT_MAX, &n)) {
			cfg_error(p->cfg, p->line, "%s: '%s' is not a number in 1..%u", k, v,
				  PLUGIN_EXPECT_MAX);
			return;
		}
		pol->has_max = true;
		pol->max = n;
	} else if (strcmp(dot + 1, "timeout") == 0) {
		/* PLUGIN_TIMEOUT_MAX: the kernel's 32-bit jiffies (loader.h) */
		if (cfg_u32_parse(v, 1, PLUGIN_TIMEOUT_MAX, &n)) {
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

static struct cfg_policy *cfg_helper_policy_get(struct cfg_parse *p, const char *cls)
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

/* A key the daemon does not know: kept for the plugin's configure(),
 * which says whether it knows it once the plugin is loaded. */
static int cfg_helper_option(struct cfg_parse *p, const char *k, const char *v)
{
	struct cfg_helper *h = p->cur;
	struct cfg_opt *o;

	if (h->n_opts == CFG_MAX_OPTS) {
		cfg_error(p->cfg, p->line, "too many plugin options (max %d)", CFG_MAX_OPTS);
		return 0;
	}
	o = &h->opts[h->n_opts];
	o->key = strdup(k);
	o->value = strdup(v);
	o->line = p->line;
	if (!o->key || !o->value)
		return -ENOMEM;
	h->n_opts++;
	return 0;
}

static int cfg_helper_bits(struct cfg_parse *p, const char *v,
			   const struct cfg_bits *set, unsigned int *out)
{
	for (unsigned int bits = 1; bits <= 3; bits++)
		if (strcasecmp(v, set->names[bits]) == 0)
			return *out = bits, 0;
	cfg_error(p->cfg, p->line, "%s: '%s' is not one of %s, %s, %s", set->key, v,
		  set->names[1], set->names[2], set->names[3]);
	return 0;
}
